import { SERVICE_STATUS_LABELS, type TServiceStatus } from '@sms/contracts/services/service';

const STYLES: Record<TServiceStatus, string> = {
  active: 'bg-green-50 text-green-700 ring-green-600/20',
  inactive: 'bg-slate-100 text-slate-600 ring-slate-500/20',
  maintenance: 'bg-amber-50 text-amber-800 ring-amber-600/20',
};

export function ServiceStatusBadge({ status }: { status: TServiceStatus }) {
  return (
    <span
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STYLES[status]}`}
    >
      {SERVICE_STATUS_LABELS[status]}
    </span>
  );
}
