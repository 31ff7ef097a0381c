import { MESSAGE_STATUS_LABELS } from '@sms/contracts/messages/list-messages';
import type { TDeliveryStatus, TJobState, TMessageStatus } from '@sms/contracts/messages/message';

const TONES = {
  grey: 'bg-slate-100 text-slate-700 ring-slate-500/20',
  blue: 'bg-sky-50 text-sky-700 ring-sky-600/20',
  violet: 'bg-violet-50 text-violet-700 ring-violet-600/20',
  indigo: 'bg-indigo-50 text-indigo-700 ring-indigo-600/20',
  green: 'bg-green-50 text-green-700 ring-green-600/20',
  red: 'bg-red-50 text-red-700 ring-red-600/20',
  amber: 'bg-amber-50 text-amber-800 ring-amber-600/20',
  muted: 'bg-zinc-100 text-zinc-600 ring-zinc-500/30',
} as const;
type TTone = keyof typeof TONES;

const MESSAGE_TONES: Record<TMessageStatus, TTone> = {
  pending: 'grey',
  queued: 'blue',
  scheduled: 'violet',
  processing: 'blue',
  sent: 'indigo',
  delivered: 'green',
  failed: 'red',
  received: 'amber',
  cancelled: 'muted',
};

const DELIVERY_TONES: Record<TDeliveryStatus, TTone> = {
  pending: 'grey',
  submitted: 'blue',
  sent: 'indigo',
  delivered: 'green',
  failed: 'red',
  rejected: 'red',
  expired: 'amber',
};

const JOB_TONES: Record<TJobState, TTone> = {
  waiting: 'grey',
  delayed: 'violet',
  active: 'blue',
  completed: 'green',
  failed: 'red',
};

function Badge({ tone, children }: { tone: TTone; children: string }) {
  return (
    <span
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium capitalize ring-1 ring-inset ${TONES[tone]}`}
    >
      {children}
    </span>
  );
}

export function MessageStatusBadge({ status }: { status: TMessageStatus }) {
  return <Badge tone={MESSAGE_TONES[status]}>{MESSAGE_STATUS_LABELS[status]}</Badge>;
}

/** `neverSent`: the send ended (failed or cancelled) before this recipient was handed over. */
export function DeliveryStatusBadge({
  status,
  neverSent = false,
}: {
  status: TDeliveryStatus;
  neverSent?: boolean;
}) {
  if (neverSent && status === 'pending') return <Badge tone="muted">not sent</Badge>;
  return <Badge tone={DELIVERY_TONES[status]}>{status}</Badge>;
}

export function JobStateBadge({ state }: { state: TJobState }) {
  return <Badge tone={JOB_TONES[state]}>{state}</Badge>;
}
