import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { connectDatabase } from '../src/db/database.ts';
import { runMigrations } from '../src/db/migrate.ts';
import { createJobQueue, installJobQueue } from '../src/messaging/queue/job-queue.ts';
import { SEND_MESSAGE_JOB } from '../src/messaging/queue/jobs.ts';
import { databaseUrl, withAdmin } from './support/database-url.ts';

const { adminUrl } = inject('database');
const name = `sms_fetch_${process.pid}_${Date.now().toString(36)}`;

afterAll(() => withAdmin(adminUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`)));

describe('JobQueue.fetchNow', () => {
  // A send queued by this process starts at once, not at its worker's next poll. The poll here is a
  // minute away: only fetchNow can hand the job over within the test's time.
  it("wakes every one of the process's workers of the job, idle or busy, between polls", async () => {
    await withAdmin(adminUrl, (admin) => admin.query(`create database ${name}`));
    const url = databaseUrl(adminUrl, name);
    const owner = new pg.Pool({ connectionString: url, max: 2 });
    await runMigrations(owner);
    await installJobQueue(owner);
    await owner.end();
    const handle = connectDatabase(url, 4);
    const queue = createJobQueue(handle.pool, { supervise: false, onError: () => {} });
    const started: number[] = [];
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    try {
      await queue.work(SEND_MESSAGE_JOB, { concurrency: 2, pollingIntervalSeconds: 60 }, async (payload) => {
        started.push(payload.messageId);
        // The first job keeps its worker busy: the second must be taken by the other one.
        if (payload.messageId === 1) await firstHeld;
      });
      // Both workers have made their first (empty) fetch and sleep until the next poll.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const enqueue = (messageId: number) =>
        handle.db
          .transaction()
          .execute((trx) =>
            queue.enqueue(trx, SEND_MESSAGE_JOB, { companyId: 1, messageId }, { key: `m${messageId}` }),
          );
      await enqueue(1);
      queue.fetchNow(SEND_MESSAGE_JOB);
      await expect.poll(() => started, { timeout: 10_000 }).toEqual([1]);
      await enqueue(2);
      queue.fetchNow(SEND_MESSAGE_JOB);
      await expect.poll(() => started, { timeout: 10_000 }).toEqual([1, 2]);
    } finally {
      releaseFirst();
      await queue.stopWorking(1000);
      await queue.close();
      await handle.close();
    }
  });
});
