import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type ThrottlePolicy = { maxFailures: number; blockMinutes: number };

/** Seconds until the key may try again, or 0. */
export async function secondsUntilAllowed(db: Executor, key: string) {
  const row = await db
    .selectFrom('login_throttle')
    .select(sql<number>`ceil(extract(epoch from blocked_until - now()))::int`.as('wait'))
    .where('throttle_key', '=', key)
    .where('blocked_until', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return row?.wait ?? 0;
}

/** Counts a failure in a sliding window of blockMinutes; blocks the key once maxFailures is reached. */
export async function recordLoginFailure(db: Executor, key: string, policy: ThrottlePolicy) {
  const window = sql`make_interval(mins => ${policy.blockMinutes})`;
  await sql`
    insert into login_throttle as t (throttle_key, failures, window_started_at)
    values (${key}, 1, now())
    on conflict (throttle_key) do update set
      failures = case when t.window_started_at < now() - ${window} then 1 else t.failures + 1 end,
      window_started_at = case when t.window_started_at < now() - ${window} then now() else t.window_started_at end,
      blocked_until = case
        when t.window_started_at >= now() - ${window} and t.failures + 1 >= ${policy.maxFailures}
        then now() + ${window} else t.blocked_until end
  `.execute(db);
}

export async function clearLoginFailures(db: Executor, key: string) {
  await db.deleteFrom('login_throttle').where('throttle_key', '=', key).execute();
}
