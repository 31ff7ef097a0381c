import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { Kysely, PostgresDialect, type PostgresPool, type Transaction } from 'kysely';
import pg from 'pg';
import { AppError } from '../errors.ts';
import type { DB } from './schema.ts';
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
  options: { role?: string; connectionTimeoutMillis?: number } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.role ? withStartupRole(connectionString, options.role) : connectionString,
    max: poolSize,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
  });
  // An idle client that loses its server emits here; without a listener the process would die.
  pool.on('error', (error) => console.error(`database connection error: ${error.message}`));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparing(busyAware(pool)) }) });
  return { db, pool, close: () => db.destroy() };
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

/**
 * Statements a connection keeps prepared at most. The application has a few hundred distinct
 * parameterised statements; dynamic ones (an IN-list of any length) would otherwise grow each
 * backend's memory without end. The least recently used is deallocated past this.
 */
export const PREPARED_PER_CONNECTION = 200;

/** Statements with more values than this are bulk writes of varying shape: left unnamed. */
const MAX_PREPARED_VALUES = 64;

/** Whether a statement with these values is prepared by name (one without values is simple protocol). */
const preparable = (values: readonly unknown[]) => values.length > 0 && values.length <= MAX_PREPARED_VALUES;

type PoolClient = Awaited<ReturnType<PostgresPool['connect']>>;
/** pg's client in pipeline mode (pg 8.23: queries written without waiting for the one before). */
type Pipelining = { pipeline: boolean; connection: { stream: { cork(): void; uncork(): void } } };
type ParsedStatements = { connection?: { parsedStatements?: Record<string, string> } };

/**
 * What goes out with each statement of a read whose signed-in user was not looked up first
 * (plugins/authenticate.ts): `begin` (BEGIN and the session lookup that binds the transaction, one
 * simple-protocol string), the statement, and COMMIT are written together and answered in one round
 * trip; `check` is given the lookup's answer and throws when it is not the user the request was
 * worked on for, so the statement's rows are never used.
 */
export type StatementLead = { begin: string; check: (answer: unknown[]) => void };

const preparedScope = new AsyncLocalStorage<{ lead: StatementLead | null }>();
const NO_LEAD = { lead: null };

/**
 * Runs work whose parameterised statements are prepared by name on their connection (see
 * `preparing`): the console's requests, which run the same few hundred statements over and over.
 * Everything else (the engine, delivery reports, jobs, sign-in) keeps unnamed statements.
 * With `lead`, each statement is its own transaction, begun and bound by the lead (StatementLead).
 */
export function withPreparedStatements<T>(work: () => Promise<T>, lead: StatementLead | null = null) {
  return preparedScope.run(lead ? { lead } : NO_LEAD, work);
}

export function preparesStatements() {
  return preparedScope.getStore() !== undefined;
}

const leadOfStatements = () => preparedScope.getStore()?.lead ?? null;

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
  // Names in least-recently-used order (a Map keeps insertion order; a hit moves to the end).
  const prepared = new Map<string, true>();
  let generation = 0;
  let transaction: OpenTransaction | null = null;
  const parsed = () => (client as unknown as ParsedStatements).connection?.parsedStatements ?? {};
  const nameOf = (text: string) =>
    generation === 0 ? statementName(text) : `${statementName(text)}_${generation}`;
  /** The statement's name on this connection, kept among the most recently used (PREPARED_PER_CONNECTION). */
  const preparedName = async (text: string) => {
    const name = nameOf(text);
    if (prepared.delete(name)) prepared.set(name, true);
    else {
      if (prepared.size >= PREPARED_PER_CONNECTION) await deallocateOldest(client, prepared, parsed());
      prepared.set(name, true);
    }
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
  /**
   * BEGIN with the lead's binding, the statement and COMMIT written to the socket at once (pg's
   * pipeline mode, for these three only) and answered in one round trip instead of three. The lead's
   * answer is checked before the statement's is used; a failed statement leaves nothing open (its
   * COMMIT answers as a ROLLBACK).
   */
  const withLead = async (lead: StatementLead, text: string, values: readonly unknown[]) => {
    const name = preparable(values) ? await preparedName(text) : undefined;
    const pipelined = client as unknown as Pipelining;
    const stream = pipelined.connection.stream;
    pipelined.pipeline = true;
    let answers: PromiseSettledResult<unknown>[];
    try {
      let sent: unknown[];
      stream.cork();
      try {
        sent = [
          client.query(lead.begin, []),
          name === undefined ? client.query(text, values as unknown[]) : sendNamed(name, text, values),
          client.query('commit', []),
        ];
      } finally {
        // A socket left corked would hold every later message of this connection.
        stream.uncork();
      }
      answers = await Promise.allSettled(sent);
    } finally {
      pipelined.pipeline = false;
    }
    const [begun, statement] = answers;
    if (begun.status === 'rejected') throw begun.reason;
    lead.check((lastResult(begun.value) as { rows: unknown[] }).rows);
    if (statement.status === 'rejected') throw statement.reason;
    return name === undefined ? statement.value : withObjectRows(statement.value);
  };
  const query = async (text: string, values?: readonly unknown[]) => {
    const lead = leadOfStatements();
    if (lead) {
      try {
        return await withLead(lead, text, values ?? []);
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        // As below; the statement was its own transaction, so it is simply sent again.
        generation += 1;
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
      generation += 1;
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

type ArrayResult = { fields?: { name: string }[]; rows: unknown[] };
type RowOf = (values: unknown[]) => Record<string, unknown>;

// Row builders by their columns' names: the console runs a few hundred distinct statements.
const rowBuilders = new Map<string, RowOf | null>();
const ROW_BUILDERS_REMEMBERED = 2_000;

/**
 * A prepared statement's rows as objects, built from the driver's arrays by one object literal per
 * set of column names. The driver spreads a template object into each row, and with the many shapes
 * of the console's statements that was its costliest step on a list (pg's parseRow: 2.6% of the
 * API's busy time, more than the rest of its reading of answers). The same rows: the same keys in the
 * same order, the last of two same-named columns wins, values parsed by the same type parsers.
 */
function withObjectRows<R>(result: R): R {
  const { fields, rows } = result as unknown as ArrayResult;
  if (!fields || rows.length === 0) return result;
  const rowOf = rowBuilderOf(fields);
  for (let i = 0; i < rows.length; i++) rows[i] = rowOf(rows[i] as unknown[]);
  return result;
}

function rowBuilderOf(fields: { name: string }[]): RowOf {
  const key = fields.map((field) => field.name).join('\u0000');
  let rowOf = rowBuilders.get(key);
  if (rowOf === undefined) {
    // A column named __proto__ would set the literal's prototype: such rows are built by assignment.
    rowOf = fields.some((field) => field.name === '__proto__')
      ? null
      : // Names are written as JSON string literals: nothing in a column's name can escape them.
        (new Function(
          'values',
          `return {${fields.map((field, i) => `${JSON.stringify(field.name)}: values[${i}]`).join(', ')}};`,
        ) as RowOf);
    if (rowBuilders.size >= ROW_BUILDERS_REMEMBERED) rowBuilders.clear();
    rowBuilders.set(key, rowOf);
  }
  return rowOf ?? ((values) => assignedRow(fields, values));
}

/** As the driver builds it: own data properties, even one named __proto__. */
function assignedRow(fields: { name: string }[], values: unknown[]) {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < fields.length; i++)
    Object.defineProperty(row, fields[i].name, {
      value: values[i],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return row;
}

/**
 * Several statements in one string (simple protocol) answer with one result each; Kysely reads one,
 * so it gets the last (the session lookup after its BEGIN: auth.repository's beginSessionTransaction).
 */
function lastResult<R>(result: R | R[]): R {
  return Array.isArray(result) ? (result[result.length - 1] as R) : result;
}

/** What a begin message answered (its rows, the last statement's), to compare a second answer with. */
function answerOf(result: unknown) {
  return JSON.stringify((lastResult(result) as { rows?: unknown[] }).rows ?? []);
}

function isStalePlan(error: unknown) {
  const { code, message } = error as { code?: string; message?: string };
  return code === '0A000' && message === 'cached plan must not change result type';
}

async function deallocateOldest(
  client: PoolClient,
  prepared: Map<string, true>,
  parsed: Record<string, string>,
) {
  const oldest = prepared.keys().next().value as string;
  prepared.delete(oldest);
  // A statement whose Parse failed never existed on the server.
  if (parsed[oldest] === undefined) return;
  try {
    await client.query(`deallocate "${oldest}"`, []);
    delete parsed[oldest];
  } catch {
    // In a failed transaction the next statement fails anyway; the statement stays prepared.
    prepared.set(oldest, true);
  }
}

// Statement texts seen recently and their names, so a text is hashed once, not on every call.
const namesByText = new Map<string, string>();
const NAMES_REMEMBERED = 5_000;

function statementName(text: string) {
  let name = namesByText.get(text);
  if (name === undefined) {
    name = `k${createHash('sha1').update(text).digest('base64url')}`;
    if (namesByText.size >= NAMES_REMEMBERED) namesByText.clear();
    namesByText.set(text, name);
  }
  return name;
}
