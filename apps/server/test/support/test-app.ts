import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type App, buildApp } from '../../src/app.ts';
import type { AppDeps } from '../../src/app-deps.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { appRoleUrl, assertRowSecurityHolds } from '../../src/db/app-role.ts';
import { connectDatabase, type DatabaseHandle, NO_STATEMENT_TIMEOUTS } from '../../src/db/database.ts';
import { createMessaging } from '../../src/messaging/messaging.ts';
import { databaseUrl, withAdmin } from './database-url.ts';

export const TEST_ENCRYPTION_KEY = 'a'.repeat(64);

/**
 * `db`/`pool` are the app's own handle: its connections log in as sms_app
 * (`config.databaseAppUrl`), so row-level security holds there exactly as in production (unbound
 * work sees nothing). `ownerDb`/`ownerPool` connect as the schema's owner (a superuser here,
 * `config.databaseUrl`): fixtures across companies and assertions on what was stored go there.
 */
export type TestContext = {
  app: App;
  deps: AppDeps;
  db: AppDeps['db'];
  /** The engine's and jobs' handle on the same pool (their longer statement timeout). */
  jobDb: AppDeps['db'];
  pool: DatabaseHandle['pool'];
  ownerDb: AppDeps['db'];
  ownerPool: DatabaseHandle['pool'];
  config: Config;
  close: () => Promise<void>;
};

let sequence = 0;

/** A fresh database cloned from the migrated template, and the real app on top of it. */
export async function createTestContext(
  env: Record<string, string> = {},
  /** Another server than the run's (a cluster the test kills: killable-postgres.ts). */
  server: { adminUrl: string; template: string; appPassword: string } = inject('database'),
): Promise<TestContext> {
  const { adminUrl, template, appPassword } = server;
  const name = `sms_t_${process.pid}_${Date.now().toString(36)}_${sequence++}`;
  await withAdmin(adminUrl, (admin) => admin.query(`create database ${name} template ${template}`));
  const url = databaseUrl(adminUrl, name);
  const config = loadConfig({
    DATABASE_URL: url,
    DATABASE_APP_URL: appRoleUrl(url, appPassword),
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    JWT_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_URL: 'http://sms.test',
    LOG_LEVEL: 'silent',
    // Tests send more requests a minute than any client would; rate-limit tests set their own limits.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
    RATE_LIMIT_VALIDATE_PER_MINUTE: '1000000',
    RATE_LIMIT_CALLBACK_BAD_TOKENS_PER_MINUTE: '1000000',
    // The fakes of Africa's Talking and an SMSC listen there; every other private address stays refused.
    PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    ...env,
  });
  const owner = connectDatabase(url, 5, { statementTimeouts: NO_STATEMENT_TIMEOUTS });
  const handle = connectDatabase(config.databaseAppUrl!, 5, { statementTimeouts: config.statementTimeouts });
  await assertRowSecurityHolds(handle);
  // The queue starts on first use; the worker side only where a test starts it (messaging tests).
  const messaging = createMessaging({
    db: handle.jobDb,
    pool: handle.jobPool,
    config,
    encryptionKey: Buffer.from(TEST_ENCRYPTION_KEY, 'hex'),
    log: () => {},
  });
  const deps: AppDeps = {
    messaging,
    config,
    db: handle.db,
    keys: {
      jwt: new TextEncoder().encode(config.jwtSecret),
      encryption: Buffer.from(TEST_ENCRYPTION_KEY, 'hex'),
    },
  };
  const app = await buildApp(deps, { serveConsole: false });
  await app.ready();
  return {
    app,
    deps,
    db: handle.db,
    jobDb: handle.jobDb,
    pool: handle.pool,
    ownerDb: owner.db,
    ownerPool: owner.pool,
    config,
    close: async () => {
      await app.close();
      await messaging.close();
      await handle.close();
      await owner.close();
      await withAdmin(adminUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`));
    },
  };
}
