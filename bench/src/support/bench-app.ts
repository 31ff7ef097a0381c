import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type App, buildApp } from '../../../apps/server/src/app.ts';
import type { AppDeps } from '../../../apps/server/src/app-deps.ts';
import { loadConfig } from '../../../apps/server/src/config.ts';
import { APP_ROLE, connectDatabase, type DatabaseHandle } from '../../../apps/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../../../apps/server/src/db/embedded.ts';
import { runMigrations } from '../../../apps/server/src/db/migrate.ts';
import { createMessaging } from '../../../apps/server/src/messaging/messaging.ts';
import { installJobQueue } from '../../../apps/server/src/messaging/queue/job-queue.ts';

export type BenchApp = {
  app: App;
  deps: AppDeps;
  pool: DatabaseHandle['pool'];
  /** The schema owner's handle (fixtures across companies), same as deps.db unless appRole. */
  owner: DatabaseHandle;
  close: () => Promise<void>;
};

/** The real app on a throwaway embedded database (or BENCH_DATABASE_URL), migrated and empty. */
/**
 * With appRole, the app's connections act as sms_app as in production (row-level security holds,
 * so fixtures go through `owner`); otherwise everything runs as the owner.
 */
export async function startBenchApp(
  env: Record<string, string> = {},
  options: { appRole?: boolean; poolSize?: number } = {},
): Promise<BenchApp> {
  let dataDir: string | undefined;
  let stopEmbedded = async () => {};
  let url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sms-bench-'));
    const embedded = await startEmbeddedPostgres(dataDir, () => {});
    url = embedded.connectionString('postgres');
    stopEmbedded = embedded.stop;
  }
  const config = loadConfig({
    DATABASE_URL: url,
    ENCRYPTION_KEY: 'b'.repeat(64),
    JWT_SECRET: 'c'.repeat(32),
    LOG_LEVEL: 'silent',
    // A bench is one client sending as fast as it can: measure the work, not the limiter.
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000000',
    RATE_LIMIT_VALIDATE_PER_MINUTE: '100000000',
    RATE_LIMIT_CALLBACKS_PER_SECOND: '100000000',
    ...env,
  });
  const owner = connectDatabase(url, options.appRole ? 4 : (options.poolSize ?? 10));
  await runMigrations(owner.pool);
  await installJobQueue(owner.pool);
  const handle = options.appRole ? connectDatabase(url, options.poolSize ?? 10, { role: APP_ROLE }) : owner;
  const messaging = createMessaging({
    db: handle.db,
    pool: handle.pool,
    config,
    encryptionKey: Buffer.from('b'.repeat(64), 'hex'),
    log: (level, message, error) => {
      if (level !== 'info') console.error(`messaging ${level}: ${message} ${error ?? ''}`);
    },
  });
  const deps: AppDeps = {
    messaging,
    config,
    db: handle.db,
    keys: { jwt: new TextEncoder().encode(config.jwtSecret), encryption: Buffer.from('b'.repeat(64), 'hex') },
  };
  const app = await buildApp(deps, { serveConsole: false });
  await app.ready();
  return {
    app,
    deps,
    pool: handle.pool,
    owner,
    close: async () => {
      await app.close();
      await messaging.close();
      await handle.close();
      if (owner !== handle) await owner.close();
      await stopEmbedded();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
