import { emailKey } from '@sms/contracts/auth/email';
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

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

export type ThrottleCounter = { key: string; maxFailures: number };

/**
 * Reserves one password check against every counter, or none: counts the attempt as a failure
 * before the password is checked (a sign-in that succeeds clears its counters), and blocks a counter
 * for blockMinutes once it reaches its maxFailures, in a sliding window of blockMinutes. One
 * conditional statement, because several API processes share the database: the upsert locks each
 * counter's row, and its WHERE sees the latest version, so of any number of concurrent attempts at
 * most maxFailures get through (an in-process map would allow that many per process). A counter
 * blocked meanwhile by a concurrent attempt may still have had the others counted: only refused
 * attempts are over-counted, never a password check let through.
 */
export async function reserveLoginAttempt(db: Executor, counters: ThrottleCounter[], blockMinutes: number) {
  const window = sql`make_interval(mins => ${blockMinutes})`;
  const keys = counters.map((counter) => counter.key);
  const maxOf = sql.join(
    counters.map((counter) => sql`when ${counter.key} then ${counter.maxFailures}::int`),
    sql` `,
  );
  const { rows } = await sql<{ reserved: number; wait: number | null }>`
    with blocked as (
      select max(ceil(extract(epoch from blocked_until - now())))::int as wait
        from login_throttle
       where throttle_key in (${sql.join(keys)}) and blocked_until > now()
    ), reserved as (
      insert into login_throttle as t (throttle_key, failures, window_started_at, blocked_until)
      select k.key, 1, now(), case when 1 >= (case k.key ${maxOf} end) then now() + ${window} end
        from unnest(${keys}::text[]) with ordinality as k(key, ord)
       where (select wait from blocked) is null
       order by k.ord
      on conflict (throttle_key) do update set
        failures = case when t.window_started_at < now() - ${window} then 1 else t.failures + 1 end,
        window_started_at = case when t.window_started_at < now() - ${window} then now() else t.window_started_at end,
        blocked_until = case
          when (case when t.window_started_at < now() - ${window} then 1 else t.failures + 1 end)
               >= (case t.throttle_key ${maxOf} end)
          then now() + ${window} else t.blocked_until end
       where t.blocked_until is null or t.blocked_until <= now()
      returning 1
    )
    select (select count(*) from reserved)::int as reserved, (select wait from blocked) as wait
  `.execute(db);
  const row = rows[0];
  if (row && row.reserved === counters.length) return { allowed: true as const };
  // Blocked by a concurrent attempt after this statement's snapshot: its wait is read afresh.
  const wait = row?.wait ?? (await secondsUntilAllowed(db, keys));
  return { allowed: false as const, waitSeconds: Math.max(1, wait) };
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
