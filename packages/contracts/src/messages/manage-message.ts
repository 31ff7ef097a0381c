import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { sendBulkMessageSchema, ZSendBulkMessageData, ZServiceIds } from './send-bulk-message.ts';

/**
 * POST /messages (a draft: status pending, nothing queued) and PUT /messages/{id} (a draft's or a
 * scheduled message's services, text and timing; a scheduled one is moved, or sent now with
 * scheduleType now). Same fields and rules as the send form.
 */
export const messageDraftSchema = sendBulkMessageSchema;
export const ZCreateMessageRequest = messageDraftSchema();
export const ZUpdateMessageRequest = messageDraftSchema();

/** Every answer that carries one message, with the recipients it has or will have. */
export const ZMessageResponse = successEnvelope(ZSendBulkMessageData);

/**
 * DELETE /messages/{id}: a draft is deleted; a scheduled message is cancelled (its queue job removed,
 * its reserved messages given back) and kept with status cancelled, who cancelled it and when.
 */
export const ZDeleteMessageResponse = successEnvelope(
  z.object({ id: z.number().int(), deleted: z.boolean(), cancelled: z.boolean() }),
);

/** Above this many subscriptions in the chosen services the recipient count is an estimate. */
export const RECIPIENT_COUNT_EXACT_UP_TO = 100_000;
export const RECIPIENT_PREVIEW_SAMPLE = 20;

/** GET /messages/subscribers?serviceIds=1,2 (or serviceIds=1&serviceIds=2). */
export const ZRecipientPreviewQuery = z.object({
  serviceIds: z
    .union([z.string(), z.array(z.string())], { error: 'serviceIds is required' })
    .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((part) => part.split(',')))
    .transform((parts) =>
      parts
        .map((part) => part.trim())
        .filter(Boolean)
        .map(Number),
    )
    .pipe(ZServiceIds),
});
export type TRecipientPreviewQuery = { serviceIds: number[] };

export const ZRecipientPreviewData = z.object({
  /** Distinct active phone numbers across the services (one per subscriber). */
  recipientCount: z.number().int(),
  /** false when recipientCount is an upper bound (the services hold more than RECIPIENT_COUNT_EXACT_UP_TO). */
  exact: z.boolean(),
  /** The first few recipients, by subscriber. */
  subscribers: z.array(z.object({ id: z.number().int(), msisdn: z.string() })),
});
export type TRecipientPreviewData = z.infer<typeof ZRecipientPreviewData>;
export const ZRecipientPreviewResponse = successEnvelope(ZRecipientPreviewData);
