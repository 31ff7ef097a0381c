const STATUS_STYLES: Record<string, string> = {
  active: 'bg-green-50 text-green-700 ring-green-600/20',
  pending: 'bg-amber-50 text-amber-800 ring-amber-600/20',
  suspended: 'bg-red-50 text-red-700 ring-red-600/20',
  inactive: 'bg-slate-100 text-slate-600 ring-slate-500/20',
};

const PLAN_STYLES: Record<string, string> = {
  basic: 'bg-slate-100 text-slate-700 ring-slate-500/20',
  premium: 'bg-indigo-50 text-indigo-700 ring-indigo-600/20',
  professional: 'bg-sky-50 text-sky-700 ring-sky-600/20',
  enterprise: 'bg-purple-50 text-purple-700 ring-purple-600/20',
};

const BASE =
  'inline-flex items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium capitalize ring-1 ring-inset';

export function StatusBadge({ status }: { status: string }) {
  return <span className={`${BASE} ${STATUS_STYLES[status] ?? STATUS_STYLES.inactive}`}>{status}</span>;
}

export function PlanBadge({ plan }: { plan: string }) {
  return <span className={`${BASE} ${PLAN_STYLES[plan] ?? PLAN_STYLES.basic}`}>{plan}</span>;
}

export function RoleBadge({ role }: { role: string }) {
  return (
    <span className={`${BASE} bg-slate-50 text-slate-700 ring-slate-500/20`}>
      {role.replaceAll('_', ' ')}
    </span>
  );
}
