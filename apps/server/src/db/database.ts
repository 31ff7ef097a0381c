import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { ListenConfig } from './channel-listener.ts';
import type { DB } from './schema.ts';

// int8 (ids, counts) as numbers: ids stay far below 2^53, and the API speaks numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export type Database = Kysely<DB>;
/** A repository runs on the database or inside a caller's transaction alike. */
export type Executor = Kysely<DB> | Transaction<DB>;

/**
 * `db` for requests' work, `jobDb` for the engine's and the queue's, each with its statement timeout.
 * Two pools, so that a request never waits for a connection behind its own process's jobs (a pool
 * is lazy: a process that only serves opens no job connections).
 */
export type DatabaseHandle = {
  db: Database;
  jobDb: Database;
  pool: pg.Pool;
  jobPool: pg.Pool;
  close: () => Promise<void>;
};

/** The role the application logs in as, which row-level security holds (db/app-role.ts checks it). */
export const APP_ROLE = 'sms_app';

/** A request answers within seconds or not at all, a job may take longer (db/tenant-scope.ts sets it). */
export type StatementTimeouts = { requestMs: number; jobMs: number };

export const DEFAULT_STATEMENT_TIMEOUTS: StatementTimeouts = { requestMs: 5_000, jobMs: 60_000 };
/** The owner's: migrations and the demo seed. */
export const NO_STATEMENT_TIMEOUTS: StatementTimeouts = { requestMs: 0, jobMs: 0 };

export type ConnectOptions = {
  connectionTimeoutMillis?: number;
  statementTimeouts?: StatementTimeouts;
  /** A read replica's URL: signed-in GET requests read there (db/actor-transaction.ts). */
  readUrl?: string;
  /** Where LISTEN connects instead of the pool's URL (db/channel-listener.ts). */
  listenUrl?: string;
};

/** What a Kysely instance was opened with, read by the code that opens its transactions (db/tenant-scope.ts). */
type DatabaseSettings = { statementTimeoutMs: number; replica?: Database; pool?: pg.Pool };

const settingsByDatabase = new WeakMap<object, DatabaseSettings>();

/** A Kysely instance connectDatabase did not open (the demo seed's) has no statement timeout. */
export const settingsOf = (db: object): DatabaseSettings =>
  settingsByDatabase.get(db) ?? { statementTimeoutMs: 0 };

/** A pool for requests and one for jobs, and with `readUrl` one on a read replica, with Kysely over each. */
export function connectDatabase(
  connectionString: string,
  poolSize = 10,
  options: ConnectOptions = {},
): DatabaseHandle {
  const { requestMs, jobMs } = options.statementTimeouts ?? DEFAULT_STATEMENT_TIMEOUTS;
  const replica = options.readUrl ? openPool(options.readUrl, poolSize, options, requestMs) : undefined;
  const primary = openPool(connectionString, poolSize, options, requestMs, replica?.db);
  const jobs = openPool(connectionString, poolSize, options, jobMs);
  return {
    db: primary.db,
    jobDb: jobs.db,
    pool: primary.pool,
    jobPool: jobs.pool,
    close: async () => {
      await replica?.db.destroy();
      await jobs.db.destroy();
      await primary.db.destroy();
    },
  };
}

/**
 * Statements kept prepared on each connection, planned once as a PL/pgSQL function's are (Kysely
 * sends every statement unnamed). A repository registers its text once, at module scope, and runs
 * it with its values: `db.executeQuery(CompiledQuery.raw(text, values))`.
 */
const statementNames = new Map<string, string>();

export function namedStatement(name: string, text: string) {
  for (const [known, knownName] of statementNames) {
    if (knownName === name && known !== text) throw new Error(`Two statements named ${name}`);
  }
  statementNames.set(text, name);
  return text;
}

class NamedStatementClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg's query has a dozen overloads; all but one pass through.
  override query(...args: any[]): any {
    const name = args.length === 2 && typeof args[0] === 'string' ? statementNames.get(args[0]) : undefined;
    if (name !== undefined) return super.query({ name, text: args[0], values: args[1] });
    return (super.query as (...all: unknown[]) => unknown).apply(this, args);
  }
}

function openPool(
  connectionString: string,
  max: number,
  options: ConnectOptions,
  statementTimeoutMs: number,
  replica?: Database,
) {
  const config: pg.PoolConfig & ListenConfig = {
    connectionString,
    max,
    Client: NamedStatementClient,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    listenConnectionString: options.listenUrl,
  };
  const pool = new pg.Pool(config);
  // A client that loses its server emits 'error': without a listener the process would die. pg-pool
  // listens only while a client is idle; a checked-out one's query fails anyway, failing only its work.
  pool.on('error', (error) => console.error(`database connection error: ${error.message}`));
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  settingsByDatabase.set(db, { statementTimeoutMs, replica, pool });
  return { pool, db };
}
