import { sql } from 'kysely';
import type { DatabaseHandle } from '../../../apps/server/src/db/database.ts';

/** The database's clock now, to pass as `since` below. */
export async function databaseNow(owner: DatabaseHandle) {
  const { rows } = await sql<{ now: Date }>`select clock_timestamp() as now`.execute(owner.db);
  return rows[0].now;
}

/** pg-boss's jobs by queue and state, one line for the log. */
export async function jobCounts(owner: DatabaseHandle) {
  const { rows } = await sql<{ name: string; state: string; count: number }>`
    select name, state, count(*)::int as count from pgboss.job group by 1, 2 order by 1, 2`.execute(owner.db);
  return rows.map((row) => `${row.name} ${row.state} ${row.count}`).join(', ') || 'none';
}

/**
 * Where the queue's time went for the jobs created since `since` (of one company, if given), per
 * queue: how many, how many retries, how long each waited from its due time to a worker taking it
 * and how long it ran (p50 / p95 in ms), and how many were taken a second from the first taken to
 * the last (for a queue with a backlog, the rate its workers drain it at). One line for the log.
 */
export async function queueTimings(owner: DatabaseHandle, since: Date, companyId?: number) {
  const { rows } = await sql<{
    name: string;
    jobs: number;
    retries: number;
    wait_p50: number;
    wait_p95: number;
    run_p50: number;
    run_p95: number;
    taken_per_second: number | null;
  }>`
    with timed as (
      select name, retry_count,
             extract(epoch from started_on - start_after) * 1000 as wait_ms,
             extract(epoch from completed_on - started_on) * 1000 as run_ms,
             started_on
        from pgboss.job
       where created_on >= ${since}
         and (${companyId ?? null}::bigint is null or (data->>'companyId')::bigint = ${companyId ?? null}::bigint))
    select name, count(*)::int as jobs, sum(retry_count)::int as retries,
           percentile_cont(0.5) within group (order by wait_ms) as wait_p50,
           percentile_cont(0.95) within group (order by wait_ms) as wait_p95,
           percentile_cont(0.5) within group (order by run_ms) as run_p50,
           percentile_cont(0.95) within group (order by run_ms) as run_p95,
           count(started_on) / nullif(extract(epoch from max(started_on) - min(started_on)), 0) as taken_per_second
      from timed group by name order by name`.execute(owner.db);
  const ms = (value: number | null) => (value === null ? '-' : Number(value).toFixed(0));
  return rows
    .map(
      (row) =>
        `${row.name}: ${row.jobs} jobs, ${row.retries} retries, waited ${ms(row.wait_p50)} / ${ms(row.wait_p95)} ms, ran ${ms(row.run_p50)} / ${ms(row.run_p95)} ms, taken ${row.taken_per_second === null ? '-' : Number(row.taken_per_second).toFixed(1)}/s`,
    )
    .join('; ');
}

/**
 * For the given messages, p50 / p95 (ms) from each message's creation (its POST) to its last
 * recipient handed to the provider, and to its last delivery report received. One line for the log.
 */
export async function recipientTimings(owner: DatabaseHandle, messageIds: number[]) {
  const { rows } = await sql<{
    handed_p50: number;
    handed_p95: number;
    reported_p50: number;
    reported_p95: number;
  }>`
    with per_message as (
      select m.id,
             extract(epoch from max(d.submitted_at) - m.created_at) * 1000 as handed_ms,
             extract(epoch from max(d.delivered_at) - m.created_at) * 1000 as reported_ms
        from messages m join delivery_reports d on d.company_id = m.company_id and d.message_id = m.id
       where m.id = any(${messageIds}::bigint[])
       group by m.id, m.created_at)
    select percentile_cont(0.5) within group (order by handed_ms) as handed_p50,
           percentile_cont(0.95) within group (order by handed_ms) as handed_p95,
           percentile_cont(0.5) within group (order by reported_ms) as reported_p50,
           percentile_cont(0.95) within group (order by reported_ms) as reported_p95
      from per_message`.execute(owner.db);
  const row = rows[0];
  const ms = (value: number | null) => (value === null ? '-' : Number(value).toFixed(0));
  return `from POST to the last recipient handed over ${ms(row.handed_p50)} / ${ms(row.handed_p95)} ms, to its delivery report received ${ms(row.reported_p50)} / ${ms(row.reported_p95)} ms (p50 / p95)`;
}
