import { CompiledQuery } from 'kysely';
import { type Executor, namedStatement } from '../db/database.ts';

/**
 * The console's reads whose planning cost more than their running (ADR 0012): their statements are
 * named prepared statements (db/database.ts namedStatement), parsed once per connection and planned
 * once per connection in shapes whose plan suits any company, as the PL/pgSQL functions they were
 * kept theirs.
 *
 * PostgreSQL plans a prepared statement for its values on its first five runs and then decides
 * (plan_cache_mode 'auto'); these reads force the plan made without the values
 * (force_generic_plan), as the functions did with their SET clause. The setting is the
 * transaction's and holds for every statement it prepares, Kysely's unnamed ones too, so a read
 * turns it on just before its planned statements and its last statement turns it off again
 * (RESET_PLANS in its select list: evaluated once that statement's plan was chosen).
 */
const GENERIC_PLANS = namedStatement(
  'generic_plans',
  `select set_config('plan_cache_mode', 'force_generic_plan', true)`,
);

/** In the select list of a read's last statement: the transaction's plans are chosen as before again. */
export const RESET_PLANS = `set_config('plan_cache_mode', null, true)`;

const NO_PLANS = namedStatement('reset_plans', `select ${RESET_PLANS}`);

/** Runs a statement named with namedStatement, with its values ($1, $2, ... in order). */
export async function runStatement<Row>(db: Executor, text: string, values: readonly unknown[]) {
  const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(text, [...values]));
  return rows;
}

/**
 * Runs a planned-once read: generic plans on, then its statement, which selects RESET_PLANS in its
 * select list (and answers one row at least, so that it is evaluated).
 */
export async function runPlannedOnce<Row>(db: Executor, text: string, values: readonly unknown[]) {
  await runStatement(db, GENERIC_PLANS, []);
  return runStatement<Row>(db, text, values);
}

/** For a read that ends before its last statement. */
export async function resetPlans(db: Executor) {
  await runStatement(db, NO_PLANS, []);
}
