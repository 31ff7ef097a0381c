import {
  MESSAGE_COUNTER_DANGER_ABOVE,
  MESSAGE_COUNTER_WARN_ABOVE,
  MESSAGE_MAX_LENGTH,
} from '@sms/contracts/messages/message';
import { measureSms, SMS_ENCODING_LABELS } from '@sms/contracts/messages/sms-encoding';
import type { TExpansionBound } from '@sms/contracts/templates/merge-fields';

export type TCounterLevel = 'normal' | 'warn' | 'danger';

/** Spec section 2 and 9: yellow above 120 characters, red above 140. */
export function counterLevel(length: number): TCounterLevel {
  if (length > MESSAGE_COUNTER_DANGER_ABOVE) return 'danger';
  if (length > MESSAGE_COUNTER_WARN_ABOVE) return 'warn';
  return 'normal';
}

const LEVEL_CLASSES: Record<TCounterLevel, string> = {
  normal: 'text-slate-500',
  warn: 'text-yellow-600',
  danger: 'text-red-600',
};

/** Distinct recipients of the chosen services; exact false when the count is an upper bound. */
export type TCounterRecipients = { count: number; exact: boolean };

const partsWord = (parts: number) => `${parts.toLocaleString()} SMS ${parts === 1 ? 'part' : 'parts'}`;

/**
 * n/160, and beyond the spec what the text costs: the encoding and SMS parts per recipient, a
 * warning when Unicode makes it more than one part, and the total (recipients x parts) once
 * services are chosen. With merge fields (`longest`), all of it is counted on the longest text
 * among the chosen recipients, as the server checks it.
 */
export function MessageCounter({
  text,
  id,
  recipients,
  longest,
}: {
  text: string;
  id?: string;
  recipients?: TCounterRecipients | null;
  longest?: TExpansionBound | null;
}) {
  const length = longest ? longest.length : text.length;
  const level = counterLevel(length);
  const { encoding, parts } = longest ?? measureSms(text);
  const unicodeCostsMore = encoding === 'UCS-2' && parts > 1;
  return (
    <div id={id} className="space-y-1 text-xs" aria-live="polite">
      <div className="flex items-center justify-between gap-3">
        <span className="text-slate-500" data-testid="sms-encoding">
          {SMS_ENCODING_LABELS[encoding]} · {partsWord(parts)}
        </span>
        <span
          className={`font-medium tabular-nums ${LEVEL_CLASSES[level]}`}
          data-testid="message-counter"
          data-level={level}
          title={
            longest ? 'The longest text among the chosen recipients, with their fields filled in' : undefined
          }
        >
          {longest ? <span className="font-normal text-slate-500">Longest: </span> : null}
          {length}/{MESSAGE_MAX_LENGTH}
        </span>
      </div>
      {unicodeCostsMore ? (
        <p className="text-amber-700" data-testid="sms-unicode-warning">
          A character outside GSM-7 makes this a Unicode text: each recipient receives {partsWord(parts)}{' '}
          (Unicode fits 70 characters in one).
        </p>
      ) : null}
      {recipients && parts > 0 ? (
        <p className="text-slate-600" data-testid="sms-total">
          Total: {recipients.exact ? '' : 'up to '}
          {recipients.count.toLocaleString()} {recipients.count === 1 ? 'recipient' : 'recipients'} × {parts}{' '}
          = <span className="font-medium">{(recipients.count * parts).toLocaleString()} SMS</span>
        </p>
      ) : null}
    </div>
  );
}
