import { z } from 'zod';
import { CHANGE_TYPES } from '../common/trend.ts';

/** Spec section 9: the timeframes, 7d by default. */
export const REPORT_TIMEFRAMES = ['24h', '7d', '30d'] as const;
export type TReportTimeframe = (typeof REPORT_TIMEFRAMES)[number];
export const DEFAULT_REPORT_TIMEFRAME: TReportTimeframe = '7d';

export const REPORT_TIMEFRAME_LABELS: Record<TReportTimeframe, string> = {
  '24h': '24 Hours',
  '7d': '7 Days',
  '30d': '30 Days',
};

/** Hourly points over a day, daily points over a week or a month; the same span before is the comparison. */
export const REPORT_BUCKETS: Record<TReportTimeframe, { bucket: 'hour' | 'day'; points: number }> = {
  '24h': { bucket: 'hour', points: 24 },
  '7d': { bucket: 'day', points: 7 },
  '30d': { bucket: 'day', points: 30 },
};

/** Spec sections 2, 8 and 9, word for word. */
export const REPORT_TEXTS = {
  title: 'Reports & Analytics',
  viewerSubtitle: (company: string) => `View messaging performance and trends for ${company}.`,
  subtitle: 'Visualize your messaging performance and trends.',
  loading: 'Loading...',
  loadFailed: 'Failed to fetch report data.',
  volumeTitle: 'Message Volume',
  sent: 'Sent',
  received: 'Received',
  timeframeInvalid: 'timeframe must be one of 24h, 7d, 30d',
} as const;

/** The chart's drawing size (spec section 9). */
export const CHART_WIDTH = 500;
export const CHART_HEIGHT = 200;

export const KPI_IDS = [
  'messages_sent',
  'messages_delivered',
  'delivery_rate',
  'messages_failed',
  'messages_received',
  'new_subscribers',
] as const;
export type TKpiId = (typeof KPI_IDS)[number];

export const ZReportKpi = z.object({
  id: z.enum(KPI_IDS),
  label: z.string(),
  /** A count, or a percentage (0-100, one decimal) when unit is 'percent'; null: nothing to rate. */
  value: z.number().nullable(),
  unit: z.enum(['count', 'percent']),
  /** Against the span before: percent for counts, percentage points for a percentage; null when that span had none. */
  change: z.number().nullable(),
  changeType: z.enum(CHANGE_TYPES),
  /** false where a rise is bad news (failures), so the console colours it as such. */
  higherIsBetter: z.boolean(),
});
export type TReportKpi = z.infer<typeof ZReportKpi>;

export const ZMessageVolumePoint = z.object({
  /** ISO start of the hour or day (UTC). */
  time: z.string(),
  /** Outbound messages handed to the provider, one per recipient. */
  sent: z.number().int(),
  /** Inbound messages received. */
  received: z.number().int(),
});
export type TMessageVolumePoint = z.infer<typeof ZMessageVolumePoint>;

export const ZReport = z.object({
  timeframe: z.enum(REPORT_TIMEFRAMES),
  bucket: z.enum(['hour', 'day']),
  kpis: z.array(ZReportKpi),
  messageVolume: z.array(ZMessageVolumePoint),
});
export type TReport = z.infer<typeof ZReport>;
