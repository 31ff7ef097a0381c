import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSend } from '../src/messaging/send-jobs.ts';
import {
  createSendingCompany,
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

describe('a send started in another process', () => {
  it('is taken up at once by the quiet lanes of a worker that did not start it', async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, numbers(61, 0, 12));
    const worker = await openProcess(ctx);
    try {
      await worker.startWorker({ quietMs: 60_000 });
      // A draft has no queue job, so the worker's job slots cannot start it themselves.
      const draft = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/messages',
        headers: tenant.admin,
        payload: { serviceIds: [service.id], message: 'Started elsewhere' },
      });
      expect(draft.statusCode).toBe(201);
      const id = draft.json().data.message.id;
      const jobId = randomUUID();
      await sql`update messages set status = 'queued', queue_job_id = ${jobId} where id = ${id}`.execute(
        ctx.ownerDb,
      );
      // Past the worker's first look, so its lanes are asleep for their quiet minute.
      await new Promise((resolve) => setTimeout(resolve, 300));

      const startedAt = Date.now();
      expect(await startSend(ctx.db, tenant.company.id, id, jobId)).toBe(true);
      await waitFor(
        () => messageRow(ctx.ownerDb, id),
        (row) => row?.status === 'delivered',
        { what: 'delivery', timeoutMs: 10_000 },
      );
      expect(Date.now() - startedAt).toBeLessThan(5_000);
      expect((await messageRow(ctx.ownerDb, id))?.recipient_count).toBe(12);
    } finally {
      await worker.close();
    }
  });
});
