import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type Scope = number | null;

export type ActivityTotals = {
  sent: number;
  delivered: number;
  failed: number;
  received: number;
  newSubscribers: number;
};

const totalsOf = (row: Record<keyof ActivityTotals, number | string>): ActivityTotals => ({
  sent: Number(row.sent),
  delivered: Number(row.delivered),
  failed: Number(row.failed),
  received: Number(row.received),
  newSubscribers: Number(row.newSubscribers),
});

export type ReportWindow = {
  bucket: 'hour' | 'day';
  previousFrom: Date;
  from: Date;
  to: Date;
  points: number;
};

/**
 * A report's figures in one call (migration 0030's report_figures, planned once per connection),
 * from the hourly or daily rollup read once from the previous span's start: sums over the timeframe
 * [from, to) and the span before it [previousFrom, from) of recipients handed over (every status but
 * pending), delivered, failed (failed, rejected by the provider, expired), inbound received and new
 * subscribers; and sent and received per bucket (UTC) from `from`, every bucket present (zero when
 * quiet). The window's bounds are whole buckets.
 */
export async function findReportFigures(db: Executor, companyId: Scope, window: ReportWindow) {
  const { rows } = await sql<{
    figures: {
      current: Record<keyof ActivityTotals, number>;
      previous: Record<keyof ActivityTotals, number>;
      volume: { time: string; sent: number; received: number }[];
    };
  }>`
    select report_figures(${companyId}::bigint, ${window.bucket === 'hour'}::boolean,
                          ${window.previousFrom}::timestamptz, ${window.from}::timestamptz,
                          ${window.to}::timestamptz, ${window.points}::int) as figures`.execute(db);
  const row = rows[0].figures;
  return {
    current: totalsOf(row.current),
    previous: totalsOf(row.previous),
    volume: row.volume.map((point) => ({
      time: new Date(point.time),
      sent: Number(point.sent),
      received: Number(point.received),
    })),
  };
}
