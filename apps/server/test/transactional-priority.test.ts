import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFanOutStep } from '../src/messaging/fan-out.ts';
import { SEND_BATCH_JOB } from '../src/messaging/queue/jobs.ts';
import { startSend } from '../src/messaging/send-jobs.ts';
import {
  createSendingCompany,
  messageRow,
  numbers,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.deps.messaging.queue.stopWorking(1000);
  await ctx?.close();
});

const BULK_BATCHES = 30;

/** A bulk send fanned out by the test into one batch job per recipient, all waiting in the queue. */
async function bulkSendWaitingInBatches() {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, numbers(40, 0, BULK_BATCHES));
  const accepted = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message: 'Weekly news' },
  });
  const messageId: number = accepted.json().data.message.id;
  const companyId = tenant.company.id;
  const queue = ctx.deps.messaging.queue;
  const queued = await messageRow(ctx.ownerDb, messageId);
  expect(await startSend(ctx.db, queue, companyId, messageId, queued?.queue_job_id ?? '')).toBe(true);
  // One step reaches everyone; the next finds nobody and enqueues the batches (one recipient each).
  const sizes = { stepSize: 1000, batchSize: 1 };
  await runFanOutStep(ctx.db, queue, { companyId, messageId, after: '0' }, sizes);
  const send = await ctx.ownerDb
    .selectFrom('message_sends')
    .select('fanout_cursor')
    .where('message_id', '=', messageId)
    .executeTakeFirstOrThrow();
  await runFanOutStep(ctx.db, queue, { companyId, messageId, after: String(send.fanout_cursor) }, sizes);
  return messageId;
}

describe('a transactional send goes ahead of bulk sends', () => {
  it('has its batch handed over before the bulk batches already waiting in the queue', async () => {
    const bulkId = await bulkSendWaitingInBatches();
    const otp = await createSendingCompany(ctx);
    const service = await otp.service();
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages',
      headers: otp.admin,
      payload: { to: '0722000999', message: 'Your code is 4321', serviceId: service.id },
    });
    expect(sent.statusCode, sent.body).toBe(201);
    const otpId: number = sent.json().data.message.id;

    // One slot, as a worker with WORKER_CONCURRENCY=1 has: the queue decides the order alone.
    const handled: number[] = [];
    await ctx.deps.messaging.queue.work(SEND_BATCH_JOB, { concurrency: 1, perGroup: 1 }, async (batch) => {
      handled.push(batch.messageId);
    });
    await waitFor(
      async () => handled.length,
      (count) => count === BULK_BATCHES + 1,
      { what: 'every batch handled' },
    );
    expect(handled.filter((id) => id === bulkId)).toHaveLength(BULK_BATCHES);
    expect(handled[0]).toBe(otpId);
  });
});
