import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * A job: its queue name, its payload schema and its queue options, beside the handler that runs
 * it (documenso's typed jobs). Every job is enqueued with a key from which its id is derived, so
 * a retried request, a retried step or a second worker never creates the same work twice.
 */
export type JobDefinition<TPayload> = {
  name: string;
  payload: z.ZodType<TPayload>;
  /** pg-boss queue options: retries, expiry, heartbeat. */
  queue: {
    retryLimit: number;
    retryDelay: number;
    retryBackoff: boolean;
    retryDelayMax?: number;
    expireInSeconds: number;
    heartbeatSeconds?: number;
    deleteAfterSeconds: number;
    /** A new job is NOTIFY'd, so that workers in other processes fetch it at once. */
    notify?: boolean;
    /**
     * pg-boss's 'stately' policy: of the jobs sharing a singleton key (EnqueueOptions.singletonKey),
     * at most one waits and one runs; enqueuing while one waits does nothing (it will see the work).
     */
    policy?: 'stately';
  };
};

const sendRef = z.object({ companyId: z.number().int().positive(), messageId: z.number().int().positive() });

/**
 * A send starts at its time (now, or a scheduled send's startAfter): its message becomes
 * processing and its first fan-out step is enqueued (send-start.ts).
 */
export const SEND_START_JOB: JobDefinition<z.infer<typeof sendRef>> = {
  name: 'send-start',
  payload: sendRef,
  queue: {
    retryLimit: 20,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 60,
    expireInSeconds: 60,
    // A worker killed mid-start is noticed by its missing heartbeat, not after the expiry.
    heartbeatSeconds: 10,
    deleteAfterSeconds: 7 * 24 * 3600,
    notify: true,
  },
};

/**
 * One fan-out step: the next FANOUT_BATCH_SIZE subscribers after `after` become recipients; the
 * step enqueues the next one, and the last enqueues the send's batches (fan-out.ts).
 */
export const SEND_FANOUT_JOB: JobDefinition<z.infer<typeof sendRef> & { after: string }> = {
  name: 'send-fanout',
  payload: sendRef.extend({ after: z.string().regex(/^\d+$/) }),
  queue: {
    retryLimit: 50,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 60,
    expireInSeconds: 300,
    // A worker killed mid-step leaves the step active: its missing heartbeat has it run again
    // within seconds, where the expiry alone held the whole send for five minutes.
    heartbeatSeconds: 10,
    deleteAfterSeconds: 24 * 3600,
    notify: true,
  },
};

/**
 * One hand-over batch: the send's pending recipients with ids in [firstId, lastId] are handed to
 * the company's provider (hand-over.ts). Retried by the queue, with capped backoff, while any of
 * them is left to hand over (a retry outcome, a held company, an outage) within the send's validity.
 */
export const SEND_BATCH_JOB: JobDefinition<z.infer<typeof sendRef> & { firstId: string; lastId: string }> = {
  name: 'send-batch',
  payload: sendRef.extend({ firstId: z.string().regex(/^\d+$/), lastId: z.string().regex(/^\d+$/) }),
  queue: {
    // Retries end with the send's validity (SEND_VALIDITY_HOURS), not with a count.
    retryLimit: 100_000,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 60,
    // A batch's hand-over takes at most a few provider time-outs; a worker that died is noticed
    // by its missing heartbeat long before.
    expireInSeconds: 15 * 60,
    heartbeatSeconds: 10,
    deleteAfterSeconds: 24 * 3600,
    notify: true,
  },
};

const companyRef = z.object({ companyId: z.number().int().positive() });

/**
 * Applies one company's delivery-report inbox in set-based batches until it is empty
 * (delivery-report-applier.ts). Enqueued after the intake's commit with the company as singleton
 * key, so a company has at most one waiting and one running: reports committed while one runs are
 * left for the waiting one. A run that finds the company held by another applier fails, and the
 * queue runs it again shortly.
 */
export const DLR_APPLY_JOB: JobDefinition<z.infer<typeof companyRef>> = {
  name: 'dlr-apply',
  payload: companyRef,
  queue: {
    retryLimit: 1000,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 10,
    expireInSeconds: 120,
    heartbeatSeconds: 10,
    // Many small jobs (one per company every 50 ms at most per process): kept briefly.
    deleteAfterSeconds: 600,
    notify: true,
    policy: 'stately',
  },
};

/**
 * Applies the company's delivery reports kept because no recipient carried their provider id yet
 * (the hand-over's commit was still on its way): those whose id is now known, in one statement;
 * while any are left it enqueues itself again a little later (maintenance.ts).
 */
export const DLR_UNMATCHED_JOB: JobDefinition<z.infer<typeof companyRef>> = {
  name: 'dlr-unmatched',
  payload: companyRef,
  queue: {
    retryLimit: 100,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 60,
    expireInSeconds: 300,
    // One every 2 s per company while it keeps reports: kept briefly.
    deleteAfterSeconds: 600,
    policy: 'stately',
  },
};

/**
 * One accepted batch's simulated reports, compact (a batch is thousands): the recipient keys, their
 * numbers, and the indexes of those whose report says Failed (simulator.ts reportsOf).
 */
const simulatedReports = z.object({
  keys: z.array(z.string().min(1)).min(1),
  phones: z.array(z.string().min(1)),
  failed: z.array(z.number().int().nonnegative()),
});

export const SIMULATOR_REPORT_JOB: JobDefinition<
  z.infer<typeof companyRef> & z.infer<typeof simulatedReports>
> = {
  name: 'simulator-report',
  payload: companyRef.extend(simulatedReports.shape),
  queue: {
    retryLimit: 20,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 60,
    expireInSeconds: 300,
    deleteAfterSeconds: 3600,
    notify: true,
  },
};

const webhookEndpointRef = z.object({
  companyId: z.number().int().positive(),
  endpointId: z.number().int().positive(),
});

/**
 * Posts one webhook endpoint's waiting events in order, in batches (modules/webhooks/webhook-delivery.ts).
 * Stately per endpoint (singleton key), so one runs at a time and in order; a failed post throws
 * and the queue retries with exponential backoff and jitter, capped at an hour, while the endpoint
 * has failed for less than 24 hours (then the handler disables it).
 */
export const WEBHOOK_DELIVER_JOB: JobDefinition<z.infer<typeof webhookEndpointRef>> = {
  name: 'webhook-deliver',
  payload: webhookEndpointRef,
  queue: {
    retryLimit: 10_000,
    retryDelay: 10,
    retryBackoff: true,
    retryDelayMax: 3600,
    // Twenty batches of ten-second time-outs at most.
    expireInSeconds: 300,
    // One a second per endpoint with events waiting: kept briefly.
    deleteAfterSeconds: 600,
    notify: true,
    policy: 'stately',
  },
};

export const JOB_DEFINITIONS = [
  SEND_START_JOB,
  SEND_FANOUT_JOB,
  SEND_BATCH_JOB,
  DLR_APPLY_JOB,
  DLR_UNMATCHED_JOB,
  SIMULATOR_REPORT_JOB,
  WEBHOOK_DELIVER_JOB,
] as const;

const JOB_ID_NAMESPACE = 'sms-console.jobs';

/** A UUID (version 5 layout) derived from the job's name and key: the same work gets the same id. */
export function jobIdOf(job: { name: string }, key: string) {
  const bytes = createHash('sha1').update(`${JOB_ID_NAMESPACE}:${job.name}:${key}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
