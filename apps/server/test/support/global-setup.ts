import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { connectDatabase } from '../../src/db/database.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { databaseUrl } from './database-url.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    database: { adminUrl: string; template: string };
  }
}

/**
 * One PostgreSQL for the run (embedded, or TEST_DATABASE_URL's server), one migrated template
 * database; every test file clones the template (epic-stack's way: fast, isolated, real).
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedServer | undefined;
  let dataDir: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sms-test-pg-'));
    embedded = await startEmbeddedPostgres(dataDir, () => {});
    adminUrl = embedded.connectionString('postgres');
  }
  const template = `sms_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${template}`);
  await admin.query(`create database ${template}`);
  const handle = connectDatabase(databaseUrl(adminUrl, template), 2);
  await runMigrations(handle.pool);
  await handle.close();
  project.provide('database', { adminUrl, template });

  return async () => {
    const leftovers = await admin.query(
      `select datname from pg_database where datname like 'sms_t_${process.pid}_%' or datname = $1`,
      [template],
    );
    for (const row of leftovers.rows)
      await admin.query(`drop database if exists ${row.datname} with (force)`);
    await admin.end();
    await embedded?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };
}
