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
  return {
    async createDatabase(name) {
      const database = `bench_${name.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`create database ${database}`);
      } finally {
        await admin.end();
      }
      const url = urlOf(database);
      const owner = connectDatabase(url, 2);
      try {
        await runMigrations(owner.pool);
        await installJobQueue(owner.pool);
      } finally {
        await owner.close();
      }
      return url;
    },
    stop: stopEmbedded,
  };
}
