import { emailKey } from '@sms/contracts/auth/email';
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type ThrottlePolicy = { maxFailures: number; blockMinutes: number };

/**
 * The counters a sign-in attempt is held to: its address with the e-mail (a guesser at one
 * keyboard), and the account alone ('*', which no address is), so spraying one account from many
 * addresses is stopped too.
 */
export function throttleKeysOf(ip: string, email: string) {
  const account = emailKey(email);
  return { client: `${ip}|${account}`, account: `*|${account}` };
}

/** Seconds until every one of the keys may try again, or 0. */
export async function secondsUntilAllowed(db: Executor, keys: string[]) {
  const row = await db
    .selectFrom('login_throttle')
    .select(sql<number>`max(ceil(extract(epoch from blocked_until - now())))::int`.as('wait'))
    .where('throttle_key', 'in', keys)
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

/**
 * Deletes rows whose window has passed and that block nothing, a bounded batch at a time (run on
 * each failure, so a spray over many addresses cannot grow the table without end).
 */
export async function pruneStaleThrottles(db: Executor, blockMinutes: number, batch = 500) {
  await sql`
    delete from login_throttle where throttle_key in (
      select throttle_key from login_throttle
       where window_started_at < now() - make_interval(mins => ${blockMinutes})
         and (blocked_until is null or blocked_until < now())
       limit ${batch})
  `.execute(db);
}

export async function clearLoginFailures(db: Executor, keys: string[]) {
  await db.deleteFrom('login_throttle').where('throttle_key', 'in', keys).execute();
}
