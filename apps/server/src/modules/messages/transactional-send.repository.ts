import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** The country a company's national numbers are read in, or null (the platform's default then). */
export async function findCompanyCountry(db: Executor, companyId: number) {
  const row = await db
    .selectFrom('companies')
    .select('default_country')
    .where('id', '=', companyId)
    .executeTakeFirst();
  return row?.default_country ?? null;
}

/** The company's subscribers with these numbers (E.164), and whether each opted out. */
export async function findSubscribersByNumber(db: Executor, companyId: number, msisdns: string[]) {
  if (msisdns.length === 0) return [];
  const { rows } = await sql<{ id: number; msisdn: string; status: string }>`
    select id, msisdn, status from subscribers
     where company_id = ${companyId} and msisdn = any(${msisdns}::text[])`.execute(db);
  return rows;
}
