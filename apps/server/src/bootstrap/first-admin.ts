import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import { hashPassword } from '../modules/auth/passwords.ts';

export type FirstAdminOutcome = 'exists' | 'created' | 'missing';

/**
 * A deployment with no system admin gets one from ADMIN_EMAIL / ADMIN_PASSWORD. System admins
 * belong to no company: only the platform scope sees or creates them.
 */
export function ensureFirstAdmin(config: Config, db: Database): Promise<FirstAdminOutcome> {
  return inTenantTransaction(db, platformScope, async (trx) => {
    const existing = await trx
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'system_admin')
      .limit(1)
      .executeTakeFirst();
    if (existing) return 'exists';
    if (!config.adminEmail || !config.adminPassword) return 'missing';
    await trx
      .insertInto('users')
      .values({
        name: 'System Administrator',
        email: config.adminEmail,
        password_hash: await hashPassword(config.adminPassword),
        role: 'system_admin',
        company_id: null,
      })
      .onConflict((conflict) => conflict.expression(sql`lower(email)`).doNothing())
      .execute();
    return 'created';
  });
}
