import { MESSAGE_MAX_LENGTH } from '@sms/contracts/messages/message';
import { measureSms, type TSmsEncoding } from '@sms/contracts/messages/sms-encoding';
import { MERGE_FIELD_MESSAGES, renderTemplate, type TTemplate } from '@sms/contracts/templates/merge-fields';

export type RecipientText = { text: string; encoding: TSmsEncoding; parts: number };

/** What one recipient is handed: its text, or why it is not sent. */
export type RecipientCopy = ({ kind: 'send' } & RecipientText) | { kind: 'too-long'; reason: string };

/**
 * Each recipient's own text of a personalised send, from the subscriber's attributes as they are
 * now, by the console preview's renderer. A text over the limit is never cut: that recipient fails.
 * Recipients that share a text share its measure (a million first names are a few thousand texts).
 */
export function personalise(
  template: TTemplate,
  rows: readonly { id: string; attributes?: Record<string, string> | null }[],
): Map<string, RecipientCopy> {
  const measured = new Map<string, RecipientCopy>();
  const copies = new Map<string, RecipientCopy>();
  for (const row of rows) {
    const text = renderTemplate(template, row.attributes ?? null);
    let copy = measured.get(text);
    if (!copy) {
      copy =
        text.length > MESSAGE_MAX_LENGTH
          ? { kind: 'too-long', reason: MERGE_FIELD_MESSAGES.renderedTooLong(text.length) }
          : { kind: 'send', text, ...measureOf(text) };
      measured.set(text, copy);
    }
    copies.set(row.id, copy);
  }
  return copies;
}

function measureOf(text: string) {
  const { encoding, parts } = measureSms(text);
  return { encoding, parts: Math.max(1, parts) };
}
