import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulatorProvider } from '../src/messaging/providers/simulator.ts';
import {
  countTotals,
  createSendingCompany,
  messageRow,
  numbers,
  recipientsOf,
  startWorker,
  statusCounts,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let worker: Awaited<ReturnType<typeof startWorker>>;

beforeAll(async () => {
  ctx = await createTestContext({
    FANOUT_BATCH_SIZE: '7',
    SIMULATOR_BATCH_SIZE: '5',
    SIMULATOR_DELIVERY_DELAY_MS: '30',
    SIMULATOR_FAIL_RATE: '0',
    WORKER_LANES: '2',
  });
  worker = await startWorker(ctx);
});
afterAll(async () => ctx?.close());

const send = (tenant: Awaited<ReturnType<typeof createSendingCompany>>, body: object) =>
  ctx.app.inject({ method: 'POST', url: '/api/v1/messages/bulk/send', headers: tenant.admin, payload: body });

describe('a bulk send through the simulator', () => {
  it('resolves one recipient per active number across services, hands them over in batches and applies their reports', async () => {
    const tenant = await createSendingCompany(ctx);
    const news = await tenant.service();
    const sports = await tenant.service();
    const paused = await tenant.service({ status: 'inactive' });
    // 20 on news, 15 on sports of which 10 also on news, 3 inactive subscribers, 4 only on an inactive service.
    await subscribe(ctx.ownerDb, news, numbers(10, 0, 20));
    await subscribe(ctx.ownerDb, sports, numbers(10, 10, 15));
    await subscribe(ctx.ownerDb, news, numbers(11, 0, 3), 'unsubscribed');
    await subscribe(ctx.ownerDb, paused, numbers(12, 0, 4));

    const response = await send(tenant, {
      serviceIds: [news.id, sports.id],
      message: 'Hello from the engine',
    });
    expect(response.statusCode, response.body).toBe(201);
    const { data } = response.json();
    expect(data.recipientCount).toBe(25);
    expect(data.message.status).toBe('queued');
    expect(data.message.queue_job_id).toMatch(/^[0-9a-f-]{36}$/);

    const message = await waitFor(
      () => messageRow(ctx.ownerDb, data.message.id),
      (row) => row?.status === 'delivered',
      { what: 'the message to be delivered' },
    );
    expect(message?.recipient_count).toBe(25);
    expect(message?.sent_at).not.toBeNull();
    const recipients = await recipientsOf(ctx.ownerDb, data.message.id);
    expect(recipients).toHaveLength(25);
    expect(new Set(recipients.map((r) => r.recipient_phone)).size).toBe(25);
    expect(recipients.every((r) => r.status === 'delivered' && r.gateway_message_id && r.delivered_at)).toBe(
      true,
    );
    expect(recipients.every((r) => r.attempts === 1)).toBe(true);
    // Numbers on both services went through one of them; inactive subscribers and services reached nobody.
    expect(
      recipients.filter(
        (r) => r.recipient_phone.startsWith('+254711') || r.recipient_phone.startsWith('+254712'),
      ),
    ).toEqual([]);
    expect(await countTotals(ctx.ownerDb, data.message.id)).toMatchObject({
      total: 25,
      delivered: 25,
      pending: 0,
    });
    const simulator = (await worker.providers.forCompany(tenant.company.id)).provider as SimulatorProvider;
    expect(simulator.stats()).toMatchObject({ accepted: 25, reoffers: 0 });
    expect(await statusCounts(ctx.ownerDb, data.message.id)).toEqual({ delivered: 25 });
  });
});
