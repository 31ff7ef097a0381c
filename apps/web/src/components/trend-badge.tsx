import { formatChange, type TTrend } from '@sms/contracts/common/trend';

type TTrendBadgeProps = {
  trend: TTrend;
  unit?: '%' | ' pts';
  /** false where a rise is bad news (failures): the colours swap, the triangle still shows the direction. */
  higherIsBetter?: boolean;
  suffix?: string;
};

/** An up triangle for a positive change, a down triangle otherwise (spec: KPI cards). */
export function TrendBadge({ trend, unit = '%', higherIsBetter = true, suffix }: TTrendBadgeProps) {
  const up = trend.changeType === 'positive';
  const good = up === higherIsBetter;
  const tone = trend.change === 0 ? 'text-slate-500' : good ? 'text-green-700' : 'text-red-700';
  return (
    <span className={`inline-flex items-center gap-1 text-xs font-medium ${tone}`} data-testid="trend">
      <span aria-hidden="true">{up ? '▲' : '▼'}</span>
      <span className="sr-only">{up ? 'Up' : 'Down'}</span>
      <span>{formatChange(trend.change, unit)}</span>
      {suffix ? <span className="font-normal text-slate-500">{suffix}</span> : null}
    </span>
  );
}
