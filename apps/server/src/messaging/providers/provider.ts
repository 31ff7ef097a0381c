/** The smallest interface every SMS provider sits behind (listmonk's Messenger). */

/** One recipient's copy of a message. */
export type OutboundSms = {
  /** Our delivery-report id, stable across retries: the hand-off's idempotency key where the provider has one. */
  recipientKey: string;
  /** E.164. */
  to: string;
  /** The service's short code or sender id. */
  from: string;
  text: string;
  encoding: 'GSM-7' | 'UCS-2';
  parts: number;
};

/**
 * An id a delivery report may name: a part's (1..n), or that part's id in the other number base for
 * an SMSC whose receipts may use it (`alternative`: matched only when no id is exactly the report's).
 */
export type ReportId = { id: string; part: number; alternative?: boolean };

/** The provider's answer for one recipient of a batch. */
export type SubmitOutcome =
  | {
      recipientKey: string;
      outcome: 'accepted';
      providerMessageId: string;
      providerStatus?: string;
      /** Every part's ids when a long message went as parts (SMPP): delivered once every part is. */
      reportIds?: ReportId[];
      /** How many parts' reports decide the recipient; absent: one. */
      reportParts?: number;
    }
  /**
   * No answer (a time-out): the provider may have taken it, so it is never offered again; a report
   * (by one of `reportIds` or by phone number) settles it, else it fails past the send's validity.
   */
  | { recipientKey: string; outcome: 'unknown'; reason: string; reportIds?: ReportId[] }
  /** Refused for good (invalid number, blacklisted, ...). */
  | { recipientKey: string; outcome: 'rejected'; reason: string; providerStatus?: string }
  /** Not handed over: offered again after the batch's backoff. */
  | { recipientKey: string; outcome: 'retry'; reason: string; scope?: RetryScope };

/**
 * Whose trouble a retry is. `recipient` (the default): counts as one of its SEND_MAX_ATTEMPTS.
 * `request`: flow control, a whole request's 5xx, a request that surely did not arrive: not counted.
 * `account`: the provider refuses or cannot be reached for the whole account (bind refused, HTTP
 * 401, no balance): not counted, and the company's sends are held until it answers (hand-over.ts).
 */
export type RetryScope = 'recipient' | 'request' | 'account';

/** One recipient to offer again later, for `reason`. */
export const retryOf = (sms: OutboundSms, reason: string, scope?: RetryScope): SubmitOutcome => ({
  recipientKey: sms.recipientKey,
  outcome: 'retry',
  reason,
  ...(scope && { scope }),
});

/** Every recipient of a batch or request offered again later, for one reason. */
export const retryEach = (messages: readonly OutboundSms[], reason: string, scope?: RetryScope) =>
  messages.map((sms) => retryOf(sms, reason, scope));

/** A delivery report, as any provider's receipt maps onto our statuses. */
export type DeliveryUpdate = {
  providerMessageId: string;
  status: 'submitted' | 'sent' | 'delivered' | 'failed' | 'rejected' | 'expired';
  /** The provider's own word for it (Success, DELIVRD, ...), kept for support. */
  providerStatus: string;
  error: string | null;
  at: Date;
  /** The recipient's number (E.164) where the report gives one: it settles a recipient whose outcome is unknown. */
  phone?: string | null;
};

/** A message from a handset that came over the provider's own connection (an SMPP deliver_sm). */
export type InboundSms = {
  /** '+' and digits when the SMSC gives a number. */
  from: string;
  to: string;
  text: string;
  /** When the SMSC says it received it; null: on arrival. */
  receivedAt: Date | null;
};

export type SmsProvider = {
  readonly kind: 'simulator' | 'africastalking' | 'smpp';
  readonly maxBatchSize: number;
  /**
   * Resolves with one outcome per recipient, in any order, within the provider's own time-out. It
   * never throws for a provider fault: those become 'retry' outcomes.
   */
  sendBatch(messages: OutboundSms[]): Promise<SubmitOutcome[]>;
  /**
   * Providers that report over their own connection (SMPP) call this; HTTP ones post to our DLR
   * callback URL. The provider acknowledges a report only once the listener resolved (stored).
   */
  onDeliveryReport?(listener: (update: DeliveryUpdate) => Promise<void>): void;
  /** Handset messages over the provider's own connection, acknowledged once the listener resolved. */
  onInboundMessage?(listener: (message: InboundSms) => Promise<void>): void;
  close(): Promise<void>;
};
