import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { parseTemplate } from '../templates/merge-fields.ts';
import { MESSAGE_MAX_LENGTH, MESSAGE_MESSAGES, ZMessage } from './message.ts';

export const SCHEDULE_TYPES = ['now', 'scheduled'] as const;
export type TScheduleType = (typeof SCHEDULE_TYPES)[number];

/** The content rule of the send form and the API, in one place. */
export const ZMessageContent = z
  .string({ error: MESSAGE_MESSAGES.contentRequiredOnSubmit })
  .refine((value) => value.trim().length > 0, MESSAGE_MESSAGES.contentRequiredOnSubmit)
  .refine((value) => value.length <= MESSAGE_MAX_LENGTH, MESSAGE_MESSAGES.contentTooLong);

export const ZServiceIds = z
  .array(z.number({ error: 'Service ids must be integers' }).int('Service ids must be integers').positive(), {
    error: MESSAGE_MESSAGES.servicesRequired,
  })
  .min(1, MESSAGE_MESSAGES.servicesRequired)
  .max(100, 'At most 100 services per message')
  .transform((ids) => [...new Set(ids)]);

/**
 * POST /messages/bulk/send (spec section 7). `now` is passed in so the console and the server
 * judge "in the future" by the same rule; the server checks against its own clock.
 */
export function sendBulkMessageSchema(now: () => Date = () => new Date()) {
  return z
    .object({
      serviceIds: ZServiceIds,
      message: ZMessageContent,
      scheduleType: z.enum(SCHEDULE_TYPES, { error: 'scheduleType must be now or scheduled' }).default('now'),
      scheduledAt: z.iso.datetime({ offset: true, error: 'scheduledAt must be an ISO date-time' }).optional(),
    })
    .superRefine((value, issues) => {
      // Merge fields are a bulk send's (each recipient is a subscriber): their grammar is checked here.
      for (const message of parseTemplate(value.message).errors)
        issues.addIssue({ code: 'custom', path: ['message'], message });
      if (value.scheduleType === 'now') {
        if (value.scheduledAt !== undefined)
          issues.addIssue({
            code: 'custom',
            path: ['scheduledAt'],
            message: MESSAGE_MESSAGES.scheduledAtOnlyWhenScheduled,
          });
        return;
      }
      if (value.scheduledAt === undefined) {
        issues.addIssue({ code: 'custom', path: ['scheduledAt'], message: MESSAGE_MESSAGES.dateRequired });
        return;
      }
      if (new Date(value.scheduledAt).getTime() <= now().getTime())
        issues.addIssue({ code: 'custom', path: ['scheduledAt'], message: MESSAGE_MESSAGES.scheduleInPast });
    });
}
export const ZSendBulkMessageRequest = sendBulkMessageSchema();
export type TSendBulkMessageRequest = z.input<typeof ZSendBulkMessageRequest>;

export const ZSendBulkMessageData = z.object({ message: ZMessage, recipientCount: z.number().int() });
export type TSendBulkMessageData = z.infer<typeof ZSendBulkMessageData>;
export const ZSendBulkMessageResponse = successEnvelope(ZSendBulkMessageData);
