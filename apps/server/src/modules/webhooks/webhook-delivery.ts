import { randomUUID } from 'node:crypto';
import {
  WEBHOOK_BATCH_MAX,
  WEBHOOK_DELIVERIES_KEPT_DAYS,
  WEBHOOK_EVENTS_KEPT_DAYS,
  WEBHOOK_MESSAGES,
  WEBHOOK_RETRY_HOURS,
} from '@sms/contracts/webhooks/webhook';
import type { MessagingConfig } from '../../config.ts';
import type { Database, Executor } from '../../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../../db/tenant-scope.ts';
import { createPublicAddressPolicy, type PublicAddressPolicy } from '../../lib/public-address.ts';
import type { JobQueue } from '../../messaging/queue/job-queue.ts';
import { WEBHOOK_DELIVER_JOB } from '../../messaging/queue/jobs.ts';
import { postSigned, signingSecretOf } from './webhook-post.ts';
import * as repo from './webhooks.repository.ts';

/** How often a worker looks for endpoints with events waiting (one indexed query). */
const LOOK_FOR_EVENTS_MS = 1000;
/** Batches one job posts at most; the next look enqueues a new job for the rest. */
const BATCHES_PER_JOB = 20;
/**
 * A failing endpoint's job waits for its retry (at most the queue's retryDelayMax, an hour); one
 * whose last attempt is older than this has lost its job, and the next look gives it a new one.
 */
const JOB_LOST_AFTER_SECONDS = 2 * 3600;
/** How often a worker deletes what the outbox and the deliveries list no longer need. */
const PRUNE_EVERY_MS = 10 * 60_000;
/** Rows one delete statement takes: each is a short transaction, however big the backlog. */
const PRUNE_BATCH = 10_000;

/** A delivery that failed: the queue runs the job again after its backoff. */
export class WebhookDeliveryFailed extends Error {}

export type WebhookDeliveryDeps = { db: Database; encryptionKey: Buffer; policy: PublicAddressPolicy };

const isoOf = (date: Date) => date.toISOString();

/**
 * Posts the endpoint's waiting events, in event order, up to WEBHOOK_BATCH_MAX a request, one
 * request at a time, and moves its cursor past each batch its server accepted (2xx). A failure is
 * recorded and thrown, so the queue retries with exponential backoff and jitter; once the first
 * failure in a row is WEBHOOK_RETRY_HOURS old, the endpoint is disabled instead (the dashboard
 * tells its company's admins). Returns the batches delivered.
 */
export async function deliverWebhookEvents(
  deps: WebhookDeliveryDeps,
  target: { companyId: number; endpointId: number },
  maxBatches = BATCHES_PER_JOB,
) {
  const { db } = deps;
  const { companyId, endpointId } = target;
  let delivered = 0;
  while (delivered < maxBatches) {
    const batch = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
      const endpoint = await repo.findEndpointToDeliver(trx, companyId, endpointId);
      if (!endpoint?.enabled) return null;
      // Some transaction that wrote the company's events is still open: the next look comes back.
      if (!(await repo.tryLockCompanyEvents(trx, companyId))) return null;
      const next = await repo.nextEvents(trx, endpoint, WEBHOOK_BATCH_MAX);
      if (next.events.length === 0) {
        // Only events the endpoint does not want: moved past without a request.
        if (next.advanceTo !== endpoint.after_event_id)
          await repo.advanceCursor(trx, companyId, endpointId, endpoint.after_event_id, next.advanceTo);
        return null;
      }
      const attempt = 1 + (await repo.attemptsBefore(trx, companyId, endpointId, next.events[0]!.id));
      return { endpoint, ...next, attempt };
    });
    if (!batch) return delivered;

    const { endpoint, events } = batch;
    const body = JSON.stringify({
      events: events.map((event) => ({
        id: `evt_${event.id}`,
        type: event.type,
        created: isoOf(event.created_at),
        data: event.payload,
      })),
    });
    const secret = signingSecretOf(endpoint.secret_encrypted, deps.encryptionKey);
    const outcome = await postSigned(endpoint.url, body, secret, deps.policy);
    const disabled = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
      await repo.insertDelivery(trx, {
        companyId,
        endpointId,
        firstEventId: events[0]!.id,
        lastEventId: events.at(-1)!.id,
        eventCount: events.length,
        eventTypes: [...new Set(events.map((event) => event.type))],
        attempt: batch.attempt,
        isTest: false,
        ...outcome,
      });
      if (outcome.succeeded) {
        await repo.advanceCursor(trx, companyId, endpointId, endpoint.after_event_id, batch.advanceTo);
        return false;
      }
      await repo.recordFailure(trx, companyId, endpointId);
      const failingFor = endpoint.failing_for_seconds ?? 0;
      if (failingFor < WEBHOOK_RETRY_HOURS * 3600) return false;
      await repo.disableEndpoint(trx, companyId, endpointId, WEBHOOK_MESSAGES.disabledAfterFailures);
      return true;
    });
    if (disabled) return delivered;
    if (!outcome.succeeded)
      throw new WebhookDeliveryFailed(
        `webhook endpoint ${endpointId} failed: ${outcome.error ?? 'no answer'}`,
      );
    delivered += 1;
  }
  return delivered;
}

/**
 * Gives each endpoint with events waiting a webhook-deliver job. The job is stately per endpoint
 * (one waits, one runs): a look while one waits adds nothing, so looking every second costs one
 * query, however many events arrive.
 */
export async function enqueueWebhookDeliveries(db: Database, queue: JobQueue) {
  await inTenantTransaction(db, platformScope, async (trx) => {
    const due = await repo.endpointsWithPendingEvents(trx, JOB_LOST_AFTER_SECONDS);
    await queue.enqueueMany(
      trx,
      WEBHOOK_DELIVER_JOB,
      due.map((endpoint) => ({
        payload: { companyId: endpoint.company_id, endpointId: endpoint.id },
        // A fresh id each look; the stately policy is what keeps one waiting job per endpoint.
        key: `${endpoint.id}:${randomUUID()}`,
        singletonKey: `webhook-endpoint:${endpoint.id}`,
        group: String(endpoint.company_id),
      })),
    );
  });
}

/**
 * Deletes, in batches, the events every endpoint of their company has taken, events older than
 * WEBHOOK_EVENTS_KEPT_DAYS (a disabled endpoint's backlog), and deliveries older than
 * WEBHOOK_DELIVERIES_KEPT_DAYS. Returns how many rows went.
 */
export async function pruneWebhookOutbox(db: Database, batch = PRUNE_BATCH) {
  const steps = [
    (trx: Executor) => repo.deleteTakenEvents(trx, batch),
    (trx: Executor) => repo.deleteOlderThan(trx, 'webhook_events', WEBHOOK_EVENTS_KEPT_DAYS, batch),
    (trx: Executor) => repo.deleteOlderThan(trx, 'webhook_deliveries', WEBHOOK_DELIVERIES_KEPT_DAYS, batch),
  ];
  let deleted = 0;
  for (const step of steps) {
    for (;;) {
      const count = await inTenantTransaction(db, platformScope, step);
      deleted += count;
      if (count < batch) break;
    }
  }
  return deleted;
}

/**
 * The worker's part (registered by messaging/engine.ts): the deliver job's handler, the look for
 * waiting events every LOOK_FOR_EVENTS_MS and the pruning every PRUNE_EVERY_MS, on the engine's timers.
 */
export async function startWebhookDelivery(options: {
  db: Database;
  queue: JobQueue;
  config: MessagingConfig;
  encryptionKey: Buffer;
  every: (ms: number, task: () => Promise<unknown>) => void;
  log: (level: 'info' | 'warn' | 'error', message: string, error?: unknown) => void;
}) {
  const { db, queue } = options;
  const deps: WebhookDeliveryDeps = {
    db,
    encryptionKey: options.encryptionKey,
    policy: createPublicAddressPolicy(options.config.providerAllowedPrivateHosts),
  };
  await queue.work(WEBHOOK_DELIVER_JOB, { concurrency: 4, perGroup: 2 }, async (target) => {
    await deliverWebhookEvents(deps, target);
  });
  options.every(LOOK_FOR_EVENTS_MS, () => enqueueWebhookDeliveries(db, queue));
  options.every(PRUNE_EVERY_MS, () => pruneWebhookOutbox(db));
}
