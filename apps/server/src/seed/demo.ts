import { readFile } from 'node:fs/promises';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from '../db/schema.ts';
import { inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import { hashPassword } from '../modules/auth/passwords.ts';
import { regenerateCallbackTokens } from '../modules/callbacks/callback-tokens.ts';
import { allCompanyIds, analyzeTables, holdsAnyCompany, runScript } from './demo.repository.ts';

/** The engine's per-send state of messages loaded without the engine (message-sends-backfill.sql). */
export async function backfillScript() {
  return readFile(new URL('./message-sends-backfill.sql', import.meta.url), 'utf8');
}

export const DEMO_PASSWORD = 'Password123!';

export const DEMO_SIGN_INS = [
  { email: 'admin@example.com', role: 'system_admin', company: null },
  { email: 'owner@acme.example.com', role: 'company_admin', company: 'Acme Mobile' },
  { email: 'editor@acme.example.com', role: 'content_manager', company: 'Acme Mobile' },
  { email: 'viewer@acme.example.com', role: 'viewer', company: 'Acme Mobile' },
  { email: 'owner@globex.example.com', role: 'company_admin', company: 'Globex Telecom' },
] as const;

/**
 * Loads the demo data set in one transaction, with callback URLs for every company (their tokens
 * are encrypted, hence the key). Returns false (and changes nothing) when the database already
 * holds companies (demo or real): seeding never runs on top of data. Runs on the owner's pool,
 * bound to the platform scope so it sees and writes every company's rows even when the owner is
 * held to the policies (not a superuser).
 */
export async function seedDemoData(ownerPool: pg.Pool, encryptionKey: Buffer): Promise<boolean> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const template = await readFile(new URL('./demo-data.sql', import.meta.url), 'utf8');
  const script =
    template.replaceAll(':password_hash', pg.escapeLiteral(passwordHash)) + (await backfillScript());
  // Not destroyed afterwards: that would end the caller's pool.
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: ownerPool }) });
  const seeded = await inTenantTransaction(db, platformScope, async (trx) => {
    if (await holdsAnyCompany(trx)) return false;
    await runScript(trx, script);
    for (const companyId of await allCompanyIds(trx))
      await regenerateCallbackTokens(trx, companyId, encryptionKey);
    return true;
  });
  // Fresh tables have no statistics until autovacuum's first pass; without them the planner
  // misjudges the joins under row-level security (a send's recipient count took seconds, not ms).
  if (seeded) await analyzeTables(db);
  return seeded;
}
