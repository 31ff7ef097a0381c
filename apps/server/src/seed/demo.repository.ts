import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

export async function holdsAnyCompany(db: Executor) {
  return (await db.selectFrom('companies').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** A script of several statements; with no parameters pg runs it with the simple query protocol. */
export async function runScript(db: Executor, script: string) {
  await sql.raw(script).execute(db);
}

export async function allCompanyIds(db: Executor) {
  return (await db.selectFrom('companies').select('id').execute()).map((company) => company.id);
}

/** Fresh statistics for every table. */
export async function analyzeTables(db: Executor) {
  await sql`analyze`.execute(db);
}
