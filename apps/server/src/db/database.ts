import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';

// int8 (ids, counts) as numbers: ids stay far below 2^53, and the API speaks numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export type Database = Kysely<DB>;
/** A repository runs on the database or inside a caller's transaction alike. */
export type Executor = Kysely<DB> | Transaction<DB>;

export type DatabaseHandle = { db: Database; pool: pg.Pool; close: () => Promise<void> };

export function connectDatabase(connectionString: string, poolSize = 10): DatabaseHandle {
  const pool = new pg.Pool({ connectionString, max: poolSize, connectionTimeoutMillis: 10_000 });
  // An idle client that loses its server emits here; without a listener the process would die.
  pool.on('error', (error) => console.error(`database connection error: ${error.message}`));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool, close: () => db.destroy() };
}
