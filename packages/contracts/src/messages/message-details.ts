import type { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZDeliveryReportsPage, ZDeliveryReportsQuery } from './delivery-reports.ts';
import {
  type TDeliveryStatus,
  type TDeliverySummary,
  type TMessage,
  ZDeliverySummary,
  ZJobStatus,
  ZMessage,
} from './message.ts';

/**
 * The Delivery Summary's four buckets (spec section 2), each a set of recipient statuses: pending
 * is not yet handed over, sent is handed over and waiting for its final report, failed is every
 * final failure. Every recipient is in exactly one, so they add up to the total.
 */
export const DELIVERY_SUMMARY_BUCKETS = {
  pending: ['pending'],
  sent: ['submitted', 'sent'],
  delivered: ['delivered'],
  failed: ['failed', 'rejected', 'expired'],
} as const satisfies Record<Exclude<keyof TDeliverySummary, 'total'>, readonly TDeliveryStatus[]>;

/** Folds per-status recipient counts into the summary. */
export function summariseDeliveries(counts: Partial<Record<TDeliveryStatus, number>>): TDeliverySummary {
  const sum = (statuses: readonly TDeliveryStatus[]) =>
    statuses.reduce((total, status) => total + (counts[status] ?? 0), 0);
  const pending = sum(DELIVERY_SUMMARY_BUCKETS.pending);
  const sent = sum(DELIVERY_SUMMARY_BUCKETS.sent);
  const delivered = sum(DELIVERY_SUMMARY_BUCKETS.delivered);
  const failed = sum(DELIVERY_SUMMARY_BUCKETS.failed);
  return { total: pending + sent + delivered + failed, pending, sent, delivered, failed };
}

/** Spec section 2: "recipient count (from delivery reports, or recipient_count, or 1)". */
export function recipientCountOf(message: Pick<TMessage, 'recipient_count'>, summary?: TDeliverySummary) {
  if (summary && summary.total > 0) return summary.total;
  return message.recipient_count ?? 1;
}

/** The details' page of recipients is picked as on /delivery-reports. */
export const ZMessageDetailsQuery = ZDeliveryReportsQuery;

/** GET /messages/{id}/details: everything the Message Details modal shows, in one call. */
export const ZMessageDetailsData = ZDeliveryReportsPage.extend({
  message: ZMessage,
  /** null when the message never had a queue job ('Direct send'). */
  jobStatus: ZJobStatus.nullable(),
  summary: ZDeliverySummary,
});
export type TMessageDetailsData = z.infer<typeof ZMessageDetailsData>;
export const ZMessageDetailsResponse = successEnvelope(ZMessageDetailsData);
