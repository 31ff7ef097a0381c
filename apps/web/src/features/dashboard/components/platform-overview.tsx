import { DASHBOARD_TEXTS, type TPlatformStats } from '@sms/contracts/dashboard/dashboard-stats';
import { PLAN_CURRENCY } from '@sms/contracts/plans/plan-catalogue';

/** Spec: revenue is shown in thousands. */
export function formatThousands(value: number) {
  return `${PLAN_CURRENCY} ${(value / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })}K`;
}

export function PlatformOverview({ stats }: { stats: TPlatformStats }) {
  const items = [
    { label: 'Total Companies', value: stats.totalCompanies.toLocaleString() },
    { label: 'Active Companies', value: stats.activeCompanies.toLocaleString() },
    { label: 'Pending Approvals', value: stats.pendingApprovals.toLocaleString() },
    { label: 'Total Revenue', value: formatThousands(stats.totalRevenue), hint: 'per month' },
  ];
  return (
    <section
      aria-labelledby="platform-heading"
      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
    >
      <h2 id="platform-heading" className="text-sm font-semibold text-slate-900">
        {DASHBOARD_TEXTS.platformTitle}
      </h2>
      <dl className="mt-4 grid grid-cols-2 gap-4 lg:grid-cols-4">
        {items.map((item) => (
          <div key={item.label} className="rounded-lg bg-slate-50 p-3">
            <dt className="text-xs font-medium text-slate-600">{item.label}</dt>
            <dd className="mt-1 whitespace-nowrap text-lg font-semibold text-slate-900">{item.value}</dd>
            {item.hint ? <dd className="text-xs text-slate-500">{item.hint}</dd> : null}
          </div>
        ))}
      </dl>
    </section>
  );
}
