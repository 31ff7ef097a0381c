import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * A job: its queue name, its payload schema and its queue options, beside the handler that runs
 * it (documenso's typed jobs). Every job is enqueued through enqueueJob with a key from which its
 * id is derived, so a retried request or a second instance never creates the same work twice.
 */
export type JobDefinition<TPayload> = {
  name: string;
  payload: z.ZodType<TPayload>;
  /** pg-boss queue options: retries, expiry, heartbeat. */
  queue: {
    retryLimit: number;
    retryDelay: number;
    retryBackoff: boolean;
    expireInSeconds: number;
    heartbeatSeconds?: number;
    deleteAfterSeconds: number;
    /** A new job is NOTIFY'd, so that workers in other processes fetch it at once (job-queue.ts). */
    notify?: boolean;
  };
};

/**
 * Starts a send at its time (now, or a scheduled send's startAfter), then stays active until
 * every recipient is handed over. Its heartbeat lets another worker take it over when the worker
 * holding it dies; the hand-over itself runs in every worker's dispatch lanes.
 */
export const SEND_MESSAGE_JOB: JobDefinition<{ companyId: number; messageId: number }> = {
  name: 'message-send',
  payload: z.object({ companyId: z.number().int().positive(), messageId: z.number().int().positive() }),
  queue: {
    retryLimit: 20,
    retryDelay: 5,
    retryBackoff: true,
    // A rate-limited send of a million recipients can take hours; liveness is the heartbeat's job.
    expireInSeconds: 24 * 3600,
    heartbeatSeconds: 10,
    deleteAfterSeconds: 7 * 24 * 3600,
    // An API process that runs no worker queues the send: without it, the workers took it at their
    // next poll, up to 0.5 s later. A send is one small transaction, so the NOTIFY's hold on
    // commits (one notifying transaction commits at a time) costs nothing that matters.
    notify: true,
  },
};

export const JOB_DEFINITIONS = [SEND_MESSAGE_JOB] as const;

const JOB_ID_NAMESPACE = 'sms-console.jobs';

/** A UUID (version 5 layout) derived from the job's name and key: the same work gets the same id. */
export function jobIdOf(job: { name: string }, key: string) {
  const bytes = createHash('sha1').update(`${JOB_ID_NAMESPACE}:${job.name}:${key}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
