import type { TReportKpi } from '@sms/contracts/reports/report';
import { TrendBadge } from '../../../components/trend-badge.tsx';

function formatValue(kpi: TReportKpi) {
  if (kpi.value === null) return '—';
  if (kpi.unit === 'percent') return `${kpi.value.toLocaleString('en-US', { maximumFractionDigits: 1 })}%`;
  return kpi.value.toLocaleString();
}

export function KpiCards({ kpis, comparedWith }: { kpis: TReportKpi[]; comparedWith: string }) {
  return (
    <section aria-label="Key figures" className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
      {kpis.map((kpi) => (
        <article
          key={kpi.id}
          aria-label={kpi.label}
          data-testid={`kpi-${kpi.id}`}
          className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
        >
          <h2 className="text-sm font-medium text-slate-600">{kpi.label}</h2>
          <p className="mt-2 text-2xl font-semibold text-slate-900" data-testid="kpi-value">
            {formatValue(kpi)}
          </p>
          <div className="mt-2 min-h-4">
            {/* No figure now: nothing to compare, so no trend (a 'New' here would claim one). */}
            {kpi.value === null ? null : (
              <TrendBadge
                trend={{ change: kpi.change, changeType: kpi.changeType }}
                unit={kpi.unit === 'percent' ? ' pts' : '%'}
                higherIsBetter={kpi.higherIsBetter}
                suffix={comparedWith}
              />
            )}
          </div>
        </article>
      ))}
    </section>
  );
}
