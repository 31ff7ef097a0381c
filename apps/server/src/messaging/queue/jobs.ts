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
  /** pg-boss queue options; retries always back off exponentially, up to retryDelayMax. */
  queue: {
    retryLimit: number;
    retryDelay: number;
    retryBackoff: true;
    retryDelayMax: number;
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

const defineJob = <P>(
  name: string,
  payload: z.ZodType<P>,
  queue: Omit<JobDefinition<P>['queue'], 'retryBackoff'>,
): JobDefinition<P> => ({ name, payload, queue: { ...queue, retryBackoff: true } });

const id = z.number().int().positive();
const sendRef = z.object({ companyId: id, messageId: id });
const companyRef = z.object({ companyId: id });
const recipientId = z.string().regex(/^\d+$/);
/** A worker killed mid-job is noticed by its missing heartbeat within seconds, not after the expiry. */
const HEARTBEAT = 10;

/** A send starts at its time (now, or a scheduled send's startAfter): send-jobs.ts startSend. */
export const SEND_START_JOB = defineJob('send-start', sendRef, {
  retryLimit: 20,
  retryDelay: 5,
  retryDelayMax: 60,
  expireInSeconds: 60,
  heartbeatSeconds: HEARTBEAT,
  deleteAfterSeconds: 7 * 24 * 3600,
  notify: true,
});

/** The send's next fan-out step after subscriber `after` (fan-out.ts). */
export const SEND_FANOUT_JOB = defineJob('send-fanout', sendRef.extend({ after: recipientId }), {
  retryLimit: 50,
  retryDelay: 1,
  retryDelayMax: 60,
  expireInSeconds: 300,
  heartbeatSeconds: HEARTBEAT,
  deleteAfterSeconds: 24 * 3600,
  notify: true,
});

/** One hand-over batch: the send's recipients with ids in [firstId, lastId] (hand-over.ts). */
export const SEND_BATCH_JOB = defineJob(
  'send-batch',
  sendRef.extend({ firstId: recipientId, lastId: recipientId }),
  {
    // Retries end with the send's validity (SEND_VALIDITY_HOURS), not with a count.
    retryLimit: 100_000,
    retryDelay: 1,
    retryDelayMax: 60,
    // A batch's hand-over takes at most a few provider time-outs.
    expireInSeconds: 15 * 60,
    heartbeatSeconds: HEARTBEAT,
    deleteAfterSeconds: 24 * 3600,
    notify: true,
  },
);

/**
 * Applies one company's delivery-report inbox (delivery-report-applier.ts). Stately by the company:
 * reports committed while one runs are left for the one waiting.
 */
export const DLR_APPLY_JOB = defineJob('dlr-apply', companyRef, {
  retryLimit: 1000,
  retryDelay: 1,
  retryDelayMax: 10,
  expireInSeconds: 120,
  heartbeatSeconds: HEARTBEAT,
  // Many small jobs (one per company every 50 ms at most per process): kept briefly.
  deleteAfterSeconds: 600,
  notify: true,
  policy: 'stately',
});

/** Applies the company's reports kept until their provider id was committed (maintenance.ts). */
export const DLR_UNMATCHED_JOB = defineJob('dlr-unmatched', companyRef, {
  retryLimit: 100,
  retryDelay: 2,
  retryDelayMax: 60,
  expireInSeconds: 300,
  deleteAfterSeconds: 600,
  policy: 'stately',
});

/**
 * One accepted batch's simulated reports, compact (a batch is thousands): the recipient keys, their
 * numbers, and the indexes of those whose report says Failed (simulator.ts reportsOf).
 */
const simulatedReports = companyRef.extend({
  keys: z.array(z.string().min(1)).min(1),
  phones: z.array(z.string().min(1)),
  failed: z.array(z.number().int().nonnegative()),
});

export const SIMULATOR_REPORT_JOB = defineJob('simulator-report', simulatedReports, {
  retryLimit: 20,
  retryDelay: 1,
  retryDelayMax: 60,
  expireInSeconds: 300,
  deleteAfterSeconds: 3600,
  notify: true,
});

/**
 * Posts one webhook endpoint's waiting events in order (modules/webhooks/webhook-delivery.ts).
 * Stately per endpoint, so one runs at a time; retried with backoff capped at an hour while the
 * endpoint has failed for less than 24 hours (then the handler disables it).
 */
export const WEBHOOK_DELIVER_JOB = defineJob('webhook-deliver', companyRef.extend({ endpointId: id }), {
  retryLimit: 10_000,
  retryDelay: 10,
  retryDelayMax: 3600,
  // Twenty batches of ten-second time-outs at most.
  expireInSeconds: 300,
  deleteAfterSeconds: 600,
  notify: true,
  policy: 'stately',
});

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
