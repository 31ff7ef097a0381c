import { sql, type Transaction } from 'kysely';
import type { RequestContext } from '../request-context.ts';
import { tenantOf } from '../request-context.ts';
import type { Database } from './database.ts';
import type { DB } from './schema.ts';

/**
 * The one way request work writes to the database: a transaction that carries who is acting as
 * transaction-local settings (`app.company_id`, empty for platform staff; `app.user_id`).
 * Row-level security policies can later read them with current_setting() without any
 * repository changing.
 */
export function inActorTransaction<T>(
  db: Database,
  ctx: RequestContext,
  work: (trx: Transaction<DB>) => Promise<T>,
) {
  return db.transaction().execute(async (trx) => {
    const companyId = tenantOf(ctx.actor);
    await sql`select set_config('app.company_id', ${companyId === null ? '' : String(companyId)}, true),
                     set_config('app.user_id', ${String(ctx.actor.userId)}, true)`.execute(trx);
    return work(trx);
  });
}
