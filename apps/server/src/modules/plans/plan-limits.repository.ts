import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

const planColumns = ['id', 'plan', 'messages_limit', 'subscribers_limit', 'services_limit'] as const;

/** The company's plan and its own limits (null: the plan's). */
export function findCompanyPlan(db: Executor, companyId: number) {
  return db.selectFrom('companies').select(planColumns).where('id', '=', companyId).executeTakeFirst();
}

/**
 * The same, locking the company row until the transaction ends: two requests adding services or
 * subscribers to one company check and add one after the other, so together they cannot pass a
 * limit. Taken once per request, not per row.
 */
export function lockCompanyPlan(db: Executor, companyId: number) {
  return db
    .selectFrom('companies')
    .select(planColumns)
    .where('id', '=', companyId)
    .forUpdate()
    .executeTakeFirst();
}

export async function countServices(db: Executor, companyId: number) {
  const row = await db
    .selectFrom('services')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** Active subscribers, from the per-status counter (one row, not a count). */
export async function countActiveSubscribers(db: Executor, companyId: number) {
  const row = await db
    .selectFrom('company_subscriber_counts')
    .select('subscriber_count')
    .where('company_id', '=', companyId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(row?.subscriber_count ?? 0);
}

/** Which of these numbers take no new room: already active subscribers of the company. */
export async function findNumbersTakingNoRoom(db: Executor, companyId: number, msisdns: string[]) {
  if (msisdns.length === 0) return new Set<string>();
  const { rows } = await sql<{ msisdn: string }>`
    select s.msisdn from subscribers s
     where s.company_id = ${companyId} and s.msisdn = any(${msisdns}::text[]) and s.status = 'active'`.execute(
    db,
  );
  return new Set(rows.map((row) => row.msisdn));
}

/** Messages used in the calendar month (UTC) starting at monthStart, as the engine counts them for its monthly limit. */
export async function findMessagesUsedInMonth(db: Executor, companyId: number, monthStart: Date) {
  const { rows } = await sql<{ messages_used: number }>`
    select messages_used from company_monthly_usage
     where company_id = ${companyId} and month = ${monthStart.toISOString().slice(0, 10)}::date`.execute(db);
  return Number(rows[0]?.messages_used ?? 0);
}
