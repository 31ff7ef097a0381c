import type { Transaction } from 'kysely';
import type { RequestContext } from '../request-context.ts';
import { type Database, settingsOf } from './database.ts';
import type { DB } from './schema.ts';
import { companyScope, inTenantTransaction, platformScope, type TenantScope } from './tenant-scope.ts';

/** A system admin crosses tenants explicitly (the platform scope); everyone else is bound to their company. */
export function scopeOfUser(user: { role: string; companyId: number | null }): TenantScope {
  if (user.role === 'system_admin') return platformScope;
  // The schema pairs every other role with a company (users_company_matches_role).
  if (user.companyId === null) throw new Error(`A ${user.role} must belong to a company`);
  return companyScope(user.companyId);
}

/** The one way request work reaches the database; a GET goes to the read replica when there is one. */
export function inActorTransaction<T>(
  db: Database,
  ctx: RequestContext,
  work: (trx: Transaction<DB>) => Promise<T>,
) {
  const replica = ctx.readOnly ? settingsOf(db).replica : undefined;
  return inTenantTransaction(replica ?? db, scopeOfUser(ctx.actor), work, ctx.actor.userId, {
    readOnly: replica !== undefined,
  });
}
