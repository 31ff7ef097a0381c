import { type Executor, namedStatement } from '../../db/database.ts';
import { RESET_PLANS, runPlannedOnce } from '../../lib/planned-once.ts';

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

// A report's statement by bucket and scope, planned once per connection (lib/planned-once.ts): $1
// the company (null: every company), $2 the previous span's start, $3 the timeframe's start, $4 its
// end, $5 the buckets shown. The rollup is read between whole buckets on its (company_id, bucket)
// or (bucket) index.
const HOURS = `select hour as at, submitted + sent + delivered + failed + rejected + expired as handed_over,
                      delivered, failed + rejected + expired as failed, received, new_subscribers
                 from company_hourly_activity
                where hour >= $2::timestamptz and hour < $4::timestamptz`;
const DAYS = `select day::timestamp at time zone 'UTC' as at,
                     submitted + sent + delivered + failed + rejected + expired as handed_over,
                     delivered, failed + rejected + expired as failed, received, new_subscribers
                from company_daily_activity
               where day >= ($2::timestamptz at time zone 'UTC')::date and day < ($4::timestamptz at time zone 'UTC')::date`;
const totalsBetween = (within: string) => `json_build_object(
  'sent', coalesce(sum(a.handed_over) filter (where ${within}), 0),
  'delivered', coalesce(sum(a.delivered) filter (where ${within}), 0),
  'failed', coalesce(sum(a.failed) filter (where ${within}), 0),
  'received', coalesce(sum(a.received) filter (where ${within}), 0),
  'newSubscribers', coalesce(sum(a.new_subscribers) filter (where ${within}), 0))`;
const figures = (buckets: string, scope: string, step: string) => `
  with a as materialized (${buckets} and ${scope})
  select ${RESET_PLANS} as reset, json_build_object(
           'current', ${totalsBetween('a.at >= $3::timestamptz')},
           'previous', ${totalsBetween('a.at < $3::timestamptz')},
           'volume', (select json_agg(json_build_object('time', b.time, 'sent', coalesce(v.sent, 0),
                                                        'received', coalesce(v.received, 0)) order by b.time)
                        from generate_series($3::timestamptz, $3::timestamptz + ($5::int - 1) * ${step}, ${step}) as b(time)
                        left join (select a.at, sum(a.handed_over) as sent, sum(a.received) as received
                                     from a where a.at >= $3::timestamptz group by a.at) v on v.at = b.time)) as figures
    from a`;
const COMPANY = 'company_id = $1::bigint';
const PLATFORM = '$1::bigint is null';
const STATEMENTS = {
  hour: {
    company: namedStatement('report_hours', figures(HOURS, COMPANY, "interval '1 hour'")),
    platform: namedStatement('report_hours_platform', figures(HOURS, PLATFORM, "interval '1 hour'")),
  },
  day: {
    company: namedStatement('report_days', figures(DAYS, COMPANY, "interval '1 day'")),
    platform: namedStatement('report_days_platform', figures(DAYS, PLATFORM, "interval '1 day'")),
  },
};

/**
 * A report's figures in one statement, from the hourly or daily rollup read once from the previous
 * span's start: sums over the timeframe [from, to) and the span before it [previousFrom, from) of
 * recipients handed over (every status but pending), delivered, failed (failed, rejected by the
 * provider, expired), inbound received and new subscribers; and sent and received per bucket (UTC)
 * from `from`, every bucket present (zero when quiet). The window's bounds are whole buckets.
 */
export async function findReportFigures(db: Executor, companyId: Scope, window: ReportWindow) {
  const rows = await runPlannedOnce<{
    figures: {
      current: Record<keyof ActivityTotals, number>;
      previous: Record<keyof ActivityTotals, number>;
      volume: { time: string; sent: number; received: number }[];
    };
  }>(db, STATEMENTS[window.bucket][companyId === null ? 'platform' : 'company'], [
    companyId,
    window.previousFrom,
    window.from,
    window.to,
    window.points,
  ]);
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
