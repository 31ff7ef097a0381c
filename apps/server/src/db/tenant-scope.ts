import { sql, type Transaction } from 'kysely';
import { type Database, DEFAULT_STATEMENT_TIMEOUTS, type Executor, settingsOf } from './database.ts';
import type { DB } from './schema.ts';

/**
 * Whose rows a unit of work may see (row-level security reads it: migration 0005). The platform
 * scope is the one explicit way across tenants (system admins, steps that must find a row before
 * they know its company); no binding sees nothing.
 */
export type TenantScope = { kind: 'company'; companyId: number } | { kind: 'platform' };

export const platformScope: TenantScope = { kind: 'platform' };
export const companyScope = (companyId: number): TenantScope => ({ kind: 'company', companyId });

/**
 * Runs work in one transaction bound to a scope and user, with the statement timeout of the handle
 * it runs on. BEGIN and the binding go as one message: one round trip. Everything is
 * transaction-local, so a connection carries nothing into the next work (PgBouncer's transaction mode).
 */
export async function inTenantTransaction<T>(
  db: Database,
  scope: TenantScope,
  work: (trx: Transaction<DB>) => Promise<T>,
  userId: number | null = null,
  options: { readOnly?: boolean } = {},
) {
  const binding = bindingText(scope, userId, settingsOf(db).statementTimeoutMs);
  const begin = options.readOnly ? 'begin transaction read only' : 'begin';
  return db.connection().execute(async (connection) => {
    await sql.raw(`${begin}; ${binding}`).execute(connection);
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

/** For the rest of the transaction (0: none): a request's bulk work (a million-row import). */
export async function setStatementTimeout(trx: Executor, statementTimeoutMs: number) {
  await sql`select set_config('statement_timeout', ${String(Math.max(0, Math.trunc(statementTimeoutMs)))}, true)`.execute(
    trx,
  );
}

/** Binds a scope inside a transaction the caller already holds (a request's: its statement timeout). */
export async function bindScope(
  trx: Transaction<DB>,
  scope: TenantScope,
  userId: number | null = null,
  statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUTS.requestMs,
) {
  await sql.raw(bindingText(scope, userId, statementTimeoutMs)).execute(trx);
}

/** The values are written in, checked to be whole numbers, so that BEGIN can travel in the same message. */
function bindingText(scope: TenantScope, userId: number | null, statementTimeoutMs: number) {
  const companyId = scope.kind === 'company' ? wholeNumber(scope.companyId) : '';
  const platform = scope.kind === 'platform' ? 'on' : '';
  const user = userId === null ? '' : wholeNumber(userId);
  return `select set_config('app.company_id', '${companyId}', true), set_config('app.platform', '${platform}', true), set_config('app.user_id', '${user}', true), set_config('statement_timeout', '${wholeNumber(statementTimeoutMs)}', true)`;
}

function wholeNumber(value: number) {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`Not a whole number: ${value}`);
  return String(value);
}
