/**
 * The smallest interface every SMS provider sits behind (listmonk's Messenger): hand over a
 * batch, learn each recipient's fate, and report deliveries as they come back.
 */

/** One recipient's copy of a message. */
export type OutboundSms = {
  /**
   * Our delivery-report id, unique per recipient and stable across retries: the idempotency key
   * of the hand-off, so a batch re-offered after a crash is not accepted twice where the
   * provider can tell.
   */
  recipientKey: string;
  to: string; // E.164
  from: string; // the service's short code or sender id
  text: string;
  /** GSM-7 (data coding 0) or UCS-2 (8), and how many parts each recipient gets. */
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
      /**
       * Every id its reports may name, when that is more than providerMessageId: each part's of a
       * long message sent as parts (SMPP), whose reports all count (delivered once every part is).
       */
      reportIds?: ReportId[];
      /** How many parts' reports decide the recipient; absent: one. */
      reportParts?: number;
    }
  /**
   * No answer (a time-out): the provider may have taken it. It is not offered again; a report by
   * one of `reportIds` or by its phone number settles it, else it fails past the send's validity.
   */
  | { recipientKey: string; outcome: 'unknown'; reason: string; reportIds?: ReportId[] }
  /** Refused for good (invalid number, blacklisted, ...): the recipient fails with this reason. */
  | { recipientKey: string; outcome: 'rejected'; reason: string; providerStatus?: string }
  /** Not handed over: offer it again later, after the batch's backoff. */
  | { recipientKey: string; outcome: 'retry'; reason: string; scope?: RetryScope };

/**
 * Whose trouble a retry is. `recipient` (the default): the provider answered for this recipient,
 * and it counts as one of its SEND_MAX_ATTEMPTS. `request`: flow control, a whole request's 5xx, or
 * a request that surely did not reach the provider: not the recipient's doing, not counted (a
 * time-out is no retry: the provider may have taken it, see 'unknown'). `account`: the provider
 * refuses or cannot be reached for the whole account (not bound, bind refused, HTTP 401/403,
 * unreachable, InsufficientBalance, RiskHold): not counted, and the company's sends are held
 * until the provider answers again (hand-over.ts).
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
  /**
   * The recipient's number as the report gives it (E.164), where it gives one: a report no id
   * explains settles the company's recipient of that number whose hand-over outcome is unknown.
   */
  phone?: string | null;
};

/** A message from a handset that came over the provider's own connection (an SMPP deliver_sm). */
export type InboundSms = {
  /** The sender's number as the SMSC gives it ('+' and digits when it is one). */
  from: string;
  /** The short code or number it was sent to. */
  to: string;
  text: string;
  /** When the SMSC says it received it, where it says; null: on arrival. */
  receivedAt: Date | null;
};

export type SmsProvider = {
  readonly kind: 'simulator' | 'africastalking' | 'smpp';
  /** The largest batch one sendBatch call takes. */
  readonly maxBatchSize: number;
  /**
   * Hands a batch over and resolves with one outcome per recipient (any order). It never
   * throws for a provider fault: transport errors become 'retry' outcomes. It must finish
   * within its own time-out.
   */
  sendBatch(messages: OutboundSms[]): Promise<SubmitOutcome[]>;
  /**
   * Providers that report over their own connection (SMPP deliver_sm) call this; HTTP providers
   * post to our DLR callback URL instead and never call it. The listener resolves once the report
   * is stored: only then does the provider acknowledge it (a rejection asks for it again).
   */
  onDeliveryReport?(listener: (update: DeliveryUpdate) => Promise<void>): void;
  /**
   * Providers that deliver handset messages over their own connection (SMPP) call this; the
   * listener resolves once the message is stored, and only then is it acknowledged.
   */
  onInboundMessage?(listener: (message: InboundSms) => Promise<void>): void;
  close(): Promise<void>;
};
