import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';

/*
 * How the console's statements travel: prepared by name, their rows built as objects, and a read's
 * statement sent with the lead that begins and binds its transaction. Shared by the pool's
 * connections (db/database.ts) and the read lanes (db/read-lanes.ts).
 */

/**
 * Statements a connection keeps prepared at most. The application has a few hundred distinct
 * parameterised statements; dynamic ones (an IN-list of any length) would otherwise grow each
 * backend's memory without end. The least recently used is deallocated past this.
 */
export const PREPARED_PER_CONNECTION = 200;

/** Statements with more values than this are bulk writes of varying shape: left unnamed. */
const MAX_PREPARED_VALUES = 64;

/** Whether a statement with these values is prepared by name (one without values is simple protocol). */
export const preparable = (values: readonly unknown[]) =>
  values.length > 0 && values.length <= MAX_PREPARED_VALUES;

/**
 * A connection's prepared statements by name, least recently used first (a Map keeps insertion
 * order; a hit moves to the end), at most PREPARED_PER_CONNECTION: the pool's connections and the
 * read lanes keep their names alike. After a statement went stale (a migration changed a table
 * under a prepared `select *`), `renew` gives every statement a new name, so each is prepared afresh
 * and the old names age out.
 */
export class PreparedNames {
  #names = new Map<string, true>();
  #generation = 0;

  /** The text's name; `evicted`: the least recently used name, dropped to make room (to deallocate). */
  use(text: string): { name: string; evicted: string | undefined } {
    const name = this.#generation === 0 ? statementName(text) : `${statementName(text)}_${this.#generation}`;
    if (this.#names.delete(name)) {
      this.#names.set(name, true);
      return { name, evicted: undefined };
    }
    let evicted: string | undefined;
    if (this.#names.size >= PREPARED_PER_CONNECTION) {
      evicted = this.#names.keys().next().value as string;
      this.#names.delete(evicted);
    }
    this.#names.set(name, true);
    return { name, evicted };
  }

  /** An evicted name the server still holds (its deallocation failed): kept, as the most recent. */
  keep(name: string) {
    this.#names.set(name, true);
  }

  renew() {
    this.#generation += 1;
  }
}

/** pg's client in pipeline mode (pg 8.23: queries written without waiting for the one before). */
export type Pipelining = { pipeline: boolean; connection: { stream: { cork(): void; uncork(): void } } };

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
 * `preparing` in db/database.ts): the console's requests, which run the same few hundred statements over and over.
 * Everything else (the engine, delivery reports, jobs, sign-in) keeps unnamed statements.
 * With `lead`, each statement is its own transaction, begun and bound by the lead (StatementLead).
 */
export function withPreparedStatements<T>(work: () => Promise<T>, lead: StatementLead | null = null) {
  return preparedScope.run(lead ? { lead } : NO_LEAD, work);
}

export function preparesStatements() {
  return preparedScope.getStore() !== undefined;
}

export const leadOfStatements = () => preparedScope.getStore()?.lead ?? null;

/** What a lead's group needs of a pg client: its queries, and its socket to write a group at once. */
type GroupClient = {
  query(text: string, values: unknown[]): Promise<unknown>;
  query(config: { name: string; text: string; values: unknown[]; rowMode: 'array' }): Promise<unknown>;
};

/**
 * BEGIN with the lead's binding, the statement and COMMIT, written to the socket at once (the
 * client must be in pg's pipeline mode) and answered in one round trip. The group is its own
 * transaction, so groups of different requests may follow each other on one connection. The lead's
 * answer is checked before the statement's is used; a failed statement leaves nothing open (its
 * COMMIT answers as a ROLLBACK). `name`: the statement's prepared name on this connection, if any.
 */
export async function sendLeadedStatement(
  client: GroupClient,
  lead: StatementLead,
  text: string,
  values: readonly unknown[],
  name: string | undefined,
) {
  const stream = (client as unknown as Pipelining).connection.stream;
  let sent: Promise<unknown>[];
  stream.cork();
  try {
    sent = [
      client.query(lead.begin, []),
      name === undefined
        ? client.query(text, values as unknown[])
        : client.query({ name, text, values: values as unknown[], rowMode: 'array' }),
      client.query('commit', []),
    ];
  } finally {
    // A socket left corked would hold every later message of this connection.
    stream.uncork();
  }
  const [begun, statement] = await Promise.allSettled(sent);
  if (begun.status === 'rejected') throw begun.reason;
  lead.check((lastResult(begun.value) as { rows: unknown[] }).rows);
  if (statement.status === 'rejected') throw statement.reason;
  return name === undefined ? statement.value : withObjectRows(statement.value);
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
export function withObjectRows<R>(result: R): R {
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
export function lastResult<R>(result: R | R[]): R {
  return Array.isArray(result) ? (result[result.length - 1] as R) : result;
}

/** What a begin message answered (its rows, the last statement's), to compare a second answer with. */
export function answerOf(result: unknown) {
  return JSON.stringify((lastResult(result) as { rows?: unknown[] }).rows ?? []);
}

export function isStalePlan(error: unknown) {
  const { code, message } = error as { code?: string; message?: string };
  return code === '0A000' && message === 'cached plan must not change result type';
}

// Statement texts seen recently and their names, so a text is hashed once, not on every call.
const namesByText = new Map<string, string>();
const NAMES_REMEMBERED = 5_000;

export function statementName(text: string) {
  let name = namesByText.get(text);
  if (name === undefined) {
    name = `k${createHash('sha1').update(text).digest('base64url')}`;
    if (namesByText.size >= NAMES_REMEMBERED) namesByText.clear();
    namesByText.set(text, name);
  }
  return name;
}
