import { describe, expect, it } from 'vitest';
import { MESSAGE_MESSAGES } from './message.ts';
import {
  listSendFormErrors,
  revalidateSendFormField,
  SEND_MESSAGE_FORM_DEFAULTS,
  type TSendMessageFormValues,
  toSendBulkMessageRequest,
  validateSendMessageForm,
} from './send-message-form.ts';

const now = new Date(2026, 4, 1, 12, 0);
const form = (values: Partial<TSendMessageFormValues>) => ({ ...SEND_MESSAGE_FORM_DEFAULTS, ...values });

describe('validateSendMessageForm', () => {
  it('words a blank form as the spec does on submit, in summary order', () => {
    const errors = validateSendMessageForm(form({ scheduleType: 'scheduled' }), 'submit', now);
    expect(listSendFormErrors(errors)).toEqual([
      'Please select at least one service',
      'Please enter a message',
      'Please select a date',
      'Please select a time',
    ]);
  });

  it('words the same rules as the spec does on field change', () => {
    const errors = validateSendMessageForm(
      form({ message: '   ', scheduleType: 'scheduled' }),
      'change',
      now,
    );
    expect(errors).toMatchObject({
      message: 'Message content is required',
      scheduledDate: 'Date is required for scheduled messages',
      scheduledTime: 'Time is required for scheduled messages',
    });
  });

  it('allows 160 characters and refuses 161', () => {
    const ok = form({ serviceIds: [1], message: 'x'.repeat(160) });
    expect(validateSendMessageForm(ok, 'submit', now)).toEqual({});
    expect(validateSendMessageForm({ ...ok, message: 'x'.repeat(161) }, 'submit', now)).toEqual({
      message: 'Message must be 160 characters or less',
    });
  });

  it('wants a scheduled time in the future', () => {
    const past = form({
      serviceIds: [1],
      message: 'Hi',
      scheduleType: 'scheduled',
      scheduledDate: '2026-05-01',
      scheduledTime: '11:59',
    });
    expect(validateSendMessageForm(past, 'submit', now)).toEqual({
      scheduledAt: MESSAGE_MESSAGES.scheduleInPast,
    });
    expect(validateSendMessageForm({ ...past, scheduledTime: '12:01' }, 'submit', now)).toEqual({});
  });
});

describe('revalidateSendFormField', () => {
  it('changes only the field that changed, and send-now clears the date and time errors', () => {
    const values = form({ scheduleType: 'scheduled' });
    const submitted = validateSendMessageForm(values, 'submit', now);
    const afterMessage = revalidateSendFormField(submitted, 'message', { ...values, message: 'Hi' }, now);
    expect(afterMessage).toEqual({
      serviceIds: 'Please select at least one service',
      scheduledDate: 'Please select a date',
      scheduledTime: 'Please select a time',
    });
    const afterDate = revalidateSendFormField(
      afterMessage,
      'scheduledDate',
      { ...values, scheduledDate: '2026-04-30' },
      now,
    );
    expect(afterDate.scheduledDate).toBeUndefined();
    expect(afterDate.scheduledTime).toBe('Please select a time');
    const afterTime = revalidateSendFormField(
      afterDate,
      'scheduledTime',
      { ...values, scheduledDate: '2026-04-30', scheduledTime: '10:00' },
      now,
    );
    expect(afterTime).toEqual({
      serviceIds: 'Please select at least one service',
      scheduledAt: MESSAGE_MESSAGES.scheduleInPast,
    });
    expect(
      revalidateSendFormField(afterTime, 'scheduleType', { ...values, scheduleType: 'now' }, now),
    ).toEqual({
      serviceIds: 'Please select at least one service',
    });
  });
});

describe('toSendBulkMessageRequest', () => {
  it('sends integer service ids, and scheduledAt as an ISO time only when scheduled', () => {
    expect(toSendBulkMessageRequest(form({ serviceIds: [3, 4], message: 'Hi' }), now)).toEqual({
      serviceIds: [3, 4],
      message: 'Hi',
      scheduleType: 'now',
    });
    const scheduled = toSendBulkMessageRequest(
      form({
        serviceIds: [3],
        message: 'Hi',
        scheduleType: 'scheduled',
        scheduledDate: '2026-05-02',
        scheduledTime: '09:30',
      }),
      now,
    );
    expect(scheduled.scheduledAt).toBe(new Date(2026, 4, 2, 9, 30).toISOString());
  });
});
