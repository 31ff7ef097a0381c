import { formatChange, type TTrend } from '@sms/contracts/common/trend';

type TTrendBadgeProps = {
  trend: TTrend;
  unit?: '%' | ' pts';
  /** false where a rise is bad news (failures): the colours swap, the triangle still shows the direction. */
  higherIsBetter?: boolean;
  suffix?: string;
};

/**
 * The triangle points the way the figure moved and its colour says whether that is good
 * (higherIsBetter): a deliberate departure from the spec's "up triangle if positive", used alike
 * on the dashboard and the reports. No change shows no triangle; "New" (nothing in the period
 * before, so no percentage) shows none either and says so.
 */
export function TrendBadge({ trend, unit = '%', higherIsBetter = true, suffix }: TTrendBadgeProps) {
  if (trend.change === null)
    return (
      <span className="inline-flex items-center gap-1 text-xs font-medium" data-testid="trend">
        <span className="rounded-full bg-indigo-50 px-2 py-0.5 text-indigo-700">{formatChange(null)}</span>
        <span className="font-normal text-slate-500">nothing the period before</span>
      </span>
    );
  if (trend.change === 0)
    return (
      <span className="inline-flex items-center gap-1 text-xs font-medium text-slate-500" data-testid="trend">
        <span className="sr-only">No change:</span>
        <span>{formatChange(0, unit)}</span>
        {suffix ? <span className="font-normal">{suffix}</span> : null}
      </span>
    );
  const up = trend.change > 0;
  const good = up === higherIsBetter;
  return (
    <span
      className={`inline-flex items-center gap-1 text-xs font-medium ${good ? 'text-green-700' : 'text-red-700'}`}
      data-testid="trend"
    >
      <span aria-hidden="true">{up ? '▲' : '▼'}</span>
      <span className="sr-only">{up ? 'Up' : 'Down'}</span>
      <span>{formatChange(trend.change, unit)}</span>
      {suffix ? <span className="font-normal text-slate-500">{suffix}</span> : null}
    </span>
  );
}
