import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import {
  TRANSACTIONAL_MESSAGES,
  type TTransactionalRecipient,
  type TTransactionalSendData,
  type TTransactionalSendRequest,
} from '@sms/contracts/messages/transactional-send';
import type { AppDeps } from '../../app-deps.ts';
import type { Executor } from '../../db/database.ts';
import { badRequest, forbidden, notFound } from '../../errors.ts';
import { startDirectSend } from '../../messaging/direct-send.ts';
import { adjustUsage, lockUsage, usageMonthOf } from '../../messaging/monthly-usage.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { normalisePhoneNumber } from '../subscribers/phone-number.ts';
import { requestHashOf, type StoredAnswer } from './idempotency.ts';
import { findMessage } from './message-logs.repository.ts';
import { presentMessage } from './message-logs.service.ts';
import * as repo from './send-message.repository.ts';
import { measure, resolveTargets, type Targets, writeOncePerKey } from './send-message.service.ts';
import * as numbersRepo from './transactional-send.repository.ts';

type Sendable = { msisdn: string; subscriberId: number | null };

/**
 * Each number as given, read in the company's country: invalid ones listed with the reason, a
 * repeated one kept once (at its first place), and numbers whose subscriber opted out of the
 * company (STOP leaves it unsubscribed) skipped. The rest are sent to.
 */
async function sortNumbers(deps: AppDeps, trx: Executor, companyId: number, given: string[]) {
  const country = (await numbersRepo.findCompanyCountry(trx, companyId)) ?? deps.config.defaultCountry;
  const answers: TTransactionalRecipient[] = [];
  const seen = new Set<string>();
  for (const input of given) {
    const phone = normalisePhoneNumber(input, country);
    if (!phone.ok) {
      answers.push({ to: input, status: 'invalid', reason: TRANSACTIONAL_MESSAGES.invalidNumber(input) });
      continue;
    }
    if (seen.has(phone.msisdn)) continue;
    seen.add(phone.msisdn);
    answers.push({ to: phone.msisdn, status: 'queued' });
  }
  const subscribers = await numbersRepo.findSubscribersByNumber(trx, companyId, [...seen]);
  const subscriberOf = new Map(subscribers.map((subscriber) => [subscriber.msisdn, subscriber]));
  const sendable: Sendable[] = [];
  for (const answer of answers) {
    if (answer.status !== 'queued') continue;
    const subscriber = subscriberOf.get(answer.to);
    if (subscriber?.status === 'unsubscribed') {
      answer.status = 'skipped_opted_out';
      answer.reason = TRANSACTIONAL_MESSAGES.optedOut;
    } else sendable.push({ msisdn: answer.to, subscriberId: subscriber?.id ?? null });
  }
  return { answers, sendable };
}

/** The month's usage locked, checked and reserved for this send, as bulk sends do (403 over the limit). */
async function reserveUnits(trx: Executor, targets: Targets, units: number) {
  const month = usageMonthOf(new Date());
  const used = await lockUsage(trx, targets.companyId, month);
  if (used + units > targets.messagesLimit)
    throw forbidden(MESSAGE_MESSAGES.monthlyLimitReached(targets.messagesLimit, used, units));
  await adjustUsage(trx, targets.companyId, month, units);
  return month;
}

/**
 * POST /messages with `to`: a transactional send of one text from one service to up to 1,000
 * numbers. In one transaction, once per Idempotency-Key: the numbers sorted (queued, skipped,
 * invalid), the month's usage reserved, the message written as processing and handed to the
 * engine with its recipients and high-priority batches (messaging/direct-send.ts), and the audit.
 * Nobody to send to is a 400 listing every number; nothing is written then.
 */
export async function sendTransactional(
  deps: AppDeps,
  ctx: RequestContext,
  request: TTransactionalSendRequest,
  idempotencyKey: string | null,
): Promise<StoredAnswer> {
  const given = Array.isArray(request.to) ? request.to : [request.to];
  const hash = requestHashOf('send-transactional', request);
  return writeOncePerKey(
    deps,
    ctx,
    { key: idempotencyKey, hash },
    (trx) => resolveTargets(trx, ctx, [request.serviceId]),
    async (trx, targets) => {
      const { answers, sendable } = await sortNumbers(deps, trx, targets.companyId, given);
      if (sendable.length === 0)
        throw badRequest(
          TRANSACTIONAL_MESSAGES.nobodyToSend,
          answers.map((answer) => `${answer.to}: ${answer.reason ?? answer.status}`),
        );
      const { encoding, parts } = measure(request.message);
      const usageMonth = await reserveUnits(trx, targets, sendable.length * parts);
      const messageId = await repo.insertMessage(trx, {
        companyId: targets.companyId,
        serviceIds: [request.serviceId],
        content: request.message,
        // Pending until its counts are recorded (only this transaction ever sees it so): the engine
        // records counts (the company's activity row) before it settles messages (their status
        // counters), and a send written as processing took those in the other order and deadlocked.
        status: 'pending',
        scheduledAt: null,
        encoding,
        parts,
        recipientCount: sendable.length,
        createdBy: ctx.actor.userId,
      });
      await startDirectSend(trx, deps.messaging.queue, {
        companyId: targets.companyId,
        messageId,
        serviceId: request.serviceId,
        parts,
        usageMonth,
        recipients: sendable,
      });
      await repo.setMessageStatus(trx, targets.companyId, messageId, 'processing');
      const count = (status: TTransactionalRecipient['status']) =>
        answers.filter((answer) => answer.status === status).length;
      await recordAudit(trx, auditSourceOf(ctx), {
        action: 'CREATE',
        entity: 'MESSAGE',
        entityId: messageId,
        companyId: targets.companyId,
        details: {
          transactional: true,
          serviceIds: [request.serviceId],
          recipientCount: sendable.length,
          skippedOptedOut: count('skipped_opted_out'),
          invalid: count('invalid'),
          parts,
          length: request.message.length,
        },
      });
      const row = await findMessage(trx, messageId, tenantOf(ctx.actor));
      if (!row) throw notFound('Message');
      const data: TTransactionalSendData = { message: presentMessage(row), recipients: answers };
      return { statusCode: 201, body: { success: true, data } };
    },
  );
}
