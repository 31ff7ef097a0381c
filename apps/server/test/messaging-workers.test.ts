import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fanOutBatch, sliceLockKey } from '../src/messaging/fan-out.ts';
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
    WORKER_LANES: '2',
  });
});
afterAll(async () => {
  for (const process of processes) await process.close().catch(() => {});
  await ctx?.close();
});

/**
 * Holds a send's fan-out slices as another worker's steps would (their advisory locks, in a
 * transaction of the owner's) until the returned function is called; it resolves once they are let go.
 */
async function holdSlices(messageId: number, slices: number[]) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = () => {};
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const holder = ctx.ownerDb.transaction().execute(async (trx) => {
    for (const slice of slices)
      await sql`select pg_advisory_xact_lock(${sliceLockKey(messageId, slice)}::bigint)`.execute(trx);
    held();
    await released;
  });
  await holding;
  return () => {
    release();
    return holder;
  };
}

const open = async () => {
  const process = await openProcess(ctx);
  processes.push(process);
  return process;
};

/** A send's fan-out slices (migration 0026): each one's checkpoint and end, and the send's state. */
const sliceCheckpoints = async (messageId: number) => {
  const { rows } = await sql<{ state: string; cursors: string[]; ends: string[] }>`
    select state, fanout_slice_cursors::text[] as cursors, fanout_slice_ends::text[] as ends
      from message_sends where message_id = ${messageId}`.execute(ctx.ownerDb);
  const row = rows[0];
  return { state: row.state, cursors: row.cursors.map(Number), ends: row.ends };
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
    // The first worker starts the send and writes one batch of 5, then is gone.
    expect(await startSend(ctx.db, tenant.company.id, id, jobId)).toBe(true);
    expect(await fanOutBatch(ctx.db, tenant.company.id, id, 5)).toBe('progress');
    const before = await recipientsOf(ctx.ownerDb, id);
    expect(before).toHaveLength(5);
    const checkpoint = await sliceCheckpoints(id);
    expect(checkpoint.state).toBe('fanout');
    expect(checkpoint.cursors[0]).toBe(Math.max(...before.map((row) => row.subscriber_id!)));

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

describe('fan-out slices', () => {
  it('are written by steps holding different slices; the send moves on once the last slice is done', async () => {
    const tenant = await createSendingCompany(ctx);
    const a = await tenant.service();
    const b = await tenant.service();
    await subscribe(ctx.ownerDb, a, numbers(53, 0, 30));
    await subscribe(ctx.ownerDb, b, numbers(53, 20, 30));
    const response = await send(tenant, { serviceIds: [a.id, b.id], message: 'Slices' });
    const { id, queue_job_id: jobId } = response.json().data.message;
    expect(await startSend(ctx.db, tenant.company.id, id, jobId)).toBe(true);
    expect(await fanOutBatch(ctx.db, tenant.company.id, id, 5, 2)).toBe('progress');
    const sliced = await sliceCheckpoints(id);
    expect(sliced.ends).toHaveLength(2);
    const firstEnd = Number(sliced.ends[0]);

    // Another worker holds the first slice: steps write the second only, and the send keeps fanning out.
    const release = await holdSlices(id, [0]);
    const before = (await recipientsOf(ctx.ownerDb, id)).map((row) => row.id);
    let steps = 0;
    while ((await fanOutBatch(ctx.db, tenant.company.id, id, 5, 2)) === 'progress') steps++;
    expect(steps).toBeGreaterThan(0);
    const written = (await recipientsOf(ctx.ownerDb, id)).filter((row) => !before.includes(row.id));
    expect(written.length).toBeGreaterThan(0);
    expect(written.every((row) => row.subscriber_id! > firstEnd)).toBe(true);
    const halfway = await sliceCheckpoints(id);
    expect(halfway.state).toBe('fanout');
    expect(halfway.cursors[1]).toBe(Number(halfway.ends[1]));
    await release();

    let result = await fanOutBatch(ctx.db, tenant.company.id, id, 5, 2);
    while (result === 'progress') result = await fanOutBatch(ctx.db, tenant.company.id, id, 5, 2);
    expect(result).toBe('finished');
    const recipients = await recipientsOf(ctx.ownerDb, id);
    expect(recipients).toHaveLength(50);
    expect(new Set(recipients.map((row) => row.recipient_phone)).size).toBe(50);
    expect((await sliceCheckpoints(id)).state).toBe('dispatch');
    expect((await messageRow(ctx.ownerDb, id))?.recipient_count).toBe(50);
    const { rows: sends } = await sql<{ recipients: number; reserved_units: number; pending: number }>`
      select s.recipients, s.reserved_units, t.pending from message_sends s
        join message_delivery_totals t on t.company_id = s.company_id and t.message_id = s.message_id
       where s.message_id = ${id}`.execute(ctx.ownerDb);
    expect(sends[0]).toEqual({ recipients: 50, reserved_units: 50, pending: 50 });
  });

  it('are all written before anyone is handed over, then everyone is handed over exactly once', async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, numbers(55, 0, 40));
    const response = await send(tenant, { serviceIds: [service.id], message: 'Written first' });
    const { id, queue_job_id: jobId } = response.json().data.message;
    expect(await startSend(ctx.db, tenant.company.id, id, jobId)).toBe(true);
    expect(await fanOutBatch(ctx.db, tenant.company.id, id, 5, 2)).toBe('progress');

    // Both slices held elsewhere: a worker can neither fan out nor, while the send fans out, hand over.
    const release = await holdSlices(id, [0, 1]);
    const worker = await open();
    await worker.startWorker();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const waiting = await recipientsOf(ctx.ownerDb, id);
    expect(waiting).toHaveLength(5);
    expect(waiting.every((row) => row.status === 'pending' && row.attempts === 0)).toBe(true);
    expect((await sliceCheckpoints(id)).state).toBe('fanout');
    await release();

    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'delivered',
      { what: 'delivery', timeoutMs: 15_000 },
    );
    const recipients = await recipientsOf(ctx.ownerDb, id);
    expect(recipients).toHaveLength(40);
    expect(recipients.every((row) => row.attempts === 1)).toBe(true);
    await worker.close();
  });

  it('taken by concurrent steps, write every subscriber once', async () => {
    const tenant = await createSendingCompany(ctx);
    const a = await tenant.service();
    const b = await tenant.service();
    await subscribe(ctx.ownerDb, a, numbers(54, 0, 120));
    await subscribe(ctx.ownerDb, b, numbers(54, 60, 120));
    const response = await send(tenant, { serviceIds: [a.id, b.id], message: 'Concurrent slices' });
    const { id, queue_job_id: jobId } = response.json().data.message;
    expect(await startSend(ctx.db, tenant.company.id, id, jobId)).toBe(true);
    const results: string[] = [];
    const lane = async () => {
      for (let i = 0; i < 200; i++) {
        const result = await fanOutBatch(ctx.db, tenant.company.id, id, 7, 3);
        results.push(result);
        if (result === 'finished' || (await sliceCheckpoints(id)).state !== 'fanout') return;
      }
    };
    await Promise.all([lane(), lane(), lane()]);
    expect(results.filter((result) => result === 'finished')).toHaveLength(1);
    const recipients = await recipientsOf(ctx.ownerDb, id);
    expect(recipients).toHaveLength(180);
    expect(new Set(recipients.map((row) => row.subscriber_id)).size).toBe(180);
    expect((await messageRow(ctx.ownerDb, id))?.recipient_count).toBe(180);
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
