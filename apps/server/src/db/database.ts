import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';

// int8 (ids, counts) as numbers: ids stay far below 2^53, and the API speaks numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export type Database = Kysely<DB>;
/** A repository runs on the database or inside a caller's transaction alike. */
export type Executor = Kysely<DB> | Transaction<DB>;

export type DatabaseHandle = { db: Database; pool: pg.Pool; close: () => Promise<void> };

/**
 * The role the application's connections act as (migration 0005): no superuser, no BYPASSRLS,
 * not the tables' owner, so the row-level security policies hold for every query it runs.
 */
export const APP_ROLE = 'sms_app';

/**
 * A pool on the connection string. With `role`, every connection acts as that role from its first
 * packet (`-c role=...` in the startup options, as SET ROLE would): a connection that cannot take
 * the role fails to open instead of running as the connecting user.
 */
export function connectDatabase(
  connectionString: string,
  poolSize = 10,
  options: { role?: string } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.role ? withStartupRole(connectionString, options.role) : connectionString,
    max: poolSize,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client that loses its server emits here; without a listener the process would die.
  pool.on('error', (error) => console.error(`database connection error: ${error.message}`));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, close: () => db.destroy() };
}

/**
 * Adds `-c role=<role>` to the URL's own `options` parameter (pg lets the URL's parameters win
 * over the pool config, so it has to go into the URL to be kept).
 */
function withStartupRole(connectionString: string, role: string) {
  const url = new URL(connectionString);
  const options = url.searchParams.get('options');
  url.searchParams.set('options', `${options ? `${options} ` : ''}-c role=${role}`);
  return url.toString();
}
