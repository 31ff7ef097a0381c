import type { Transaction } from 'kysely';
import type { RequestContext } from '../request-context.ts';
import { tenantOf } from '../request-context.ts';
import type { Database } from './database.ts';
import type { DB } from './schema.ts';
import { companyScope, inTenantTransaction, platformScope, type TenantScope } from './tenant-scope.ts';

/** A system admin crosses tenants explicitly (the platform scope); everyone else is bound to their company. */
export function scopeOfRequest(ctx: RequestContext): TenantScope {
  const companyId = tenantOf(ctx.actor);
  return companyId === null ? platformScope : companyScope(companyId);
}

/** The one way request work reaches the database: one transaction bound to the actor's scope and user. */
export function inActorTransaction<T>(
  db: Database,
  ctx: RequestContext,
  work: (trx: Transaction<DB>) => Promise<T>,
) {
  return inTenantTransaction(db, scopeOfRequest(ctx), work, ctx.actor.userId);
}
