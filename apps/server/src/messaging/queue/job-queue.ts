import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { type Db, fromKysely, type Job, type JobWithMetadata, PgBoss } from 'pg-boss';
import { listenOnChannel } from '../../db/channel-listener.ts';
import { APP_ROLE, type Executor } from '../../db/database.ts';
import { JOB_DEFINITIONS, type JobDefinition, jobIdOf } from './jobs.ts';

/** pg-boss's own schema: created and migrated by the database owner, used by the application role. */
export const QUEUE_SCHEMA = 'pgboss';

/** pg-boss on one of our pools (its role; no connections of its own but its LISTEN). */
function poolAdapter(pool: pg.Pool, onListenLost?: (error: Error) => void): Db {
  return {
    executeSql: async (text, values) => {
      // Without parameters pg uses the simple protocol, which pg-boss's multi-statement plans need;
      // their answer (one result per statement) goes back as pg gives it: pg-boss unwraps it.
      const result = values?.length ? await pool.query(text, values as unknown[]) : await pool.query(text);
      return result as unknown as { rows: unknown[] };
    },
    // pg-boss's LISTEN for its queues' NOTIFY (useListenNotify): after every (re)connect it has each
    // worker of a notify queue fetch once, for what was notified while nobody listened.
    listen: (channel, onNotification, onReconnect) =>
      listenOnChannel(pool.options, channel, {
        onNotification,
        onListening: onReconnect,
        onLost: (error) => onListenLost?.(error),
      }),
  };
}

/** A caller's transaction as pg-boss's `db` option: the job commits or rolls back with it. */
function transactionAdapter(trx: Executor): Db {
  return fromKysely({
    executeQuery: (query) => trx.executeQuery(CompiledQuery.raw(query.sql, [...query.parameters])),
  });
}

/**
 * Creates or migrates pg-boss's schema and our queues as the database owner, then grants the
 * application role what pg-boss needs at run time. Idempotent; runs at every start-up.
 */
export async function installJobQueue(ownerPool: pg.Pool) {
  // PostgreSQL refuses concurrent GRANTs on one object ("tuple concurrently updated"): one process
  // at a time, locked on a connection of its own so that a pool of one can still do the work.
  const lockHolder = new pg.Client(ownerPool.options);
  await lockHolder.connect();
  try {
    await lockHolder.query('select pg_advisory_lock($1)', [QUEUE_INSTALL_LOCK_KEY]);
    await installJobQueueAlone(ownerPool);
  } finally {
    await lockHolder.end();
  }
}

const QUEUE_INSTALL_LOCK_KEY = 7_201_554_914;

async function installJobQueueAlone(ownerPool: pg.Pool) {
  const boss = new PgBoss({
    db: poolAdapter(ownerPool),
    schema: QUEUE_SCHEMA,
    migrate: true,
    supervise: false,
    schedule: false,
    registerInstance: false,
  });
  boss.on('error', () => {});
  await boss.start();
  try {
    for (const job of JOB_DEFINITIONS) {
      // A queue's policy is set when it is created; pg-boss refuses it in an update, even unchanged.
      const { policy: _policy, ...updatable } = job.queue;
      if (await boss.getQueue(job.name)) await boss.updateQueue(job.name, updatable);
      else await boss.createQueue(job.name, job.queue);
    }
  } finally {
    await boss.stop({ graceful: false, close: false });
  }
  await ownerPool.query(`
    grant usage on schema ${QUEUE_SCHEMA} to ${APP_ROLE};
    grant select, insert, update, delete on all tables in schema ${QUEUE_SCHEMA} to ${APP_ROLE};
    grant usage, select on all sequences in schema ${QUEUE_SCHEMA} to ${APP_ROLE};
    grant execute on all functions in schema ${QUEUE_SCHEMA} to ${APP_ROLE};
    alter default privileges in schema ${QUEUE_SCHEMA} grant select, insert, update, delete on tables to ${APP_ROLE};
    alter default privileges in schema ${QUEUE_SCHEMA} grant usage, select on sequences to ${APP_ROLE};
    alter default privileges in schema ${QUEUE_SCHEMA} grant execute on functions to ${APP_ROLE};
  `);
}

export type JobHandlerContext = { id: string; attempt: number; signal: AbortSignal };

export type EnqueueOptions = {
  key: string;
  startAfter?: Date;
  /** Jobs of one group (a company) share the group's concurrency (WorkOptions.perGroup). */
  group?: string;
  priority?: number;
  /** Of a stately job (JobDefinition.queue.policy), what its one waiting and one running are counted by. */
  singletonKey?: string;
};

export type WorkOptions = {
  /** Handlers of this job running at once in this process. */
  concurrency: number;
  /** Of those, at most this many for one group (a company): one slow company cannot take them all. */
  perGroup?: number;
};

const POLLING_INTERVAL_SECONDS = 0.5;

export type JobQueue = {
  /** Enqueues in the caller's transaction; the id follows from the job and key (enqueuing twice is a no-op). */
  enqueue<P>(trx: Executor, job: JobDefinition<P>, payload: P, options: EnqueueOptions): Promise<string>;
  enqueueMany<P>(
    trx: Executor,
    job: JobDefinition<P>,
    jobs: readonly ({ payload: P } & EnqueueOptions)[],
  ): Promise<void>;
  remove(trx: Executor, job: JobDefinition<unknown>, id: string): Promise<void>;
  find(job: JobDefinition<unknown>, id: string, trx?: Executor): Promise<JobWithMetadata | null>;
  /** Runs the handler for this process's share of the job's queue. A handler that throws is retried. */
  work<P>(
    job: JobDefinition<P>,
    options: WorkOptions,
    handler: (payload: P, context: JobHandlerContext) => Promise<void>,
  ): Promise<void>;
  /** Stops fetching jobs; running handlers get `timeoutMs` to finish, then their signal aborts. */
  stopWorking(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
};

export type JobQueueOptions = {
  /** Worker processes supervise (expiry, retention) and LISTEN for new jobs; API processes only enqueue. */
  supervise: boolean;
  onError: (error: Error) => void;
};

/** pg-boss on the application's pool, started on first use. */
export function createJobQueue(pool: pg.Pool, options: JobQueueOptions): JobQueue {
  const boss = new PgBoss({
    db: poolAdapter(pool, options.onError),
    schema: QUEUE_SCHEMA,
    migrate: false,
    supervise: options.supervise,
    useListenNotify: options.supervise,
    // The application role does not own pg-boss's indexes.
    reindex: false,
    superviseIntervalSeconds: 5,
    // Where jobs whose heartbeat stopped are retried: at pg-boss's 60 s a send waited up to 70 s on
    // a killed worker's batch, at 10 s up to 20 s.
    monitorIntervalSeconds: 10,
    schedule: false,
    registerInstance: false,
  });
  boss.on('error', options.onError);
  let started: Promise<unknown> | undefined;
  const ready = () => {
    // A start that failed is not kept: the next use starts again (pg-boss allows it).
    started ??= boss.start().catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  };
  const working = new Set<string>();
  /**
   * A pg-boss worker waits out its poll after every job. Where one job was, more are likely (a
   * send's batches are enqueued together): a worker that held one fetches again at once instead.
   */
  const keepFetching = (workId: string | undefined) => {
    for (const worker of boss.getWipData())
      if (worker.workId === workId && worker.count > 0) boss.notifyWorker(worker.id);
  };
  const running = new Set<AbortController>();
  // pg-boss refuses options present but undefined: only those given are set.
  const insertOf = <P>(job: JobDefinition<P>, entry: { payload: P } & EnqueueOptions) => ({
    id: jobIdOf(job, entry.key),
    data: job.payload.parse(entry.payload) as object,
    ...(entry.startAfter ? { startAfter: entry.startAfter } : {}),
    ...(entry.priority !== undefined ? { priority: entry.priority } : {}),
    ...(entry.group ? { group: { id: entry.group } } : {}),
    ...(entry.singletonKey ? { singletonKey: entry.singletonKey } : {}),
    // Per job as well: a queue created before the cap keeps its own (pg-boss cannot update it).
    retryBackoff: job.queue.retryBackoff,
    retryDelayMax: job.queue.retryDelayMax,
  });

  return {
    async enqueue(trx, job, payload, entry) {
      await ready();
      const insert = insertOf(job, { ...entry, payload });
      await boss.send(job.name, insert.data, { ...insert, db: transactionAdapter(trx) });
      return insert.id;
    },
    async enqueueMany(trx, job, jobs) {
      if (jobs.length === 0) return;
      await ready();
      await boss.insert(
        job.name,
        jobs.map((entry) => insertOf(job, entry)),
        { db: transactionAdapter(trx) },
      );
    },
    async remove(trx, job, id) {
      await ready();
      await boss.deleteJob(job.name, id, { db: transactionAdapter(trx) });
    },
    async find(job, id, trx) {
      await ready();
      const [found] = await boss.findJobs<object>(job.name, {
        id,
        ...(trx ? { db: transactionAdapter(trx) } : {}),
      });
      return found ?? null;
    },
    async work(job, { concurrency, perGroup }, handler) {
      await ready();
      working.add(job.name);
      // Set once work() answers; a job finished before that has no siblings to tell yet.
      let workId: string | undefined;
      workId = await boss.work(
        job.name,
        {
          localConcurrency: concurrency,
          ...(perGroup ? { localGroupConcurrency: Math.min(perGroup, concurrency) } : {}),
          batchSize: 1,
          pollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
          // Due jobs (a schedule, a retry) come with no NOTIFY: poll as often as without one.
          notifyPollingIntervalSeconds: POLLING_INTERVAL_SECONDS,
        },
        async ([entry]: Job[]) => {
          if (!entry) return;
          // Aborted by pg-boss (the job expired) or by stopWorking's time-out.
          const stop = new AbortController();
          const onAbort = () => stop.abort();
          entry.signal?.addEventListener('abort', onAbort);
          running.add(stop);
          try {
            await handler(job.payload.parse(entry.data), {
              id: entry.id,
              attempt: entry.retryCount + 1,
              signal: stop.signal,
            });
          } finally {
            running.delete(stop);
            entry.signal?.removeEventListener('abort', onAbort);
            keepFetching(workId);
          }
        },
      );
    },
    async stopWorking(timeoutMs) {
      if (!started || working.size === 0) return;
      const stopped = Promise.all(
        [...working].map((name) => boss.offWork(name, { wait: true }).catch(() => {})),
      );
      working.clear();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          // Handlers still running are told to give up: they release their batches (hand-over.ts).
          for (const stop of running) stop.abort();
          resolve();
        }, timeoutMs);
      });
      await Promise.race([stopped, late]);
      clearTimeout(timer);
      await stopped;
    },
    async close() {
      await started?.catch(() => {});
      // Also after a start that failed part way, whose started parts stop() ends (a no-op if none).
      await boss.stop({ graceful: false, close: false }).catch(() => {});
    },
  };
}
