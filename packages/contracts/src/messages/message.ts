import { z } from 'zod';

/**
 * Spec section 4: message statuses (processing is known to the details view). Beyond the spec,
 * cancelled: a scheduled message cancelled before its time, kept in the list.
 */
export const MESSAGE_STATUSES = [
  'pending',
  'queued',
  'scheduled',
  'processing',
  'sent',
  'delivered',
  'failed',
  'received',
  'cancelled',
] as const;
export type TMessageStatus = (typeof MESSAGE_STATUSES)[number];

export const MESSAGE_DIRECTIONS = ['inbound', 'outbound'] as const;
export type TMessageDirection = (typeof MESSAGE_DIRECTIONS)[number];

/**
 * One recipient's delivery, as the provider reports it: pending (not yet handed over), submitted
 * (accepted by the provider), sent (on the network), then a final delivered, failed, rejected
 * (refused by the provider) or expired.
 */
export const DELIVERY_STATUSES = [
  'pending',
  'submitted',
  'sent',
  'delivered',
  'failed',
  'rejected',
  'expired',
] as const;
export type TDeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const FINAL_DELIVERY_STATUSES = ['delivered', 'failed', 'rejected', 'expired'] as const;

/** Spec section 4: the queue view's BullMQ-style job states. */
export const JOB_STATES = ['waiting', 'active', 'completed', 'failed', 'delayed'] as const;
export type TJobState = (typeof JOB_STATES)[number];

/** Spec section 9. */
export const MESSAGE_MAX_LENGTH = 160;
export const MESSAGE_COUNTER_WARN_ABOVE = 120;
export const MESSAGE_COUNTER_DANGER_ABOVE = 140;
export const DEFAULT_PLAN_LABEL = 'Standard';

/** Counts in messages read with thousands separators, whatever the server's locale. */
const count = (n: number) => n.toLocaleString('en-US');

/** Spec sections 2, 5 and 8, word for word; the rest name rules the spec leaves to the server. */
export const MESSAGE_MESSAGES = {
  servicesRequired: 'Please select at least one service',
  contentRequiredOnSubmit: 'Please enter a message',
  contentRequired: 'Message content is required',
  contentTooLong: `Message must be ${MESSAGE_MAX_LENGTH} characters or less`,
  dateRequiredOnSubmit: 'Please select a date',
  dateRequired: 'Date is required for scheduled messages',
  timeRequiredOnSubmit: 'Please select a time',
  timeRequired: 'Time is required for scheduled messages',
  scheduleInPast: 'Scheduled time must be in the future',
  scheduledAtOnlyWhenScheduled: 'scheduledAt is only accepted when scheduleType is scheduled',
  serviceNotFound: 'One or more selected services were not found',
  serviceInactive: (name: string) => `The service ${name} is not active`,
  servicesOfOneCompany: 'All selected services must belong to the same company',
  noRecipients: 'The selected services have no active subscribers',
  monthlyLimitReached: (limit: number, used: number, requested: number) =>
    `This send needs ${count(requested)} message(s), but the monthly message limit is ${count(limit)} and ${count(used)} have been used this month`,
  /** Why a send the engine stopped at its start, or after holding it, ended failed (Message Details). */
  monthlyLimitReachedAtSend: (used: number, limit: number) =>
    `Monthly message limit reached (used ${count(used)} of ${count(limit)})`,
  companySuspended: 'Company was suspended',
  /** Why a send waits (Message Details: "Held: ..."), and why it failed if it waited past its validity. */
  providerUnavailable: (reason: string) => `The provider is unavailable (${reason})`,
  heldCompanyNotActive: 'The company is not active',
  /** A recipient still not handed over when its send's validity (SEND_VALIDITY_HOURS) ended. */
  notHandedOverInTime: (hours: number) => `Not handed over within the send's validity (${count(hours)} h)`,
  /** A hand-over without an answer: submitted, as far as anyone knows, until a report says more. */
  outcomeUnknown: (reason: string) =>
    `${reason}; the provider may have taken it: waiting for its delivery report`,
  /** A recipient whose hand-over got no answer, and no report came for it within the send's validity. */
  outcomeNeverKnown: (hours: number) =>
    `The provider did not answer the hand-over, and no delivery report came within the send's validity (${count(hours)} h)`,
  notEditable: 'Only pending or scheduled messages can be changed',
  notCancellable: 'Only scheduled messages can be cancelled',
  notSendable: 'Only pending or scheduled messages can be sent',
  contentManagerSend: 'Content managers can view messages but cannot send them',
  companyNotActive: 'Messages can only be sent while the company is active',
  idempotencyKeyInvalid: 'Idempotency-Key must be 1 to 255 visible characters',
  idempotencyKeyReused: 'This Idempotency-Key was already used for a different request',
  sent: 'Message sent successfully!',
  sendFailed: 'Failed to send message. Please try again.',
  unexpected: 'An unexpected error occurred',
  loading: 'Loading messages...',
  empty: 'No messages found.',
  loadingDetails: 'Loading message details...',
  servicesLoadFailed: (reason: string) => `Failed to load services: ${reason}`,
  detailsLoadFailed: (reason: string) => `Failed to load message details: ${reason}`,
} as const;

const ZIsoDate = z.string();

/** Spec section 3's Message, with the names the console reads. */
export const ZMessage = z.object({
  id: z.number().int(),
  content: z.string(),
  message: z.string(),
  msisdn: z.string().nullable(),
  direction: z.enum(MESSAGE_DIRECTIONS),
  status: z.enum(MESSAGE_STATUSES),
  createdAt: ZIsoDate,
  sent_at: ZIsoDate.nullable(),
  scheduledAt: ZIsoDate.nullable(),
  recipient_count: z.number().int().nullable(),
  queue_job_id: z.string().nullable(),
  service: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  serviceIds: z.array(z.number().int()),
  companyId: z.number().int(),
  company: z.object({ name: z.string() }),
  /** GSM-7 or UCS-2, and how many SMS parts each recipient receives. */
  encoding: z.enum(['GSM-7', 'UCS-2']).nullable(),
  parts: z.number().int().nullable(),
  /** A cancelled message: when, and the name of who cancelled it. */
  cancelled: z.object({ at: ZIsoDate, by: z.string().nullable() }).nullable().optional(),
  /**
   * A send being handed over (queued or processing): recipients handed to the provider so far, of
   * all its recipients known so far (the fan-out may still be adding some).
   */
  handover: z.object({ handedOver: z.number().int(), recipients: z.number().int() }).nullable().optional(),
});
export type TMessage = z.infer<typeof ZMessage>;

/** Spec section 3's delivery report: one per recipient. */
export const ZDeliveryReport = z.object({
  id: z.number().int(),
  recipient_phone: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  gateway_message_id: z.string().nullable(),
  delivered_at: ZIsoDate.nullable(),
  error_message: z.string().nullable(),
  attempts: z.number().int(),
  updatedAt: ZIsoDate,
});
export type TDeliveryReport = z.infer<typeof ZDeliveryReport>;

/** Spec section 3's jobStatus. */
export const ZJobStatus = z.object({
  id: z.string().nullable(),
  status: z.enum(JOB_STATES),
  attempts: z.number().int(),
  progress: z.number().min(0).max(100),
  processedOn: ZIsoDate.nullable(),
  finishedOn: ZIsoDate.nullable(),
  failedReason: z.string().nullable(),
});
export type TJobStatus = z.infer<typeof ZJobStatus>;

/** Spec section 2's Delivery Summary. */
export const ZDeliverySummary = z.object({
  total: z.number().int(),
  pending: z.number().int(),
  sent: z.number().int(),
  delivered: z.number().int(),
  failed: z.number().int(),
});
export type TDeliverySummary = z.infer<typeof ZDeliverySummary>;
