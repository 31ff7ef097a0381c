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
 * A report's figures in one statement, from the hourly or daily rollup read once from the previous
 * span's start: sums over the timeframe [from, to) and the span before it [previousFrom, from) of
 * recipients handed over (every status but pending), delivered, failed (failed, rejected by the
 * provider, expired), inbound received and new subscribers; and sent and received per bucket (UTC)
 * from `from`, every bucket present (zero when quiet). The window's bounds are whole buckets.
 */
export async function findReportFigures(db: Executor, companyId: Scope, window: ReportWindow) {
  const ofScope = companyId === null ? sql`true` : sql`company_id = ${companyId}::bigint`;
  const from = sql`${window.from}::timestamptz`;
  const buckets =
    window.bucket === 'hour'
      ? sql`select hour as at, submitted + sent + delivered + failed + rejected + expired as handed_over,
                   delivered, failed + rejected + expired as failed, received, new_subscribers
              from company_hourly_activity
             where ${ofScope} and hour >= ${window.previousFrom}::timestamptz`
      : sql`select day::timestamp at time zone 'UTC' as at,
                   submitted + sent + delivered + failed + rejected + expired as handed_over,
                   delivered, failed + rejected + expired as failed, received, new_subscribers
              from company_daily_activity
             where ${ofScope} and day >= (${window.previousFrom}::timestamptz at time zone 'UTC')::date`;
  const step = window.bucket === 'hour' ? sql`interval '1 hour'` : sql`interval '1 day'`;
  const { rows } = await sql<{
    figures: {
      current: Record<keyof ActivityTotals, number>;
      previous: Record<keyof ActivityTotals, number>;
      volume: { time: string; sent: number; received: number }[];
    };
  }>`
    with a as materialized (${buckets})
    select json_build_object(
             'current', json_build_object(
               'sent', coalesce(sum(a.handed_over) filter (where a.at >= ${from} and a.at < ${window.to}::timestamptz), 0),
               'delivered', coalesce(sum(a.delivered) filter (where a.at >= ${from} and a.at < ${window.to}::timestamptz), 0),
               'failed', coalesce(sum(a.failed) filter (where a.at >= ${from} and a.at < ${window.to}::timestamptz), 0),
               'received', coalesce(sum(a.received) filter (where a.at >= ${from} and a.at < ${window.to}::timestamptz), 0),
               'newSubscribers', coalesce(sum(a.new_subscribers) filter (where a.at >= ${from} and a.at < ${window.to}::timestamptz), 0)),
             'previous', json_build_object(
               'sent', coalesce(sum(a.handed_over) filter (where a.at < ${from}), 0),
               'delivered', coalesce(sum(a.delivered) filter (where a.at < ${from}), 0),
               'failed', coalesce(sum(a.failed) filter (where a.at < ${from}), 0),
               'received', coalesce(sum(a.received) filter (where a.at < ${from}), 0),
               'newSubscribers', coalesce(sum(a.new_subscribers) filter (where a.at < ${from}), 0)),
             'volume', (select json_agg(json_build_object('time', b.time, 'sent', coalesce(v.sent, 0),
                                                          'received', coalesce(v.received, 0)) order by b.time)
                          from generate_series(${from}, ${from} + (${window.points}::int - 1) * ${step}, ${step}) as b(time)
                          left join (select a.at, sum(a.handed_over) as sent, sum(a.received) as received
                                       from a where a.at >= ${from} group by a.at) v on v.at = b.time)) as figures
      from a`.execute(db);
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
