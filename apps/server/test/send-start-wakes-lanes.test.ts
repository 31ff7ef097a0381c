import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../src/db/database.ts';
import { startSend } from '../src/messaging/send-jobs.ts';
import {
  createSendingCompany,
  holdUntilReleased,
  messageRow,
  numbers,
  openProcess,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * A worker whose lanes found no active send sleeps long (quietMs); a send started by another
 * process (its job handler, here the test) reaches those lanes by NOTIFY, not at their next look.
 */
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ SIMULATOR_DELIVERY_DELAY_MS: '20', SIMULATOR_FAIL_RATE: '0' });
});
afterAll(async () => {
  await ctx?.close();
});

/**
 * A queued message of 12 recipients of a new company whose send no queue job will start: a draft
 * (no job), marked queued under a job id only the test knows, as another process's job would be.
 * Made after the worker has started: a worker's start gives queued messages without a job one.
 */
async function sendNoJobStarts(prefix: number) {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, numbers(prefix, 0, 12));
  const draft = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message: 'Started elsewhere' },
  });
  expect(draft.statusCode).toBe(201);
  const id: number = draft.json().data.message.id;
  const jobId = randomUUID();
  await sql`update messages set status = 'queued', queue_job_id = ${jobId} where id = ${id}`.execute(
    ctx.ownerDb,
  );
  return { id, start: () => startSend(ctx.db, tenant.company.id, id, jobId) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Delivered within the wait's bound, which is far shorter than the lanes' quiet minute. */
async function expectDeliveredSoon(id: number) {
  await waitFor(
    () => messageRow(ctx.ownerDb, id),
    (row) => row?.status === 'delivered',
    { what: 'delivery', timeoutMs: 20_000 },
  );
  expect((await messageRow(ctx.ownerDb, id))?.recipient_count).toBe(12);
}

describe('a send started in another process', () => {
  it('is taken up at once by the quiet lanes of a worker that did not start it', async () => {
    const worker = await openProcess(ctx);
    try {
      await worker.startWorker({ quietMs: 60_000 });
      const send = await sendNoJobStarts(61);
      // Past the worker's first look, so its lanes are asleep for their quiet minute.
      await sleep(300);
      expect(await send.start()).toBe(true);
      await expectDeliveredSoon(send.id);
    } finally {
      await worker.close();
    }
  });

  it('is not missed when it starts while the lanes are looking (their look saw no send)', async () => {
    // The worker's pool holds back the answer of one look for active sends, once asked to.
    const handle = connectDatabase(ctx.config.databaseAppUrl!, 5);
    let holdNextLook: { answered: () => void; released: Promise<void> } | null = null;
    handle.pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as { query: typeof query }).query = (...args) => {
        const answer = query(...args);
        const hold = holdNextLook;
        if (!hold || typeof args[0] !== 'string' || !/from message_sends\s+where state in/.test(args[0]))
          return answer;
        holdNextLook = null;
        return answer.then(async (result) => {
          hold.answered();
          await hold.released;
          return result;
        });
      };
    });
    const worker = await openProcess(ctx);
    try {
      const { engine } = await worker.startWorker({ db: handle.db, quietMs: 60_000 });
      const send = await sendNoJobStarts(62);
      await sleep(300);
      const look = holdUntilReleased();
      const answered = holdUntilReleased();
      holdNextLook = { answered: answered.release, released: look.held };
      engine.wake();
      // The look has read its (empty) answer; the send starts, its NOTIFY comes, then the answer.
      await answered.held;
      expect(await send.start()).toBe(true);
      await sleep(200);
      look.release();
      await expectDeliveredSoon(send.id);
    } finally {
      await worker.close();
      await handle.close();
    }
  });
});
