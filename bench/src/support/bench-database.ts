import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { connectDatabase } from '../../../apps/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../../../apps/server/src/db/embedded.ts';
import { runMigrations } from '../../../apps/server/src/db/migrate.ts';
import { installJobQueue } from '../../../apps/server/src/messaging/queue/job-queue.ts';

export type BenchCluster = {
  /** A new database on the cluster, migrated (with the job queue's schema), owned by the cluster's user. */
  createDatabase(name: string): Promise<string>;
  /** Drops a database createDatabase made (its scenario is done), closing what still uses it. */
  dropDatabase(url: string): Promise<void>;
  /** e.g. 'PostgreSQL 17.5'. */
  serverVersion(): Promise<string>;
  stop(): Promise<void>;
};

/** BENCH_DATABASE_URL's server (a database on it is created per scenario), or a throwaway embedded cluster. */
export async function startBenchCluster(log: (line: string) => void): Promise<BenchCluster> {
  let adminUrl = process.env.BENCH_DATABASE_URL;
  let stopEmbedded = async () => {};
  if (!adminUrl) {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sms-bench-'));
    const embedded = await startEmbeddedPostgres(dataDir, log);
    adminUrl = embedded.connectionString('postgres');
    stopEmbedded = async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    };
  }
  const urlOf = (database: string) => {
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    return url.toString();
  };
  const adminQuery = async (sql: string) => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      return await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  const databaseName = (name: string) =>
    `bench_${name.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}_${Date.now().toString(36)}`;
  // Migrated once per run; each scenario's database is a copy of it (a fraction of a second,
  // where migrating anew took seconds per scenario of the quick run's two minutes).
  const migrateTemplate = async () => {
    const template = databaseName('template');
    await adminQuery(`create database ${template}`);
    const owner = connectDatabase(urlOf(template), 2);
    try {
      await runMigrations(owner.pool);
      await installJobQueue(owner.pool);
    } finally {
      // The pool itself: Kysely's destroy() ends only a pool it has used, and this one it never did.
      await owner.pool.end();
    }
    return template;
  };
  let template: Promise<string> | undefined;
  const dropDatabase = async (database: string) => {
    if (!/^bench_\w+$/.test(database)) throw new Error(`not a bench database: ${database}`);
    await adminQuery(`drop database if exists ${database} with (force)`);
  };
  return {
    async createDatabase(name) {
      template ??= migrateTemplate();
      const database = databaseName(name);
      await adminQuery(`create database ${database} template ${await template}`);
      return urlOf(database);
    },
    dropDatabase: (url) => dropDatabase(new URL(url).pathname.slice(1)),
    async serverVersion() {
      const { rows } = await adminQuery('show server_version');
      return `PostgreSQL ${String(rows[0].server_version).split(' ')[0]}`;
    },
    async stop() {
      if (template) await dropDatabase(await template).catch(() => {});
      await stopEmbedded();
    },
  };
}
