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
 *
 * `count` lanes take the reads; one more, the standby, takes them while every one of those is
 * stalled (a slow statement at its head, or its backend not running), so that one slow read does
 * not hold up every read behind it. On two cores shared with the API, one lane kept busy answered
 * with tighter tails than two lanes kept half busy (ADR 0012, 28 November, evening). The standby
 * also takes a few reads while every lane is full: a read whose PostgreSQL part exceeds its API
 * part would otherwise be bound by one backend while the API's core idles (ADR 0012, 29 November).
 */
export class ReadLanes {
  /** Kysely over the lanes: a statement run here must be inside withPreparedStatements with a lead. */
  readonly db: Kysely<DB>;
  readonly #lanes: Lane[];
  readonly #standby: Lane;
  /** Reads not yet handed to a lane, in the order they came: a read is never overtaken by a later one. */
  readonly #queue: QueuedRead[] = [];
  #stallCheck: NodeJS.Timeout | undefined;

  constructor(connectionString: string, count: number) {
    this.#lanes = Array.from({ length: Math.max(1, count) }, () => new Lane(connectionString));
    this.#standby = new Lane(connectionString);
    this.db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: this.#asPool() }) });
  }

  run(lead: StatementLead, text: string, values: readonly unknown[]) {
    return new Promise<unknown>((resolve, reject) => {
      this.#queue.push({ lead, text, values, resolve, reject });
      this.#dispatch();
    });
  }

  /** Hands queued reads to lanes while one will take them; otherwise looks again once a lane could stall. */
  #dispatch() {
    while (this.#queue.length > 0) {
      const lane = this.#laneWithRoom(performance.now());
      if (!lane) {
        this.#stallCheck ??= setTimeout(() => {
          this.#stallCheck = undefined;
          this.#dispatch();
        }, STALL_MS).unref();
        return;
      }
      const read = this.#queue.shift() as QueuedRead;
      lane
        .run(read.lead, read.text, read.values)
        .then(read.resolve, read.reject)
        .finally(() => this.#dispatch());
    }
  }

  /**
   * The least busy of the lanes that answer, if it has room; else the standby, with room for a few
   * reads while those lanes are full and for a lane's worth while every lane is stalled (none: the
   * read waits its turn).
   */
  #laneWithRoom(now: number) {
    let chosen: Lane | undefined;
    let answering = false;
    for (const lane of this.#lanes) {
      if (lane.isStalled(now)) continue;
      answering = true;
      if (lane.inFlight < IN_FLIGHT_PER_LANE && (!chosen || lane.inFlight < chosen.inFlight)) chosen = lane;
    }
    if (chosen) return chosen;
    const standby = this.#standby;
    const room = answering ? OVERFLOW_IN_FLIGHT : IN_FLIGHT_PER_LANE;
    return standby.inFlight < room && !standby.isStalled(now) ? standby : undefined;
  }

  async close() {
    clearTimeout(this.#stallCheck);
    await Promise.all([...this.#lanes, this.#standby].map((lane) => lane.close()));
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

type QueuedRead = {
  lead: StatementLead;
  text: string;
  values: readonly unknown[];
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
};

/**
 * Groups a lane carries at once; later reads wait their turn in the API, first come first served.
 * Enough that its backend always finds the next group queued (50 clients' reads with 16 a lane:
 * the backend never waited for the API between groups); a bound, so that a read that stalls a lane
 * holds up only what was already written behind it.
 */
const IN_FLIGHT_PER_LANE = 16;

/**
 * Groups the standby carries while every lane is full. A second backend then runs while the API
 * waits on the first, and takes part of the reads: for `GET /messages?page=50` at 50 clients,
 * 9-24% more answers a second, p95 42.2 -> 37.0 ms. Few, because a backend that competes with the
 * API for the cores is sometimes not running, and what it carries waits: with 8 or 16 the p99 went
 * past 100 ms (ADR 0012, 29 November).
 */
const OVERFLOW_IN_FLIGHT = 4;

/**
 * A lane with groups in flight that has answered none for this long is stalled. A console read
 * takes 0.3 to 5 ms of its backend; under load a lane answers every fraction of a millisecond.
 */
const STALL_MS = 10;

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
  /** When the lane last answered a group, or was handed one while it had none. */
  #progressAt = 0;
  readonly #connectionString: string;
  #client: pg.Client | undefined;
  #opening: Promise<pg.Client> | undefined;
  #names = new PreparedNames();
  #closed = false;

  constructor(connectionString: string) {
    this.#connectionString = connectionString;
  }

  isStalled(now: number) {
    return this.inFlight > 0 && now - this.#progressAt > STALL_MS;
  }

  async run(lead: StatementLead, text: string, values: readonly unknown[]): Promise<unknown> {
    if (this.inFlight === 0) this.#progressAt = performance.now();
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
      this.#progressAt = performance.now();
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
