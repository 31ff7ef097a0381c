import {
  MESSAGE_COUNTER_DANGER_ABOVE,
  MESSAGE_COUNTER_WARN_ABOVE,
  MESSAGE_MAX_LENGTH,
} from '@sms/contracts/messages/message';
import { measureSms, SMS_ENCODING_LABELS } from '@sms/contracts/messages/sms-encoding';

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

/** n/160, and beyond the spec the encoding and how many SMS parts each recipient receives. */
export function MessageCounter({ text, id }: { text: string; id?: string }) {
  const level = counterLevel(text.length);
  const { encoding, parts } = measureSms(text);
  return (
    <div id={id} className="flex items-center justify-between gap-3 text-xs" aria-live="polite">
      <span className="text-slate-500" data-testid="sms-encoding">
        {SMS_ENCODING_LABELS[encoding]} · {parts} SMS {parts === 1 ? 'part' : 'parts'}
      </span>
      <span
        className={`font-medium tabular-nums ${LEVEL_CLASSES[level]}`}
        data-testid="message-counter"
        data-level={level}
      >
        {text.length}/{MESSAGE_MAX_LENGTH}
      </span>
    </div>
  );
}
