import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import { hashPassword } from '../modules/auth/passwords.ts';
import { findAnySystemAdmin, insertSystemAdmin } from './bootstrap.repository.ts';

export type FirstAdminOutcome = 'exists' | 'created' | 'missing';

/**
 * A deployment with no system admin gets one from ADMIN_EMAIL / ADMIN_PASSWORD. System admins
 * belong to no company: only the platform scope sees or creates them.
 */
export function ensureFirstAdmin(config: Config, db: Database): Promise<FirstAdminOutcome> {
  return inTenantTransaction(db, platformScope, async (trx) => {
    if (await findAnySystemAdmin(trx)) return 'exists';
    if (!config.adminEmail || !config.adminPassword) return 'missing';
    await insertSystemAdmin(trx, {
      name: 'System Administrator',
      email: config.adminEmail,
      passwordHash: await hashPassword(config.adminPassword),
    });
    return 'created';
  });
}
