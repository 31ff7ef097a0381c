import type { TMessage } from '@sms/contracts/messages/message';
import { formatDateTime } from '../lib/format.ts';

type THandover = NonNullable<TMessage['handover']>;

const percentOf = ({ handedOver, recipients }: THandover) =>
  recipients === 0 ? 0 : Math.min(100, Math.floor((handedOver / recipients) * 100));

/** "Handed over X of Y" and a bar: how far a send in progress has got with the provider. */
export function HandoverProgress({ handover, compact = false }: { handover: THandover; compact?: boolean }) {
  const percent = percentOf(handover);
  const label = `Handed over ${handover.handedOver.toLocaleString()} of ${handover.recipients.toLocaleString()}`;
  return (
    <div className={compact ? 'mt-1 w-36' : 'w-full'} data-testid="handover-progress">
      <p className={`${compact ? 'text-xs' : 'text-sm'} text-slate-600`}>{label}</p>
      <div
        role="progressbar"
        aria-label="Hand-over progress"
        aria-valuemin={0}
        aria-valuemax={handover.recipients}
        aria-valuenow={handover.handedOver}
        aria-valuetext={label}
        className="mt-1 h-1.5 rounded-full bg-slate-200"
      >
        <div
          className="h-1.5 rounded-full bg-indigo-600 transition-[width]"
          style={{ width: `${percent}%` }}
        />
      </div>
    </div>
  );
}

/** "Cancelled by Ann Admin, 2 Dec 2026, 01:40": who stopped a scheduled send, and when. */
export function describeCancellation(cancelled: NonNullable<TMessage['cancelled']>) {
  const when = formatDateTime(cancelled.at);
  return `Cancelled${cancelled.by ? ` by ${cancelled.by}` : ''}${when ? `, ${when}` : ''}`;
}
