import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { ZMessage } from './message.ts';
import { ZMessageContent } from './send-bulk-message.ts';

/** One transactional send reaches at most this many numbers (issue 38). */
export const TRANSACTIONAL_MAX_RECIPIENTS = 1000;

export const TRANSACTIONAL_MESSAGES = {
  toRequired: 'to must be a phone number or a list of 1 to 1,000 phone numbers',
  tooManyNumbers: `At most ${TRANSACTIONAL_MAX_RECIPIENTS.toLocaleString('en-US')} phone numbers per message`,
  serviceRequired: 'serviceId must be the id of the sending service',
  invalidNumber: (input: string) => `${input} is not a valid phone number`,
  optedOut: 'This number opted out of the company',
  nobodyToSend: 'None of the numbers can be sent to',
} as const;

const ZPhoneText = z.string({ error: TRANSACTIONAL_MESSAGES.toRequired }).max(40, 'Phone number is too long');

/**
 * POST /messages with `to`: one text to one or up to 1,000 phone numbers (OTPs, notifications),
 * from one service (its short code), handed over ahead of bulk sends. Without `to` the same path
 * saves a draft (ZCreateMessageRequest).
 */
export const ZTransactionalSendRequest = z
  .object({
    to: z
      .union([ZPhoneText, z.array(ZPhoneText)], { error: TRANSACTIONAL_MESSAGES.toRequired })
      .describe('A phone number, or a list of 1 to 1,000 (national ones in the company’s country)'),
    message: ZMessageContent,
    serviceId: z
      .number({ error: TRANSACTIONAL_MESSAGES.serviceRequired })
      .int(TRANSACTIONAL_MESSAGES.serviceRequired)
      .positive(TRANSACTIONAL_MESSAGES.serviceRequired),
  })
  // The count is checked here, not on the list: inside the union a too long list would read as "not a number or list".
  .superRefine((value, issues) => {
    if (!Array.isArray(value.to)) return;
    if (value.to.length === 0)
      issues.addIssue({ code: 'custom', path: ['to'], message: TRANSACTIONAL_MESSAGES.toRequired });
    if (value.to.length > TRANSACTIONAL_MAX_RECIPIENTS)
      issues.addIssue({ code: 'custom', path: ['to'], message: TRANSACTIONAL_MESSAGES.tooManyNumbers });
  });
export type TTransactionalSendRequest = z.infer<typeof ZTransactionalSendRequest>;

/** Whether a POST /messages body asks for a transactional send (it names recipients) rather than a draft. */
export const isTransactionalSendBody = (body: unknown) =>
  typeof body === 'object' && body !== null && !Array.isArray(body) && 'to' in body;

/**
 * What became of each number, in the order given (a repeated number once, at its first place):
 * queued (the recipient waits for its hand-over), skipped_opted_out (the number's subscriber
 * opted out of the company), invalid (not a phone number; `reason` says so).
 */
export const TRANSACTIONAL_RECIPIENT_STATUSES = ['queued', 'skipped_opted_out', 'invalid'] as const;
export type TTransactionalRecipientStatus = (typeof TRANSACTIONAL_RECIPIENT_STATUSES)[number];

export const ZTransactionalRecipient = z.object({
  /** The number in E.164, or as given when it is invalid. */
  to: z.string(),
  status: z.enum(TRANSACTIONAL_RECIPIENT_STATUSES),
  reason: z.string().optional(),
});
export type TTransactionalRecipient = z.infer<typeof ZTransactionalRecipient>;

export const ZTransactionalSendData = z.object({
  message: ZMessage,
  recipients: z.array(ZTransactionalRecipient),
});
export type TTransactionalSendData = z.infer<typeof ZTransactionalSendData>;
export const ZTransactionalSendResponse = successEnvelope(ZTransactionalSendData);
