import { randomUUID } from 'node:crypto';
import {
  type TUpdateWebhookRequest,
  WEBHOOK_MESSAGES,
  WEBHOOK_TEST_EVENT_TYPE,
} from '@sms/contracts/webhooks/webhook';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import { AppError, badRequest } from '../../errors.ts';
import { encryptSecret } from '../../lib/crypto.ts';
import { canonicalHost, createPublicAddressPolicy } from '../../lib/public-address.ts';
import type { RequestContext } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { presentDelivery, presentEndpoint } from './present-webhook.ts';
import { postSigned, signingSecretOf } from './webhook-post.ts';
import { generateWebhookSecret } from './webhook-signature.ts';
import * as repo from './webhooks.repository.ts';

/** The deliveries table shows this many of an endpoint's latest posts. */
const DELIVERIES_SHOWN = 100;

function companyOf(ctx: RequestContext) {
  if (ctx.actor.companyId === null) throw badRequest('Your account does not belong to a company');
  return ctx.actor.companyId;
}

const policyOf = (deps: AppDeps) =>
  createPublicAddressPolicy(deps.config.messaging.providerAllowedPrivateHosts);

/**
 * The provider settings' address rules (lib/public-address.ts): no private, loopback or link-local
 * address unless the operator listed the host in PROVIDER_ALLOWED_PRIVATE_HOSTS, and https only,
 * except to such a listed host (a receiver on the operator's own network, or a test's).
 * Checked before any transaction: the check may wait on DNS.
 */
async function checkEndpointUrl(deps: AppDeps, raw: string) {
  const url = new URL(raw);
  if (url.username || url.password) throw new AppError('validation_failed', WEBHOOK_MESSAGES.urlCredentials);
  const allowedHosts = deps.config.messaging.providerAllowedPrivateHosts.map(canonicalHost);
  const listed = allowedHosts.includes(canonicalHost(url.hostname));
  if (url.protocol !== 'https:' && !listed)
    throw new AppError('validation_failed', WEBHOOK_MESSAGES.urlNotHttps);
  if (await policyOf(deps).check(url.hostname))
    throw new AppError('validation_failed', WEBHOOK_MESSAGES.urlNotPublic);
}

async function endpointOrNotFound(
  trx: Parameters<typeof repo.findEndpoint>[0],
  companyId: number,
  id: number,
) {
  const found = await repo.findEndpoint(trx, companyId, id);
  if (!found) throw new AppError('not_found', WEBHOOK_MESSAGES.notFound);
  return found;
}

export async function listEndpoints(deps: AppDeps, ctx: RequestContext) {
  const companyId = companyOf(ctx);
  const rows = await inActorTransaction(deps.db, ctx, (trx) => repo.listEndpoints(trx, companyId));
  return rows.map(presentEndpoint);
}

/** A new endpoint; the answer is the only place its signing secret appears. */
export async function createEndpoint(
  deps: AppDeps,
  ctx: RequestContext,
  form: { url: string; eventTypes: string[]; description: string },
) {
  const companyId = companyOf(ctx);
  await checkEndpointUrl(deps, form.url);
  const { secret, prefix } = generateWebhookSecret();
  const row = await inActorTransaction(deps.db, ctx, async (trx) => {
    const id = await repo.insertEndpoint(trx, {
      companyId,
      url: form.url,
      description: form.description,
      eventTypes: form.eventTypes,
      secretEncrypted: encryptSecret(secret, deps.keys.encryption),
      secretPrefix: prefix,
      createdBy: ctx.actor.userId,
    });
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'CREATE',
      entity: 'WEBHOOK_ENDPOINT',
      entityId: id,
      companyId,
      details: { url: form.url, eventTypes: form.eventTypes },
    });
    return (await repo.findEndpoint(trx, companyId, id))!;
  });
  return { endpoint: presentEndpoint(row), secret };
}

export async function updateEndpoint(
  deps: AppDeps,
  ctx: RequestContext,
  id: number,
  change: Omit<TUpdateWebhookRequest, 'eventTypes'> & { eventTypes?: string[] },
) {
  const companyId = companyOf(ctx);
  if (change.url !== undefined) await checkEndpointUrl(deps, change.url);
  const row = await inActorTransaction(deps.db, ctx, async (trx) => {
    await endpointOrNotFound(trx, companyId, id);
    await repo.updateEndpoint(trx, companyId, id, change);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'UPDATE',
      entity: 'WEBHOOK_ENDPOINT',
      entityId: id,
      companyId,
      details: { ...change },
    });
    return (await repo.findEndpoint(trx, companyId, id))!;
  });
  return presentEndpoint(row);
}

export async function deleteEndpoint(deps: AppDeps, ctx: RequestContext, id: number) {
  const companyId = companyOf(ctx);
  await inActorTransaction(deps.db, ctx, async (trx) => {
    const found = await endpointOrNotFound(trx, companyId, id);
    await repo.deleteEndpoint(trx, companyId, id);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'DELETE',
      entity: 'WEBHOOK_ENDPOINT',
      entityId: id,
      companyId,
      details: { url: found.url },
    });
  });
  return { id };
}

export async function listDeliveries(deps: AppDeps, ctx: RequestContext, id: number) {
  const companyId = companyOf(ctx);
  const rows = await inActorTransaction(deps.db, ctx, async (trx) => {
    await endpointOrNotFound(trx, companyId, id);
    return repo.listDeliveries(trx, companyId, id, DELIVERIES_SHOWN);
  });
  return rows.map(presentDelivery);
}

/**
 * "Send test event": one signed `webhook.test` event, posted now, whatever the endpoint's events
 * or state; recorded among its deliveries. It is outside the event stream, so it moves no cursor
 * and no failure record.
 */
export async function sendTestEvent(deps: AppDeps, ctx: RequestContext, id: number) {
  const companyId = companyOf(ctx);
  const endpoint = await inActorTransaction(deps.db, ctx, async (trx) => {
    const found = await repo.findEndpointToDeliver(trx, companyId, id);
    if (!found) throw new AppError('not_found', WEBHOOK_MESSAGES.notFound);
    return found;
  });
  const body = JSON.stringify({
    events: [
      {
        id: `evt_test_${randomUUID()}`,
        type: WEBHOOK_TEST_EVENT_TYPE,
        created: new Date().toISOString(),
        data: { endpointId: id, message: 'A test event from SMS Console' },
      },
    ],
  });
  const secret = signingSecretOf(endpoint.secret_encrypted, deps.keys.encryption);
  const outcome = await postSigned(endpoint.url, body, secret, policyOf(deps));
  const delivery = await inActorTransaction(deps.db, ctx, async (trx) => {
    const deliveryId = await repo.insertDelivery(trx, {
      companyId,
      endpointId: id,
      firstEventId: null,
      lastEventId: null,
      eventCount: 1,
      eventTypes: [WEBHOOK_TEST_EVENT_TYPE],
      attempt: 1,
      isTest: true,
      ...outcome,
    });
    return repo.findDelivery(trx, companyId, deliveryId);
  });
  return presentDelivery(delivery);
}
