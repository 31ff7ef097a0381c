import { Kysely, PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';
import {
  isStalePlan,
  leadOfStatements,
  type Pipelining,
  PreparedNames,
  preparable,
  type StatementLead,
  sendLeadedStatement,
} from './statements.ts';

type NamedStatements = {
  connection: { parsedStatements: Record<string, string>; submittedNamedStatements: Record<string, string> };
};

/** SQLSTATE 26000: the server knows no statement by that name (deallocated, or its Parse failed). */
const isMissingStatement = (error: unknown) => (error as { code?: string }).code === '26000';

/**
 * The console's leaded reads (db/leaded-read.ts) on a few connections shared by every request,
 * in pg's pipeline mode: each read is one group (BEGIN with the session lookup, its statement,
 * COMMIT: its own transaction, statements.ts), written behind the groups already in flight instead
 * of waiting for a connection of its own. A backend with work queued on its socket goes from one
 * group to the next without sleeping, and a handful of backends, not one per request in flight,
 * share the cores with the API: on two cores, two lanes answered `GET /messages` 40-80% more often
 * than the pool of ten, at a third less CPU a request (ADR 0012, 27 November, night).
 * Writes, and a sign-in's first read, keep the pool: they hold a transaction across statements.
 */
export class ReadLanes {
  /** Kysely over the lanes: a statement run here must be inside withPreparedStatements with a lead. */
  readonly db: Kysely<DB>;
  readonly #lanes: Lane[];
  readonly #waiting: (() => void)[] = [];

  constructor(connectionString: string, count: number) {
    this.#lanes = Array.from({ length: count }, () => new Lane(connectionString));
    this.db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: this.#asPool() }) });
  }

  /** The lane with the fewest groups in flight: a slow read holds up only what queued behind it. */
  async run(lead: StatementLead, text: string, values: readonly unknown[]) {
    // Behind those already waiting, in the order they came: a read is never overtaken by a later one.
    if (this.#waiting.length > 0 || this.#leastBusy().inFlight >= IN_FLIGHT_PER_LANE)
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await this.#leastBusy().run(lead, text, values);
    } finally {
      this.#waiting.shift()?.();
    }
  }

  #leastBusy() {
    let lane = this.#lanes[0];
    for (const other of this.#lanes) if (other.inFlight < lane.inFlight) lane = other;
    return lane;
  }

  async close() {
    await Promise.all(this.#lanes.map((lane) => lane.close()));
  }

  /** What Kysely takes for a pool: every checkout is the same stateless handle onto the lanes. */
  #asPool(): PostgresPool {
    const handle = {
      query: (text: string, values?: readonly unknown[]) => {
        const lead = leadOfStatements();
        if (!lead) return Promise.reject(new Error("A read lane runs only a leaded read's statements"));
        return this.run(lead, text, values ?? []);
      },
      release: () => {},
    };
    return { connect: async () => handle, end: async () => {} } as unknown as PostgresPool;
  }
}

/**
 * Groups a lane carries at once; later reads wait their turn in the API, first come first served.
 * Enough that a backend finds the next group queued when it finishes one; with no bound, 50 clients'
 * reads all queued in two backends' sockets and the slowest answers took 3-4 times the median
 * (p95 80-87 ms at a p50 of 20 on the demo data, against 35-62 ms with 4).
 */
const IN_FLIGHT_PER_LANE = 4;

const lanesByDatabase = new WeakMap<object, ReadLanes>();

/** The lanes a database handle's leaded reads go to (connectDatabase's `readLanes`), if it has any. */
export function readLanesOf(db: object) {
  return lanesByDatabase.get(db);
}

export function registerReadLanes(db: object, lanes: ReadLanes) {
  lanesByDatabase.set(db, lanes);
}

/** One shared connection: opened on first use, opened again on the next use after it is lost. */
class Lane {
  inFlight = 0;
  readonly #connectionString: string;
  #client: pg.Client | undefined;
  #opening: Promise<pg.Client> | undefined;
  #names = new PreparedNames();
  #closed = false;

  constructor(connectionString: string) {
    this.#connectionString = connectionString;
  }

  async run(lead: StatementLead, text: string, values: readonly unknown[]): Promise<unknown> {
    this.inFlight += 1;
    try {
      const client = await this.#connected();
      try {
        return await this.#send(client, lead, text, values);
      } catch (error) {
        if (!isStalePlan(error) && !isMissingStatement(error)) throw error;
        // A migration changed a table under a prepared `select *`, or a name was deallocated under a
        // group queued behind it: new names prepare afresh (the group was its own transaction, so it
        // is simply sent again); the old names age out.
        this.#names.renew();
        return await this.#send(client, lead, text, values);
      }
    } finally {
      this.inFlight -= 1;
    }
  }

  async close() {
    this.#closed = true;
    const client = this.#client ?? (await this.#opening?.catch(() => undefined));
    this.#client = undefined;
    await client?.end().catch(() => {});
  }

  /** Names chosen and the group written in one synchronous step, so groups reach the socket in call order. */
  #send(client: pg.Client, lead: StatementLead, text: string, values: readonly unknown[]) {
    const name = preparable(values) ? this.#preparedName(client, text) : undefined;
    return sendLeadedStatement(client as never, lead, text, values, name);
  }

  #connected() {
    if (this.#client) return Promise.resolve(this.#client);
    if (this.#closed) return Promise.reject(new Error('The read lanes are closed'));
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async #open() {
    const client = new pg.Client({ connectionString: this.#connectionString });
    // A lost server fails the groups in flight (pg answers each with the error); the next read opens
    // a new connection. The listener also keeps an unanswered 'error' event from ending the process.
    const lost = () => {
      if (this.#client === client) this.#client = undefined;
    };
    client.on('error', lost);
    client.on('end', lost);
    await client.connect();
    (client as unknown as Pipelining).pipeline = true;
    this.#names = new PreparedNames();
    this.#client = client;
    return client;
  }

  /** Past the limit, the evicted name's DEALLOCATE is queued behind the groups already written that may use it. */
  #preparedName(client: pg.Client, text: string) {
    const { name, evicted } = this.#names.use(text);
    if (evicted !== undefined) {
      const { connection } = client as unknown as NamedStatements;
      delete connection.parsedStatements[evicted];
      delete connection.submittedNamedStatements[evicted];
      // A Parse that failed left nothing to deallocate: that error is expected and harmless.
      client.query(`deallocate "${evicted}"`, []).catch(() => {});
    }
    return name;
  }
}
