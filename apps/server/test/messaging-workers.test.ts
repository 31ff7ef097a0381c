import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFanOutStep } from '../src/messaging/fan-out.ts';
import type { SimulatorProvider } from '../src/messaging/providers/simulator.ts';
import { startSend } from '../src/messaging/send-jobs.ts';
import {
  createSendingCompany,
  messageRow,
  numbers,
  openProcess,
  recipientsOf,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/** Worker processes coming and going on one database (each "process" has its own pool, queue and worker). */
let ctx: TestContext;
const processes: Awaited<ReturnType<typeof openProcess>>[] = [];

beforeAll(async () => {
  ctx = await createTestContext({
    FANOUT_BATCH_SIZE: '5',
    SIMULATOR_BATCH_SIZE: '10',
    SIMULATOR_DELIVERY_DELAY_MS: '20',
    SIMULATOR_FAIL_RATE: '0',
    WORKER_CONCURRENCY: '2',
  });
});
afterAll(async () => {
  for (const process of processes) await process.close().catch(() => {});
  await ctx?.close();
});

const open = async () => {
  const process = await openProcess(ctx);
  processes.push(process);
  return process;
};

const send = (tenant: Awaited<ReturnType<typeof createSendingCompany>>, body: object) =>
  ctx.app.inject({ method: 'POST', url: '/api/v1/messages/bulk/send', headers: tenant.admin, payload: body });

describe('scheduled sends', () => {
  it('go at their time, not before, even when the worker that saw them scheduled was restarted', async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, numbers(50, 0, 4));
    // Far enough ahead that the first worker is opened and closed before it, on a busy machine too.
    const scheduledAt = new Date(Date.now() + 8000);
    const response = await send(tenant, {
      serviceIds: [service.id],
      message: 'At three',
      scheduleType: 'scheduled',
      scheduledAt: scheduledAt.toISOString(),
    });
    expect(response.statusCode, response.body).toBe(201);
    const id = response.json().data.message.id;

    const first = await open();
    await first.startWorker();
    await new Promise((resolve) => setTimeout(resolve, 800));
    await first.close();
    expect((await messageRow(ctx.ownerDb, id))?.status).toBe('scheduled');

    const second = await open();
    await second.startWorker();
    const delivered = await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'delivered',
      { what: 'the scheduled message to be delivered', timeoutMs: 20_000 },
    );
    const send_ = await ctx.ownerDb
      .selectFrom('message_sends')
      .selectAll()
      .where('message_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(send_.started_at!.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
    expect(delivered?.sent_at?.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
    await second.close();
  });
});

describe('fan-out checkpoints', () => {
  it('continue where a stopped fan-out left off: earlier batches are kept, nobody is added twice', async () => {
    const tenant = await createSendingCompany(ctx);
    const a = await tenant.service();
    const b = await tenant.service();
    await subscribe(ctx.ownerDb, a, numbers(51, 0, 9));
    await subscribe(ctx.ownerDb, b, numbers(51, 5, 9));
    const response = await send(tenant, { serviceIds: [a.id, b.id], message: 'Checkpoints' });
    const { id, queue_job_id: jobId } = response.json().data.message;
    expect(response.json().data.recipientCount).toBe(14);
    // The first worker starts the send and writes one step of 5, then is gone.
    const queue = ctx.deps.messaging.queue;
    expect(await startSend(ctx.db, queue, tenant.company.id, id, jobId)).toBe(true);
    const sizes = { stepSize: 5, batchSize: 10 };
    await runFanOutStep(ctx.db, queue, { companyId: tenant.company.id, messageId: id, after: '0' }, sizes);
    const before = await recipientsOf(ctx.ownerDb, id);
    expect(before).toHaveLength(5);
    const checkpoint = await ctx.ownerDb
      .selectFrom('message_sends')
      .select(['state', 'fanout_cursor'])
      .where('message_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(checkpoint.state).toBe('fanout');
    expect(Number(checkpoint.fanout_cursor)).toBe(Math.max(...before.map((row) => row.subscriber_id!)));
    // The same step again (its job retried after the commit): the cursor has moved on, nothing is added.
    await runFanOutStep(ctx.db, queue, { companyId: tenant.company.id, messageId: id, after: '0' }, sizes);
    expect(await recipientsOf(ctx.ownerDb, id)).toHaveLength(5);

    // Another worker takes over; the send's job, fetched again, finds it already started.
    const next = await open();
    await next.startWorker();
    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'delivered',
      { what: 'delivery' },
    );
    const after = await recipientsOf(ctx.ownerDb, id);
    expect(after).toHaveLength(14);
    expect(new Set(after.map((row) => row.recipient_phone)).size).toBe(14);
    expect(after.slice(0, 5).map((row) => row.id)).toEqual(before.map((row) => row.id));
    expect(after.every((row) => row.attempts === 1)).toBe(true);
    expect((await messageRow(ctx.ownerDb, id))?.recipient_count).toBe(14);
    await next.close();
  });
});

describe('two workers on one database', () => {
  it('share a send without handing anyone over twice', async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, numbers(52, 0, 400));
    const one = await open();
    const two = await open();
    const workers = [await one.startWorker(), await two.startWorker()];
    const response = await send(tenant, { serviceIds: [service.id], message: 'Shared' });
    const id = response.json().data.message.id;
    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'delivered',
      {
        what: 'delivery',
        timeoutMs: 30_000,
      },
    );
    const simulators = await Promise.all(
      workers.map(
        async (worker) =>
          (await worker.providers.forCompany(tenant.company.id)).provider as SimulatorProvider,
      ),
    );
    const [a, b] = simulators.map((simulator) => simulator.stats());
    expect(a.accepted).toBeGreaterThan(0);
    expect(b.accepted).toBeGreaterThan(0);
    expect(a.accepted + b.accepted).toBe(400);
    expect(a.reoffers + b.reoffers).toBe(0);
    const rows = await recipientsOf(ctx.ownerDb, id);
    expect(rows).toHaveLength(400);
    expect(rows.every((row) => row.attempts === 1 && row.status === 'delivered')).toBe(true);
    expect(new Set(rows.map((row) => row.gateway_message_id)).size).toBe(400);
    await one.close();
    await two.close();
  });
});
