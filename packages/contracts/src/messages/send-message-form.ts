import { MERGE_FIELD_MESSAGES, parseTemplate, type TExpansionBound } from '../templates/merge-fields.ts';
import { MESSAGE_MAX_LENGTH, MESSAGE_MESSAGES } from './message.ts';
import {
  sendBulkMessageSchema,
  type TScheduleType,
  type TSendBulkMessageRequest,
  ZMessageContent,
  ZServiceIds,
} from './send-bulk-message.ts';

/** The Create Message form (spec section 2 and 5): the date and time are separate inputs. */
export type TSendMessageFormValues = {
  serviceIds: number[];
  message: string;
  scheduleType: TScheduleType;
  /** yyyy-mm-dd from the date input, in the sender's own time zone. */
  scheduledDate: string;
  /** hh:mm from the time input. */
  scheduledTime: string;
};

export const SEND_MESSAGE_FORM_DEFAULTS: TSendMessageFormValues = {
  serviceIds: [],
  message: '',
  scheduleType: 'now',
  scheduledDate: '',
  scheduledTime: '',
};

/** Fields that can carry an error, in the order the error summary lists them. */
export const SEND_FORM_FIELDS = [
  'serviceIds',
  'message',
  'scheduledDate',
  'scheduledTime',
  'scheduledAt',
] as const;
export type TSendFormField = (typeof SEND_FORM_FIELDS)[number];
export type TSendFormErrors = Partial<Record<TSendFormField, string>>;

/**
 * The spec words the same rule differently when a field changes and when the form is submitted
 * ('Message content is required' vs 'Please enter a message').
 */
export type TValidationMoment = 'change' | 'submit';

const REQUIRED_TEXTS = {
  submit: {
    message: MESSAGE_MESSAGES.contentRequiredOnSubmit,
    scheduledDate: MESSAGE_MESSAGES.dateRequiredOnSubmit,
    scheduledTime: MESSAGE_MESSAGES.timeRequiredOnSubmit,
  },
  change: {
    message: MESSAGE_MESSAGES.contentRequired,
    scheduledDate: MESSAGE_MESSAGES.dateRequired,
    scheduledTime: MESSAGE_MESSAGES.timeRequired,
  },
} as const;

/** The moment the date and time inputs name, in the sender's time zone; null while either is blank or malformed. */
export function combineSchedule(date: string, time: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}(:\d{2})?$/.test(time)) return null;
  const moment = new Date(`${date}T${time}`);
  return Number.isNaN(moment.getTime()) ? null : moment;
}

/** The date input's minimum: today, in the sender's time zone (spec section 9). */
export function todayInputValue(now: Date = new Date()) {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/**
 * Every rule of the send form, with the API's own field schemas (ZServiceIds, ZMessageContent),
 * so the console refuses exactly what the server would; the first problem of each field.
 */
export function validateSendMessageForm(
  values: TSendMessageFormValues,
  moment: TValidationMoment,
  now: Date = new Date(),
  /** With merge fields: the longest text among the chosen recipients, once the server has said. */
  longest: TExpansionBound | null = null,
): TSendFormErrors {
  const errors: TSendFormErrors = {};
  const services = ZServiceIds.safeParse(values.serviceIds);
  if (!services.success) errors.serviceIds = services.error.issues[0]?.message;

  if (values.message.trim().length === 0) errors.message = REQUIRED_TEXTS[moment].message;
  else {
    const content = ZMessageContent.safeParse(values.message);
    if (!content.success) errors.message = content.error.issues[0]?.message;
    else errors.message = parseTemplate(values.message).errors[0];
    if (!errors.message && longest && longest.length > MESSAGE_MAX_LENGTH)
      errors.message = MERGE_FIELD_MESSAGES.longestTooLong(longest.length);
    if (!errors.message) delete errors.message;
  }

  if (values.scheduleType === 'scheduled') {
    if (!values.scheduledDate) errors.scheduledDate = REQUIRED_TEXTS[moment].scheduledDate;
    if (!values.scheduledTime) errors.scheduledTime = REQUIRED_TEXTS[moment].scheduledTime;
    const scheduledAt = combineSchedule(values.scheduledDate, values.scheduledTime);
    if (scheduledAt && scheduledAt.getTime() <= now.getTime())
      errors.scheduledAt = MESSAGE_MESSAGES.scheduleInPast;
  }
  return errors;
}

/**
 * The errors after one field changed: that field's own rule (in its change wording), and for the
 * date or time the combined "in the future" rule; the other fields keep what they showed.
 */
export function revalidateSendFormField(
  previous: TSendFormErrors,
  field: Exclude<TSendFormField, 'scheduledAt'> | 'scheduleType',
  values: TSendMessageFormValues,
  now: Date = new Date(),
  longest: TExpansionBound | null = null,
): TSendFormErrors {
  const fresh = validateSendMessageForm(values, 'change', now, longest);
  const next: TSendFormErrors = { ...previous };
  const owned: TSendFormField[] =
    field === 'scheduleType'
      ? ['scheduledDate', 'scheduledTime', 'scheduledAt']
      : field === 'scheduledDate' || field === 'scheduledTime'
        ? [field, 'scheduledAt']
        : [field];
  for (const key of owned) {
    // Switching to send-now clears the date and time errors (spec section 5); choosing Schedule
    // does not raise them before the person has touched the inputs.
    if (field === 'scheduleType') delete next[key];
    else if (fresh[key]) next[key] = fresh[key];
    else delete next[key];
  }
  return next;
}

/** The error texts in summary order. */
export function listSendFormErrors(errors: TSendFormErrors) {
  return SEND_FORM_FIELDS.flatMap((field) => (errors[field] ? [errors[field]] : []));
}

/** The request of POST /messages/bulk/send, checked with the API's own schema. */
export function toSendBulkMessageRequest(
  values: TSendMessageFormValues,
  now: Date = new Date(),
): TSendBulkMessageRequest {
  const scheduledAt =
    values.scheduleType === 'scheduled'
      ? combineSchedule(values.scheduledDate, values.scheduledTime)?.toISOString()
      : undefined;
  const request = {
    serviceIds: values.serviceIds,
    message: values.message,
    scheduleType: values.scheduleType,
    ...(scheduledAt ? { scheduledAt } : {}),
  };
  sendBulkMessageSchema(() => now).parse(request);
  return request;
}
