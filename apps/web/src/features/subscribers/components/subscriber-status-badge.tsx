import type { TSubscriberStatus } from '@sms/contracts/subscribers/subscriber';

const STYLES: Record<TSubscriberStatus, string> = {
  active: 'bg-green-50 text-green-700 ring-green-600/20',
  unsubscribed: 'bg-slate-100 text-slate-600 ring-slate-500/20',
  pending: 'bg-amber-50 text-amber-800 ring-amber-600/20',
};

export function SubscriberStatusBadge({ status }: { status: TSubscriberStatus }) {
  return (
    <span
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium capitalize ring-1 ring-inset ${STYLES[status]}`}
    >
      {status}
    </span>
  );
}
