import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';

/**
 * Every difference between the rollups (and the messages' search words) and what the rows
 * themselves hold (empty when exact).
 */
export async function rollupDifferences(db: Database) {
  const recipients = await sql<Record<string, unknown>>`
    with direct as (
      select company_id, date_trunc('hour', created_at, 'UTC') as hour, status, count(*)::bigint as n
        from delivery_reports group by 1, 2, 3),
    rolled as (
      select company_id, hour, s.status, s.n
        from company_hourly_activity,
             lateral (values ('pending', pending), ('submitted', submitted), ('sent', sent), ('delivered', delivered),
                             ('failed', failed), ('rejected', rejected), ('expired', expired)) as s(status, n)
       where s.n <> 0)
    (select 'hourly missing' as problem, * from direct except select 'hourly missing', * from rolled)
    union all
    (select 'hourly extra', * from rolled except select 'hourly extra', * from direct)`.execute(db);
  const monthly = await sql<Record<string, unknown>>`
    with direct as (
      select company_id, date_trunc('month', created_at at time zone 'UTC')::date as month, status, count(*)::bigint as n
        from delivery_reports group by 1, 2, 3),
    rolled as (
      select company_id, month, s.status, s.n
        from company_monthly_activity,
             lateral (values ('pending', pending), ('submitted', submitted), ('sent', sent), ('delivered', delivered),
                             ('failed', failed), ('rejected', rejected), ('expired', expired)) as s(status, n)
       where s.n <> 0)
    (select 'monthly missing' as problem, * from direct except select 'monthly missing', * from rolled)
    union all
    (select 'monthly extra', * from rolled except select 'monthly extra', * from direct)`.execute(db);
  // The daily rollup is the hourly one summed by day, every column.
  const daily = await sql<Record<string, unknown>>`
    with summed as (
      select company_id, (hour at time zone 'UTC')::date as day, sum(pending) as pending, sum(submitted) as submitted,
             sum(sent) as sent, sum(delivered) as delivered, sum(failed) as failed, sum(rejected) as rejected,
             sum(expired) as expired, sum(received) as received, sum(new_subscribers) as new_subscribers,
             sum(active_subscribers_delta) as active_subscribers_delta, sum(services_delta) as services_delta,
             sum(active_services_delta) as active_services_delta
        from company_hourly_activity group by 1, 2
      having sum(abs(pending) + abs(submitted) + abs(sent) + abs(delivered) + abs(failed) + abs(rejected)
                 + abs(expired) + abs(received) + abs(new_subscribers)) <> 0
          or sum(active_subscribers_delta) <> 0 or sum(services_delta) <> 0 or sum(active_services_delta) <> 0),
    daily as (
      select company_id, day, pending::numeric, submitted::numeric, sent::numeric, delivered::numeric, failed::numeric,
             rejected::numeric, expired::numeric, received::numeric, new_subscribers::numeric,
             active_subscribers_delta::numeric, services_delta::numeric, active_services_delta::numeric
        from company_daily_activity
       where pending <> 0 or submitted <> 0 or sent <> 0 or delivered <> 0 or failed <> 0 or rejected <> 0
          or expired <> 0 or received <> 0 or new_subscribers <> 0 or active_subscribers_delta <> 0
          or services_delta <> 0 or active_services_delta <> 0)
    (select 'daily missing' as problem, * from summed except select 'daily missing', * from daily)
    union all
    (select 'daily extra', * from daily except select 'daily extra', * from summed)`.execute(db);
  const others = await sql<Record<string, unknown>>`
    with direct as (
      select company_id, date_trunc('hour', created_at, 'UTC') as hour, 'received' as what, count(*)::bigint as n
        from messages where direction = 'inbound' group by 1, 2
      union all
      select company_id, date_trunc('hour', created_at, 'UTC'), 'new_subscribers', count(*) from subscribers group by 1, 2),
    rolled as (
      select company_id, hour, 'received' as what, received as n from company_hourly_activity where received <> 0
      union all
      select company_id, hour, 'new_subscribers', new_subscribers from company_hourly_activity where new_subscribers <> 0)
    (select 'missing' as problem, * from direct except select 'missing', * from rolled)
    union all
    (select 'extra', * from rolled except select 'extra', * from direct)`.execute(db);
  const stocks = await sql<Record<string, unknown>>`
    select c.id as company_id,
           (select count(*) from subscribers s where s.company_id = c.id and s.status = 'active') as active_subscribers,
           (select coalesce(sum(active_subscribers_delta), 0) from company_hourly_activity a where a.company_id = c.id) as rolled_active_subscribers,
           (select count(*) from services s where s.company_id = c.id) as services,
           (select coalesce(sum(services_delta), 0) from company_hourly_activity a where a.company_id = c.id) as rolled_services,
           (select count(*) from services s where s.company_id = c.id and s.status = 'active') as active_services,
           (select coalesce(sum(active_services_delta), 0) from company_hourly_activity a where a.company_id = c.id) as rolled_active_services
      from companies c`.execute(db);
  const stockProblems = stocks.rows.filter(
    (row) =>
      Number(row.active_subscribers) !== Number(row.rolled_active_subscribers) ||
      Number(row.services) !== Number(row.rolled_services) ||
      Number(row.active_services) !== Number(row.rolled_active_services),
  );
  const orphans = await sql<Record<string, unknown>>`
    select 'rollup of a deleted company' as problem, company_id from company_hourly_activity a
     where not exists (select 1 from companies c where c.id = a.company_id)`.execute(db);
  const words = await sql<Record<string, unknown>>`
    with direct as (
      select m.company_id, w.word, m.created_at, m.id as message_id
        from messages m cross join lateral search_words(m.content) as w(word))
    (select 'search word missing' as problem, * from direct except select 'search word missing', * from message_search_words)
    union all
    (select 'search word extra', * from message_search_words except select 'search word extra', * from direct)`.execute(
    db,
  );
  return [
    ...recipients.rows,
    ...daily.rows,
    ...monthly.rows,
    ...others.rows,
    ...stockProblems,
    ...orphans.rows,
    ...words.rows,
  ];
}
