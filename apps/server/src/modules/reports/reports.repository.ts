import { sql } from 'kysely';
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

/**
 * Sums of the hourly or daily rollup over [from, to): recipients handed over (every status but pending),
 * delivered, failed (failed, rejected by the provider, expired), inbound received, new subscribers.
 */
export async function sumActivity(
  db: Executor,
  companyId: Scope,
  bucket: 'hour' | 'day',
  from: Date,
  to: Date,
): Promise<ActivityTotals> {
  const rollup = ROLLUPS[bucket];
  const { rows } = await sql<Record<keyof ActivityTotals, number>>`
    select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)::bigint as "sent",
           coalesce(sum(delivered), 0)::bigint as "delivered",
           coalesce(sum(failed + rejected + expired), 0)::bigint as "failed",
           coalesce(sum(received), 0)::bigint as "received",
           coalesce(sum(new_subscribers), 0)::bigint as "newSubscribers"
      from ${rollup.table}
     where ${forCompany(companyId)} and ${rollup.column} >= ${rollup.at(from)} and ${rollup.column} < ${rollup.at(to)}`.execute(
    db,
  );
  const row = rows[0];
  return {
    sent: Number(row.sent),
    delivered: Number(row.delivered),
    failed: Number(row.failed),
    received: Number(row.received),
    newSubscribers: Number(row.newSubscribers),
  };
}

/** Sent and received per hour or day (UTC) from `from`, every bucket present (zero when quiet). */
export async function findVolume(
  db: Executor,
  companyId: Scope,
  bucket: 'hour' | 'day',
  from: Date,
  points: number,
) {
  const step = bucket === 'hour' ? '1 hour' : '1 day';
  const rollup = ROLLUPS[bucket];
  const { rows } = await sql<{ time: Date; sent: number; received: number }>`
    select b.time, coalesce(a.sent, 0)::bigint as sent, coalesce(a.received, 0)::bigint as received
      from generate_series(${from}::timestamptz, ${from}::timestamptz + (${points - 1}::int * ${step}::interval), ${step}::interval) as b(time)
      left join (
        select ${bucket === 'hour' ? sql`hour` : sql`(day::timestamp at time zone 'UTC')`} as time,
               sum(submitted + sent + delivered + failed + rejected + expired) as sent,
               sum(received) as received
          from ${rollup.table}
         where ${forCompany(companyId)} and ${rollup.column} >= ${rollup.at(from)}
         group by 1
      ) a on a.time = b.time
     order by b.time`.execute(db);
  return rows.map((row) => ({ time: row.time, sent: Number(row.sent), received: Number(row.received) }));
}
