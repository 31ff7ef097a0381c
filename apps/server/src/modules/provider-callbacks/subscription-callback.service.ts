import type { AppDeps } from '../../app-deps.ts';
import type { Executor } from '../../db/database.ts';
import { badRequest } from '../../errors.ts';
import { type AuditSource, recordAudit } from '../audit/record-audit.ts';
import { hasSubscriberRoom } from '../plans/plan-limits.ts';
import {
  normaliseForCompany,
  subscribeNumber,
  unsubscribeNumber,
} from '../subscribers/subscribers.service.ts';
import {
  classifySubscriptionCallback,
  inboundReceivedAt,
  readJoinCommand,
  readStopCommand,
} from './africastalking-payloads.ts';
import { type CallbackUrlParams, inCallbackTransaction } from './callback-transaction.ts';
import * as repo from './provider-callbacks.repository.ts';

export type CallbackOutcome = {
  outcome:
    | 'subscribed'
    | 'unsubscribed'
    | 'unchanged'
    | 'stored'
    | 'duplicate'
    | 'unknown_service'
    | 'refused_by_limit'
    | 'company_not_active';
  serviceIds?: number[];
  messageId?: number;
};

/**
 * The active services an opt-out names: the keyword's on that short code, else every service on
 * the short code, else (no short code known) every service of the company. Opting out errs wide,
 * but never reaches a service that is not active.
 */
async function optOutTargets(db: Executor, companyId: number, shortcode: string, keyword: string | null) {
  const onShortcode = await repo.findServicesByShortcode(db, companyId, shortcode);
  if (keyword) {
    const exact = onShortcode.filter((service) => service.keyword.toUpperCase() === keyword.toUpperCase());
    if (exact.length > 0) return exact.map((service) => service.id);
  }
  if (onShortcode.length > 0) return onShortcode.map((service) => service.id);
  return repo.findActiveServiceIds(db, companyId);
}

/**
 * An opt-in by SMS keyword or by the provider's notification, held to the company's subscriber
 * limit like the console's subscribe and import, and refused while the company is not active
 * (suspended, pending, inactive: it takes no new subscribers, though opt-outs are still honoured).
 * A refusal subscribes no one and is audited; the provider is still answered 200 (nothing to retry)
 * and an incoming message stays stored. (The spec says nothing about refused opt-ins.)
 */
async function optIn(
  trx: Executor,
  audit: AuditSource,
  service: { id: number; company_id: number; name: string },
  msisdn: string,
  source: 'sms' | 'provider',
  companyActive: boolean,
): Promise<CallbackOutcome> {
  if (!companyActive) {
    await recordAudit(trx, audit, {
      action: 'REJECT',
      entity: 'SUBSCRIBER',
      companyId: service.company_id,
      details: { msisdn, serviceId: service.id, source, reason: 'companyNotActive' },
    });
    return { outcome: 'company_not_active', serviceIds: [service.id] };
  }
  const { limit, allowed } = await hasSubscriberRoom(trx, service.company_id, msisdn);
  if (!allowed) {
    await recordAudit(trx, audit, {
      action: 'REJECT',
      entity: 'SUBSCRIBER',
      companyId: service.company_id,
      details: { msisdn, serviceId: service.id, source, reason: 'subscribersLimit', subscribersLimit: limit },
    });
    return { outcome: 'refused_by_limit', serviceIds: [service.id] };
  }
  const result = await subscribeNumber(trx, audit, service, msisdn, source);
  return { outcome: result.changed ? 'subscribed' : 'unchanged', serviceIds: [service.id] };
}

/**
 * Handles one notification posted to a company's subscription callback URL, inside the
 * transaction bound to that company (inCallbackTransaction: token already checked, and whether
 * the company is active: opt-outs and incoming messages are handled either way, opt-ins only then). Everything
 * is idempotent: a repeated notification finds nothing left to change.
 */
export async function handleSubscriptionCallback(
  deps: AppDeps,
  trx: Executor,
  companyId: number,
  body: unknown,
  audit: AuditSource,
  companyActive: boolean,
): Promise<CallbackOutcome> {
  const callback = classifySubscriptionCallback(body);
  if (callback.kind === 'invalid') throw badRequest(callback.message);

  if (callback.kind === 'subscription') {
    const { phoneNumber, shortCode, keyword, updateType } = callback.payload;
    const msisdn = await normaliseForCompany(deps, trx, companyId, phoneNumber);
    const service = (await repo.findServicesByShortcode(trx, companyId, shortCode)).find(
      (candidate) => candidate.keyword.toUpperCase() === keyword.toUpperCase(),
    );
    if (!service) return { outcome: 'unknown_service' };
    if (updateType === 'addition') return optIn(trx, audit, service, msisdn, 'provider', companyActive);
    const result = await unsubscribeNumber(trx, audit, companyId, msisdn, [service.id], 'provider');
    return {
      outcome: result.endedServiceIds.length > 0 ? 'unsubscribed' : 'unchanged',
      serviceIds: result.endedServiceIds,
    };
  }

  if (callback.kind === 'opt-out') {
    const msisdn = await normaliseForCompany(deps, trx, companyId, callback.payload.phoneNumber);
    const targets = await optOutTargets(trx, companyId, callback.payload.senderId, null);
    const result = await unsubscribeNumber(trx, audit, companyId, msisdn, targets, 'provider');
    return {
      outcome: result.endedServiceIds.length > 0 ? 'unsubscribed' : 'unchanged',
      serviceIds: result.endedServiceIds,
    };
  }

  const { from, to, text, id, date } = callback.payload;
  const msisdn = await normaliseForCompany(deps, trx, companyId, from);
  const stop = readStopCommand(text);
  const join = stop === undefined ? readJoinCommand(text) : undefined;
  const keyword = (stop ?? join ?? text.trim().split(/\s+/)[0] ?? '').toUpperCase();
  const onShortcode = await repo.findServicesByShortcode(trx, companyId, to);
  const matched =
    onShortcode.find((service) => keyword && service.keyword.toUpperCase() === keyword) ??
    (onShortcode.length === 1 ? onShortcode[0] : undefined);
  const messageId = await repo.insertInboundMessage(trx, {
    companyId,
    serviceId: matched?.id ?? null,
    msisdn,
    content: text,
    providerMessageId: id || null,
    receivedAt: inboundReceivedAt(date, new Date()),
  });
  if (messageId === null) return { outcome: 'duplicate' };
  await recordAudit(trx, audit, {
    action: 'CREATE',
    entity: 'MESSAGE',
    entityId: messageId,
    companyId,
    details: { direction: 'inbound', from: msisdn, to, serviceId: matched?.id ?? null },
  });
  if (stop === undefined) {
    const joined = join ? onShortcode.find((service) => service.keyword.toUpperCase() === join) : undefined;
    if (!joined) return { outcome: 'stored', messageId };
    return { ...(await optIn(trx, audit, joined, msisdn, 'sms', companyActive)), messageId };
  }
  const targets = await optOutTargets(trx, companyId, to, stop);
  const result = await unsubscribeNumber(trx, audit, companyId, msisdn, targets, 'sms');
  return {
    outcome: result.endedServiceIds.length > 0 ? 'unsubscribed' : 'unchanged',
    serviceIds: result.endedServiceIds,
    messageId,
  };
}

/**
 * A subscription callback as it arrives on its URL: handled only for the company's current token,
 * in the one transaction bound to the company the URL names (callback-transaction.ts).
 */
export function receiveSubscriptionCallback(
  deps: AppDeps,
  params: CallbackUrlParams,
  body: unknown,
  audit: AuditSource,
) {
  return inCallbackTransaction(deps, 'subscription', params, async (trx, companyId, companyActive) => ({
    companyId,
    result: await handleSubscriptionCallback(deps, trx, companyId, body, audit, companyActive),
  }));
}
