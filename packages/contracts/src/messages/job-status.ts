import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { type TJobState, type TMessageStatus, ZJobStatus } from './message.ts';

/** pg-boss's own job states (JobWithMetadata['state']), the queue behind every send. */
export const QUEUE_JOB_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] as const;
export type TQueueJobState = (typeof QUEUE_JOB_STATES)[number];

/**
 * The one mapping from the queue's states onto the console's BullMQ-style names (spec section 4):
 * a job that may not start yet (a scheduled send, or a retry waiting out its backoff) is delayed,
 * one that may start is waiting; a cancelled job ended without completing, so it reads as failed.
 */
export function toJobState(
  state: TQueueJobState,
  startAfter: Date | null,
  now: Date = new Date(),
): TJobState {
  switch (state) {
    case 'created':
    case 'retry':
      return startAfter !== null && startAfter.getTime() > now.getTime() ? 'delayed' : 'waiting';
    case 'active':
      return 'active';
    case 'completed':
      return 'completed';
    case 'cancelled':
    case 'failed':
      return 'failed';
  }
}

/**
 * A job state read from the message alone, for a message whose queue job is no longer kept
 * (the queue deletes finished jobs after a while) or not known.
 */
export function jobStateOfMessage(status: TMessageStatus): TJobState {
  switch (status) {
    case 'scheduled':
      return 'delayed';
    case 'pending':
    case 'queued':
      return 'waiting';
    case 'processing':
      return 'active';
    case 'failed':
    case 'cancelled':
      return 'failed';
    case 'sent':
    case 'delivered':
    case 'received':
      return 'completed';
  }
}

/** GET /messages/{id}/job-status; jobStatus is null for a message that never had a queue job. */
export const ZJobStatusData = z.object({ jobStatus: ZJobStatus.nullable() });
export type TJobStatusData = z.infer<typeof ZJobStatusData>;
export const ZJobStatusResponse = successEnvelope(ZJobStatusData);
