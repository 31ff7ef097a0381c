import { z } from 'zod';

/** Which way a figure moved against the period before: the console draws an up or a down triangle. */
export const CHANGE_TYPES = ['positive', 'negative'] as const;
export type TChangeType = (typeof CHANGE_TYPES)[number];

export const ZTrend = z.object({
  /** Percent change against the period before, one decimal; null when the period before had none. */
  change: z.number().nullable(),
  changeType: z.enum(CHANGE_TYPES),
});
export type TTrend = z.infer<typeof ZTrend>;

const oneDecimal = (value: number) => Math.round(value * 10) / 10;

/** current against previous, in percent; from nothing to something has no percentage (null). */
export function computeTrend(current: number, previous: number): TTrend {
  const changeType = current >= previous ? 'positive' : 'negative';
  if (previous === 0) return { change: current === 0 ? 0 : null, changeType };
  return { change: oneDecimal(((current - previous) / previous) * 100), changeType };
}

/** A rate against the rate before, in percentage points (95.0% -> 96.5% is +1.5). */
export function computePointsTrend(current: number | null, previous: number | null): TTrend {
  if (current === null || previous === null)
    return { change: null, changeType: (current ?? 0) >= (previous ?? 0) ? 'positive' : 'negative' };
  return {
    change: oneDecimal(current - previous),
    changeType: current >= previous ? 'positive' : 'negative',
  };
}

/** '+12.5%', '-3%', '0%'; null (nothing before) reads 'New'. */
export function formatChange(change: number | null, unit: '%' | ' pts' = '%') {
  if (change === null) return 'New';
  const sign = change > 0 ? '+' : '';
  return `${sign}${change.toLocaleString('en-US', { maximumFractionDigits: 1 })}${unit}`;
}
