import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

/** The calendar month (UTC) a moment falls in, as its first day (YYYY-MM-01). */
export function usageMonthOf(at: Date) {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

/**
 * Locks the company's usage row of that month until the transaction ends and returns what it has
 * used: concurrent sends check and reserve one after the other, so together they cannot pass the limit.
 */
export async function lockUsage(trx: Executor, companyId: number, month: string) {
  const { rows } = await sql<{ messages_used: number }>`
    insert into company_monthly_usage as u (company_id, month, messages_used)
    values (${companyId}, ${month}::date, 0)
    on conflict (company_id, month) do update set messages_used = u.messages_used
    returning messages_used`.execute(trx);
  return rows[0].messages_used;
}

/** Adds (or, negative, gives back) messages to a company's month. */
export async function adjustUsage(trx: Executor, companyId: number, month: string, delta: number) {
  if (delta === 0) return;
  await sql`
    insert into company_monthly_usage as u (company_id, month, messages_used)
    values (${companyId}, ${month}::date, greatest(${delta}::bigint, 0))
    on conflict (company_id, month) do update set messages_used = greatest(u.messages_used + ${delta}::bigint, 0)`.execute(
    trx,
  );
}
