import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { Kysely, PostgresDialect, type PostgresPool, type Transaction } from 'kysely';
import pg from 'pg';
import { AppError } from '../errors.ts';
import { ReadLanes, registerReadLanes } from './read-lanes.ts';
import type { DB } from './schema.ts';
import {
  answerOf,
  isStalePlan,
  lastResult,
  leadOfStatements,
  type Pipelining,
  PreparedNames,
  preparable,
  preparesStatements,
  type StatementLead,
  sendLeadedStatement,
  withObjectRows,
} from './statements.ts';
import { fastTimestamptzParser } from './timestamp-parser.ts';

// int8 (ids, counts) as numbers: ids stay far below 2^53, and the API speaks numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));
// The same Dates as the driver's parser, read faster (db/timestamp-parser.ts): every list has them.
pg.types.setTypeParser(
  pg.types.builtins.TIMESTAMPTZ,
  fastTimestamptzParser(pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text')),
);

export type Database = Kysely<DB>;
/** A repository runs on the database or inside a caller's transaction alike. */
export type Executor = Kysely<DB> | Transaction<DB>;

export type DatabaseHandle = { db: Database; pool: pg.Pool; close: () => Promise<void> };

/**
 * The role the application's connections log in as (migration 0005 creates it, the start-up lets
 * it log in): no superuser, no BYPASSRLS, owns nothing and can become nothing else, so the row-level
 * security policies hold for every query it runs (db/app-role.ts checks it).
 */
export const APP_ROLE = 'sms_app';

/** A pool on the connection string; its user is who the connections are, for their whole life. */
export function connectDatabase(
  connectionString: string,
  poolSize = 10,
  options: { connectionTimeoutMillis?: number; readLanes?: number } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
  });
  // An idle client that loses its server emits here; without a listener the process would die.
  pool.on('error', (error) => console.error(`database connection error: ${error.message}`));
  // pg-pool listens only while a client is idle. One checked out that loses its server (a restart,
  // a failover, pg_terminate_backend) would emit 'error' with nobody listening, ending the process;
  // its query in flight or next one fails anyway, failing only that unit of work, and the pool
  // discards the client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparing(busyAware(pool)) }) });
  // The console's leaded reads go to a few shared connections (db/read-lanes.ts), the rest to the pool.
  const lanes = options.readLanes ? new ReadLanes(connectionString, options.readLanes) : undefined;
  if (lanes) registerReadLanes(db, lanes);
  return {
    db,
    pool,
    close: async () => {
      await lanes?.close();
      await db.destroy();
    },
  };
}

/** Seconds a client is asked to wait when no connection came free (the 503's Retry-After). */
export const BUSY_RETRY_AFTER_SECONDS = 1;

// pg-pool's two ways of giving up within connectionTimeoutMillis (its errors carry no code): every
// connection stayed checked out, or a new one did not finish opening. PostgreSQL's own refusal of
// one more connection is the same condition one step further.
const POOL_WAIT_EXPIRED =
  /^(timeout exceeded when trying to connect|Connection terminated due to connection timeout)$/;
const TOO_MANY_CONNECTIONS = '53300';

/**
 * The pool as Kysely sees it: a connection that does not come free in time is load, not a fault,
 * so it becomes a 503 with Retry-After (AppError 'unavailable') instead of an unhandled 500.
 */
function busyAware(pool: pg.Pool): PostgresPool {
  return {
    Client: (pool as unknown as { Client: PostgresPool['Client'] }).Client,
    options: pool.options,
    end: () => pool.end(),
    connect: async () => {
      try {
        return await pool.connect();
      } catch (error) {
        if (isConnectionShortage(error)) throw databaseBusy(error);
        throw error;
      }
    },
  };
}

function isConnectionShortage(error: unknown) {
  const { message, code } = error as { message?: string; code?: string };
  return code === TOO_MANY_CONNECTIONS || POOL_WAIT_EXPIRED.test(message ?? '');
}

function databaseBusy(cause: unknown) {
  const error = new AppError('unavailable', REQUEST_LIMIT_MESSAGES.serverBusy(BUSY_RETRY_AFTER_SECONDS), {
    headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) },
  });
  error.cause = cause;
  return error;
}

export {
  PREPARED_PER_CONNECTION,
  preparesStatements,
  type StatementLead,
  withPreparedStatements,
} from './statements.ts';

type PoolClient = Awaited<ReturnType<PostgresPool['connect']>>;
type ParsedStatements = { connection?: { parsedStatements?: Record<string, string> } };

/**
 * Kysely's connections, where inside withPreparedStatements every parameterised statement is
 * prepared by name (a hash of its text) once per connection: PostgreSQL then parses, analyses and
 * rewrites it (row security policies included) once instead of on every call. Statements
 * without values (BEGIN with the binding, COMMIT, several statements in one string) keep the
 * simple protocol. Only Kysely's clients are named; code using the pool directly is unchanged.
 */
function preparing(pool: PostgresPool): PostgresPool {
  const clients = new WeakMap<PoolClient, PoolClient>();
  return {
    ...pool,
    connect: async () => {
      const client = await pool.connect();
      let named = clients.get(client);
      if (!named) {
        named = namingClient(client);
        clients.set(client, named);
      }
      return named;
    },
  };
}

/**
 * The transaction a connection is in, as far as its statements say: the message that began and
 * bound it, what that answered, and whether every statement since was a read's prepared statement.
 */
type OpenTransaction = { begin: string; answer: string; onlyPreparedReads: boolean };

function namingClient(client: PoolClient): PoolClient {
  const names = new PreparedNames();
  let transaction: OpenTransaction | null = null;
  const parsed = () => (client as unknown as ParsedStatements).connection?.parsedStatements ?? {};
  /** The statement's name on this connection, the least recently used deallocated past the limit. */
  const preparedName = async (text: string) => {
    const { name, evicted } = names.use(text);
    if (evicted !== undefined) await deallocate(client, names, evicted, parsed());
    return name;
  };
  const sendNamed = (name: string, text: string, values: readonly unknown[]) =>
    client.query({ name, text, values: values as unknown[], rowMode: 'array' } as never);
  const execute = async (text: string, values: readonly unknown[]) => {
    // Only a read request prepares, but a SELECT is the one kind of statement that reads alone.
    if (transaction && !/^\s*select\b/i.test(text)) transaction.onlyPreparedReads = false;
    const name = await preparedName(text);
    return withObjectRows(await sendNamed(name, text, values));
  };
  const unnamed = async (text: string, values: readonly unknown[]) => {
    const result = await client.query(text, values as unknown[]);
    // Begun again, a transaction reads a newer snapshot: only READ COMMITTED (the default) allows that.
    if (/^\s*begin\b/i.test(text))
      transaction = {
        begin: text,
        answer: answerOf(result),
        onlyPreparedReads: !/\bisolation\b/i.test(text),
      };
    else if (/^\s*(commit|rollback|end|abort)\s*;?\s*$/i.test(text)) transaction = null;
    else if (transaction) transaction.onlyPreparedReads = false;
    return lastResult(result);
  };
  /** A lead's group on this pooled connection, in pipeline mode for its three queries only. */
  const withLead = async (lead: StatementLead, text: string, values: readonly unknown[]) => {
    const name = preparable(values) ? await preparedName(text) : undefined;
    const pipelined = client as unknown as Pipelining;
    pipelined.pipeline = true;
    try {
      return await sendLeadedStatement(client as never, lead, text, values, name);
    } finally {
      pipelined.pipeline = false;
    }
  };
  const query = async (text: string, values?: readonly unknown[]) => {
    const lead = leadOfStatements();
    if (lead) {
      try {
        return await withLead(lead, text, values ?? []);
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        // As below; the statement was its own transaction, so it is simply sent again.
        names.renew();
        return withLead(lead, text, values ?? []);
      }
    }
    if (values === undefined || !preparable(values) || !preparesStatements())
      return unnamed(text, values ?? []);
    try {
      return await execute(text, values);
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      // A migration changed a table under a prepared `select *` (a deploy while this process runs):
      // PostgreSQL refuses the statement from then on. New names prepare every statement afresh;
      // the old ones are deallocated as they age out.
      names.renew();
      // The refusal aborted the transaction. Where it had only read, the same transaction is begun
      // again (the same message: the same binding, the sign-in looked up again) and the statement
      // prepared afresh, once; anything else fails as before.
      if (!(await begunAgain())) throw error;
      return execute(text, values);
    }
  };
  /**
   * Rolls back a transaction that only read and begins it again with its own message, if that
   * answers as it did the first time (the same user, still admitted). Under READ COMMITTED every
   * statement reads its own snapshot, so the reads already answered lose nothing.
   */
  const begunAgain = async () => {
    const open = transaction;
    if (!open?.onlyPreparedReads) return false;
    await client.query('rollback', []);
    transaction = null;
    const result = await client.query(open.begin, []);
    transaction = { ...open };
    if (answerOf(result) === open.answer) return true;
    // Bound otherwise now (signed out, suspended): that transaction is not this request's.
    await client.query('rollback', []);
    transaction = null;
    return false;
  };
  return {
    query: ((textOrConfig: unknown, values?: readonly unknown[]) => {
      if (typeof textOrConfig === 'string') return query(textOrConfig, values);
      if (transaction) transaction.onlyPreparedReads = false;
      return client.query(textOrConfig as never);
    }) as PoolClient['query'],
    release: (destroy?: boolean) => client.release(destroy),
    get processID() {
      return (client as unknown as { processID?: number }).processID;
    },
  } as PoolClient;
}

async function deallocate(
  client: PoolClient,
  names: PreparedNames,
  evicted: string,
  parsed: Record<string, string>,
) {
  // A statement whose Parse failed never existed on the server.
  if (parsed[evicted] === undefined) return;
  try {
    await client.query(`deallocate "${evicted}"`, []);
    delete parsed[evicted];
  } catch {
    // In a failed transaction the next statement fails anyway; the statement stays prepared.
    names.keep(evicted);
  }
}
