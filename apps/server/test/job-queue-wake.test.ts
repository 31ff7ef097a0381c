import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectDatabase } from '../src/db/database.ts';
import { runMigrations } from '../src/db/migrate.ts';
import { createJobQueue, installJobQueue, type JobQueue } from '../src/messaging/queue/job-queue.ts';
import { SEND_MESSAGE_JOB } from '../src/messaging/queue/jobs.ts';
import { databaseUrl, withAdmin } from './support/database-url.ts';
import { holdUntilReleased } from './support/messaging-factories.ts';

const { adminUrl } = inject('database');
const name = `sms_wake_${process.pid}_${Date.now().toString(36)}`;
const url = databaseUrl(adminUrl, name);

beforeAll(async () => {
  await withAdmin(adminUrl, (admin) => admin.query(`create database ${name}`));
  const owner = new pg.Pool({ connectionString: url, max: 2 });
  await runMigrations(owner);
  await installJobQueue(owner);
  await owner.end();
});

afterAll(() => withAdmin(adminUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`)));

/** A process's job queue on its own pool: a worker process supervises (and listens), an API process does not. */
function processQueue(role: 'worker' | 'api') {
  const handle = connectDatabase(url, 4);
  const queue = createJobQueue(handle.pool, { supervise: role === 'worker', onError: () => {} });
  const enqueue = (messageId: number, startAfter?: Date) =>
    handle.db
      .transaction()
      .execute((trx) =>
        queue.enqueue(
          trx,
          SEND_MESSAGE_JOB,
          { companyId: 1, messageId },
          { key: `m${messageId}`, startAfter },
        ),
      );
  return {
    queue,
    enqueue,
    async close() {
      await queue.stopWorking(1000);
      await queue.close();
      await handle.close();
    },
  };
}

/** Workers whose poll is a minute away: only a wake-up can hand them a job within a test's time. */
async function workSlowly(
  queue: JobQueue,
  concurrency: number,
  handler: (messageId: number) => Promise<void>,
) {
  await queue.work(SEND_MESSAGE_JOB, { concurrency, pollingIntervalSeconds: 60 }, (payload) =>
    handler(payload.messageId),
  );
  // Each worker has made its first (empty) fetch and sleeps until its next poll.
  await new Promise((resolve) => setTimeout(resolve, 500));
}

describe('waking the job queue between polls', () => {
  it("fetchNow wakes every one of the process's workers of the job, idle or busy", async () => {
    const worker = processQueue('worker');
    const started: number[] = [];
    const { held: firstHeld, release: releaseFirst } = holdUntilReleased();
    try {
      await workSlowly(worker.queue, 2, async (messageId) => {
        started.push(messageId);
        // The first job keeps its worker busy: the second must be taken by the other one.
        if (messageId === 1) await firstHeld;
      });
      await worker.enqueue(1);
      worker.queue.fetchNow(SEND_MESSAGE_JOB);
      await expect.poll(() => started, { timeout: 10_000 }).toEqual([1]);
      await worker.enqueue(2);
      worker.queue.fetchNow(SEND_MESSAGE_JOB);
      await expect.poll(() => started, { timeout: 10_000 }).toEqual([1, 2]);
    } finally {
      releaseFirst();
      await worker.close();
    }
  });

  it('a job queued by an API process reaches the workers of another by NOTIFY, also after their LISTEN was cut', async () => {
    const api = processQueue('api');
    const worker = processQueue('worker');
    const started: number[] = [];
    try {
      await workSlowly(worker.queue, 1, async (messageId) => {
        started.push(messageId);
      });
      await api.enqueue(11);
      await expect.poll(() => started, { timeout: 5000 }).toEqual([11]);

      // The worker's LISTEN session is ended by the server; a job queued meanwhile is notified to
      // nobody, and is fetched when the worker listens again (about a second later).
      const cut = await withAdmin(adminUrl, (admin) =>
        admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and query ilike 'listen %'`,
          [name],
        ),
      );
      expect(cut.rowCount).toBe(1);
      await api.enqueue(12);
      await expect.poll(() => started, { timeout: 10_000 }).toEqual([11, 12]);
      await api.enqueue(13);
      await expect.poll(() => started, { timeout: 5000 }).toEqual([11, 12, 13]);
    } finally {
      await api.close();
      await worker.close();
    }
  });

  it('the first slot finds scheduled jobs as they fall due and wakes the slots that poll rarely', async () => {
    const worker = processQueue('worker');
    let started = 0;
    const { held, release } = holdUntilReleased();
    try {
      // The first slot polls every 1 s, the two others every 10 s: past the wait below, so only a
      // wake-up can start all three in time.
      await worker.queue.work(SEND_MESSAGE_JOB, { concurrency: 3, pollingIntervalSeconds: 1 }, async () => {
        started += 1;
        // Each job keeps its slot: three jobs need all three slots.
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 700));
      const due = new Date(Date.now() + 1500);
      await worker.enqueue(21, due);
      await worker.enqueue(22, due);
      await worker.enqueue(23, due);
      // No NOTIFY at the due time: the first slot's poll takes one, and wakes the others for the rest.
      await expect.poll(() => started, { timeout: 7_000 }).toBe(3);
    } finally {
      release();
      await worker.close();
    }
  });
});
