import { sql, type Transaction } from 'kysely';
import { type Database, preparesStatements } from './database.ts';
import type { DB } from './schema.ts';

/**
 * Whose rows a unit of database work may see. Row-level security policies (migration 0005) read
 * the binding through `app_tenant_visible(company_id)`: a company scope sees that company's rows
 * only; the platform scope is the one explicit way across tenants (system admins, and engine or
 * sign-in steps that must find a row before they know its company). No binding sees nothing.
 */
export type TenantScope = { kind: 'company'; companyId: number } | { kind: 'platform' };

export const platformScope: TenantScope = { kind: 'platform' };
export const companyScope = (companyId: number): TenantScope => ({ kind: 'company', companyId });

/**
 * Runs work in one transaction bound to a scope (and, when known, the acting user). The settings
 * are transaction-local, so a pooled connection carries nothing into the next piece of work.
 *
 * BEGIN and the binding go to the server as one message (two statements, simple protocol): one
 * round trip instead of two, on every request. Their values are ids (integers), checked before
 * they are written into the statement.
 */
export function inTenantTransaction<T>(
  db: Database,
  scope: TenantScope,
  work: (trx: Transaction<DB>) => Promise<T>,
  userId: number | null = null,
) {
  return db.connection().execute(async (connection) => {
    await sql.raw(beginBoundText(scope, userId, preparesStatements())).execute(connection);
    let result: T;
    try {
      // One connection inside BEGIN ... COMMIT is what a Kysely transaction is; repositories take either.
      result = await work(connection as unknown as Transaction<DB>);
    } catch (error) {
      await sql
        .raw('rollback')
        .execute(connection)
        .catch(() => {});
      throw error;
    }
    await sql.raw('commit').execute(connection);
    return result;
  });
}

/**
 * Prepared statements are planned for the values of each call, never once for all: a plan made
 * for an average company (plan_cache_mode's generic plan) walked a small company's rows as if it
 * were the big one, or the other way round (the chip counts took 40 ms instead of 3.6 on the
 * bench data). Transaction-local like the binding.
 */
const CUSTOM_PLANS = ", set_config('plan_cache_mode', 'force_custom_plan', true)";

/**
 * BEGIN and the binding as one message, the values written in (ids only, so nothing to escape).
 * `customPlans`: a read's planning rule (above).
 */
export function beginBoundText(scope: TenantScope, userId: number | null, customPlans: boolean) {
  const companyId = scope.kind === 'company' ? idText(scope.companyId) : '';
  const platform = scope.kind === 'platform' ? 'on' : '';
  const user = userId === null ? '' : idText(userId);
  const plans = customPlans ? CUSTOM_PLANS : '';
  return `begin; select set_config('app.company_id', '${companyId}', true), set_config('app.platform', '${platform}', true), set_config('app.user_id', '${user}', true)${plans}`;
}

function idText(id: number) {
  if (!Number.isSafeInteger(id) || id < 0) throw new Error(`Not an id: ${id}`);
  return String(id);
}

/** Binds a scope inside a transaction the caller already holds. */
export async function bindScope(trx: Transaction<DB>, scope: TenantScope, userId: number | null = null) {
  const companyId = scope.kind === 'company' ? String(scope.companyId) : '';
  const platform = scope.kind === 'platform' ? 'on' : '';
  await sql`select set_config('app.company_id', ${companyId}, true),
                   set_config('app.platform', ${platform}, true),
                   set_config('app.user_id', ${userId === null ? '' : String(userId)}, true)`.execute(trx);
}
