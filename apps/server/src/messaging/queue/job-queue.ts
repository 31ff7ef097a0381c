import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { type Db, fromKysely, type Job, type JobWithMetadata, PgBoss } from 'pg-boss';
import { listenOnChannel } from '../../db/channel-listener.ts';
import type { Executor } from '../../db/database.ts';
import { JOB_DEFINITIONS, type JobDefinition, jobIdOf } from './jobs.ts';

/** pg-boss's own schema: created and migrated by the database owner, used by the application role. */
export const QUEUE_SCHEMA = 'pgboss';
const APP_ROLE = 'sms_app';

/**
 * pg-boss on one of our pools (it then uses that pool's role, and no connections of its own but
 * its LISTEN connection, when `listen` is asked for).
 */
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
 * Creates or migrates pg-boss's schema and our queues, as the database owner, then grants the
 * application role what pg-boss needs at run time. Idempotent; runs at every start-up, before the
 * application's pools exist.
 */
export async function installJobQueue(ownerPool: pg.Pool) {
  // Processes that start together (an API and its workers) would otherwise install at once, and
  // PostgreSQL refuses concurrent GRANTs on one object ("tuple concurrently updated"): one at a time.
  // The lock is held on a connection of its own, so a pool of one can still do the work.
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
      if (await boss.getQueue(job.name)) await boss.updateQueue(job.name, job.queue);
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

export type JobQueue = {
  /** Enqueues in the caller's transaction; the id follows from the job and key (enqueuing twice is a no-op). */
  enqueue<P>(
    trx: Executor,
    job: JobDefinition<P>,
    payload: P,
    options: { key: string; startAfter?: Date },
  ): Promise<string>;
  /** Removes a job in the caller's transaction, whatever its state. */
  remove(trx: Executor, job: JobDefinition<unknown>, id: string): Promise<void>;
  find(job: JobDefinition<unknown>, id: string, trx?: Executor): Promise<JobWithMetadata | null>;
  /** Runs the handler for this process's share of the job's queue. */
  work<P>(
    job: JobDefinition<P>,
    options: { concurrency: number; pollingIntervalSeconds?: number },
    handler: (payload: P, context: JobHandlerContext) => Promise<void>,
  ): Promise<void>;
  /**
   * This process's workers of the job fetch now instead of at their next poll (up to
   * pollingIntervalSeconds later): a job was just enqueued here, and committed.
   */
  fetchNow(job: JobDefinition<unknown>): void;
  /** Stops fetching jobs for the worker; running handlers may finish (graceful) until the time-out. */
  stopWorking(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
};

export type JobQueueOptions = {
  /**
   * Worker processes supervise (expire lost jobs, retention) and listen for the NOTIFY of a job
   * queued by any process (their workers fetch it at once, not at their next poll); API processes
   * only enqueue.
   */
  supervise: boolean;
  onError: (error: Error) => void;
};

/** How much less often than the first the other slots of a job's workers poll (see `work`). */
const SIBLING_POLL_FACTOR = 10;

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
    schedule: false,
    registerInstance: false,
  });
  boss.on('error', options.onError);
  let started: Promise<unknown> | undefined;
  const ready = () => {
    // A start that failed (the database unreachable a moment, a grant missing) is not kept: the
    // next use starts again, which pg-boss allows on the same instance.
    started ??= boss.start().catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  };
  const workerIds = new Map<string, string[]>();
  const wakeWorkers = (jobName: string) => {
    for (const id of workerIds.get(jobName) ?? []) boss.notifyWorker(id);
  };

  return {
    async enqueue(trx, job, payload, { key, startAfter }) {
      await ready();
      const id = jobIdOf(job, key);
      await boss.send(job.name, job.payload.parse(payload) as object, {
        id,
        startAfter,
        db: transactionAdapter(trx),
      });
      return id;
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
    async work(job, { concurrency, pollingIntervalSeconds = 0.5 }, handler) {
      await ready();
      const ids = workerIds.get(job.name) ?? [];
      workerIds.set(job.name, ids);
      const run = async ([entry]: Job[]) => {
        if (!entry) return;
        // Where one job was due others may be: the slots that poll rarely look now.
        wakeWorkers(job.name);
        await handler(job.payload.parse(entry.data), {
          id: entry.id,
          attempt: entry.retryCount + 1,
          signal: entry.signal,
        });
      };
      // One pg-boss worker per slot (not localConcurrency): pg-boss names only the first of those,
      // and fetchNow must reach every one (a slot busy with a job fetches when it is done).
      for (let slot = 0; slot < concurrency; slot++) {
        // A scheduled send's job (startAfter) and a retry are due without any NOTIFY at that time:
        // the first slot polls for them as often with NOTIFY as without, and wakes the others when
        // it finds one. The others poll only as a fallback, so an idle process does not fetch
        // `concurrency` times a poll.
        const everySeconds =
          slot === 0 ? pollingIntervalSeconds : pollingIntervalSeconds * SIBLING_POLL_FACTOR;
        ids.push(
          await boss.work(
            job.name,
            {
              localConcurrency: 1,
              batchSize: 1,
              pollingIntervalSeconds: everySeconds,
              notifyPollingIntervalSeconds: everySeconds,
            },
            run,
          ),
        );
      }
    },
    fetchNow(job) {
      wakeWorkers(job.name);
    },
    async stopWorking(timeoutMs) {
      if (!started || workerIds.size === 0) return;
      await Promise.all(
        JOB_DEFINITIONS.map((job) => boss.offWork(job.name, { wait: true }).catch(() => {})),
      ).then(
        () => undefined,
        () => undefined,
      );
      void timeoutMs;
    },
    async close() {
      await started?.catch(() => {});
      // Also after a start that failed part way, whose started parts stop() ends (a no-op if none).
      await boss.stop({ graceful: false, close: false }).catch(() => {});
    },
  };
}
