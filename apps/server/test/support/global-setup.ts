import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { appRoleUrl, letAppRoleLogIn } from '../../src/db/app-role.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { installJobQueue } from '../../src/messaging/queue/job-queue.ts';
import { databaseUrl } from './database-url.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** appPassword: sms_app's, which the app under test logs in with (the role is the cluster's, shared by every database). */
    database: { adminUrl: string; template: string; appPassword: string };
  }
}

const STARTER = path.join(import.meta.dirname, 'embedded-postgres-process.ts');
const START_TIMEOUT_MS = 120_000;

/**
 * One PostgreSQL for the run (embedded, or TEST_DATABASE_URL's server), one migrated template
 * database; every test file clones the template (epic-stack's way: fast, isolated, real).
 * The embedded server runs in a child process: never import `embedded-postgres` here, its exit
 * hook would overwrite vitest's exit code (a failing run would exit 0).
 */
export default async function setup(project: TestProject) {
  let embedded: ChildProcess | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    embedded = spawnEmbeddedPostgres();
    adminUrl = await readConnectionUrl(embedded).catch(async (error) => {
      await stopEmbeddedPostgres(embedded);
      throw error;
    });
  }
  try {
    return await prepareTemplate(project, adminUrl, embedded);
  } catch (error) {
    await stopEmbeddedPostgres(embedded);
    throw error;
  }
}

async function prepareTemplate(project: TestProject, adminUrl: string, embedded: ChildProcess | undefined) {
  const template = `sms_template_${process.pid}`;
  const appPassword = randomBytes(18).toString('base64url');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${template}`);
  await admin.query(`create database ${template}`);
  const pool = new pg.Pool({ connectionString: databaseUrl(adminUrl, template), max: 1 });
  try {
    await runMigrations(pool);
    await installJobQueue(pool);
    await letAppRoleLogIn(pool, appRoleUrl(adminUrl, appPassword));
  } finally {
    await pool.end();
  }
  project.provide('database', { adminUrl, template, appPassword });

  return async () => {
    const leftovers = await admin.query(
      `select datname from pg_database where datname like 'sms_t_${process.pid}_%' or datname = $1`,
      [template],
    );
    for (const row of leftovers.rows)
      await admin.query(`drop database if exists ${row.datname} with (force)`);
    await admin.end();
    await stopEmbeddedPostgres(embedded);
  };
}

/**
 * Its own process group (`detached`), so a Ctrl-C at the terminal reaches vitest, whose teardown
 * stops it in order; if vitest dies instead, the closed stdin pipe stops it.
 */
function spawnEmbeddedPostgres() {
  return spawn(process.execPath, [STARTER], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
}

function readConnectionUrl(child: ChildProcess) {
  return new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(
      () => reject(new Error(`The embedded PostgreSQL did not start within ${START_TIMEOUT_MS / 1000} s.`)),
      START_TIMEOUT_MS,
    );
    const settle = () => {
      clearTimeout(timer);
      child.off('exit', onExit);
    };
    const onExit = (code: number | null, signal: string | null) => {
      settle();
      reject(
        new Error(`The embedded PostgreSQL process ended before it was ready (${signal ?? `exit ${code}`}).`),
      );
    };
    child.once('exit', onExit);
    child.once('error', (error) => {
      settle();
      reject(error);
    });
    lines.on('line', (line) => {
      if (!line.startsWith('postgres://')) return;
      settle();
      lines.close();
      resolve(line);
    });
  });
}

/** Ends its stdin (the starter stops PostgreSQL and deletes its data) and waits for it to exit. */
async function stopEmbeddedPostgres(child: ChildProcess | undefined) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGTERM'), 30_000);
  await exited;
  clearTimeout(timer);
}
