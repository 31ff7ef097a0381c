import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type Scope = number | null;

const forCompany = (companyId: Scope) => (companyId === null ? sql`true` : sql`company_id = ${companyId}`);

/** Hourly rows for a day's report, daily rows for a week's or a month's: a few rows per company either way. */
const ROLLUPS = {
  hour: { table: sql.table('company_hourly_activity'), column: sql.ref('hour'), at: (at: Date) => at },
  day: {
    table: sql.table('company_daily_activity'),
    column: sql.ref('day'),
    at: (at: Date) => at.toISOString().slice(0, 10),
  },
} as const;

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
 * A report's figures in one statement (one round trip and one plan instead of three), from the
 * hourly or daily rollup read once from the previous span's start: sums over the timeframe
 * [from, to) and the span before it [previousFrom, from) of recipients handed over (every status
 * but pending), delivered, failed (failed, rejected by the provider, expired), inbound received and
 * new subscribers; and sent and received per bucket (UTC) from `from`, every bucket present (zero
 * when quiet).
 */
export async function findReportFigures(db: Executor, companyId: Scope, window: ReportWindow) {
  const rollup = ROLLUPS[window.bucket];
  const step = window.bucket === 'hour' ? '1 hour' : '1 day';
  const column = rollup.column;
  const from = rollup.at(window.from);
  const sums = (range: RawBuilder<unknown>) => sql`json_build_object(
      'sent', coalesce(sum(a.handed_over) filter (where ${range}), 0),
      'delivered', coalesce(sum(a.delivered) filter (where ${range}), 0),
      'failed', coalesce(sum(a.failed) filter (where ${range}), 0),
      'received', coalesce(sum(a.received) filter (where ${range}), 0),
      'newSubscribers', coalesce(sum(a.new_subscribers) filter (where ${range}), 0))`;
  const { rows } = await sql<{
    current: Record<keyof ActivityTotals, number>;
    previous: Record<keyof ActivityTotals, number>;
    volume: { time: string; sent: number; received: number }[];
  }>`
    with a as materialized (
      select ${column} as at, ${window.bucket === 'hour' ? sql`hour` : sql`(day::timestamp at time zone 'UTC')`} as time,
             submitted + sent + delivered + failed + rejected + expired as handed_over, delivered,
             failed + rejected + expired as failed, received, new_subscribers
        from ${rollup.table}
       where ${forCompany(companyId)} and ${column} >= ${rollup.at(window.previousFrom)})
    select ${sums(sql`a.at >= ${from} and a.at < ${rollup.at(window.to)}`)} as current,
           ${sums(sql`a.at < ${from}`)} as previous,
           (select json_agg(json_build_object('time', b.time, 'sent', coalesce(v.sent, 0),
                                              'received', coalesce(v.received, 0)) order by b.time)
              from generate_series(${window.from}::timestamptz,
                                   ${window.from}::timestamptz + (${window.points - 1}::int * ${step}::interval),
                                   ${step}::interval) as b(time)
              left join (select a.time, sum(a.handed_over) as sent, sum(a.received) as received
                           from a where a.at >= ${from} group by a.time) v on v.time = b.time) as volume
      from a`.execute(db);
  const row = rows[0];
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
