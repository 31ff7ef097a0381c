import type { Transaction } from 'kysely';
import type { RequestContext } from '../request-context.ts';
import { type Database, withPreparedStatements } from './database.ts';
import type { DB } from './schema.ts';
import { companyScope, inTenantTransaction, platformScope, type TenantScope } from './tenant-scope.ts';

/** A system admin crosses tenants explicitly (the platform scope); everyone else is bound to their company. */
export function scopeOfUser(user: { role: string; companyId: number | null }): TenantScope {
  if (user.role === 'system_admin') return platformScope;
  // The schema pairs every other role with a company (users_company_matches_role).
  if (user.companyId === null) throw new Error(`A ${user.role} must belong to a company`);
  return companyScope(user.companyId);
}

export function scopeOfRequest(ctx: RequestContext): TenantScope {
  return scopeOfUser(ctx.actor);
}

/**
 * The one way request work reaches the database: one transaction bound to the actor's scope and
 * user. A read's statements are prepared on the connection (the console repeats the same ones) and
 * planned for each call's values. A write keeps unnamed statements and the default plan mode:
 * PostgreSQL checks each inserted row's foreign keys with a cached plan, which forced custom plans
 * re-plan for every row (200,000 rows with one foreign key took 6.5-7.8 s instead of 2.0-2.3 s, and
 * a 1,000,000-row subscriber import 163 s instead of 83 s).
 * A read request's work runs in the transaction its sign-in check opened (db/request-transaction.ts)
 * while that is open; otherwise in a transaction of its own.
 */
export function inActorTransaction<T>(
  db: Database,
  ctx: RequestContext,
  work: (trx: Transaction<DB>) => Promise<T>,
) {
  const held = ctx.transaction;
  // A read's own transaction, opened and bound to this actor by the sign-in check: no BEGIN, no COMMIT here.
  if (ctx.readOnly && held?.isOpenFor(ctx.actor)) return withPreparedStatements(() => held.run(work));
  const transaction = () => inTenantTransaction(db, scopeOfRequest(ctx), work, ctx.actor.userId);
  return ctx.readOnly ? withPreparedStatements(transaction) : transaction();
}
