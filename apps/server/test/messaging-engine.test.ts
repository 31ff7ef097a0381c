import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyProviderSettings } from '../src/messaging/providers/company-provider-settings.ts';
import type { SmsProvider } from '../src/messaging/providers/provider.ts';
import { buildProvider } from '../src/messaging/providers/registry.ts';
import type { SimulatorProvider } from '../src/messaging/providers/simulator.ts';
import {
  countTotals,
  createSendingCompany,
  messageRow,
  numbers,
  recipientsOf,
  scriptedProvider,
  startWorker,
  statusCounts,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let worker: Awaited<ReturnType<typeof startWorker>>;
/** Per company, a provider or provider settings of the test's choosing; the rest get the simulator. */
const providers = new Map<number, SmsProvider>();
const settings = new Map<number, { messagesPerSecond?: number; batchSize?: number }>();

beforeAll(async () => {
  ctx = await createTestContext({
    FANOUT_BATCH_SIZE: '7',
    SIMULATOR_BATCH_SIZE: '5',
    SIMULATOR_DELIVERY_DELAY_MS: '30',
    SIMULATOR_FAIL_RATE: '0',
    SEND_MAX_ATTEMPTS: '3',
    WORKER_CONCURRENCY: '2',
  });
  const simulatorSettings = ctx.config.messaging.simulator;
  worker = await startWorker(ctx, {
    build: (chosen, context) => providers.get(context.companyId) ?? buildProvider(chosen, context),
    loadSettings: async (_trx, companyId): Promise<CompanyProviderSettings> => ({
      kind: 'simulator',
      messagesPerSecond: settings.get(companyId)?.messagesPerSecond ?? simulatorSettings.messagesPerSecond,
      batchSize: settings.get(companyId)?.batchSize ?? simulatorSettings.batchSize,
      simulator: {
        rejectRate: 0,
        retryRate: 0,
        failRate: 0,
        deliveryDelayMs: simulatorSettings.deliveryDelayMs,
        dlrConcurrency: 4,
        maxBatchSize: simulatorSettings.batchSize,
      },
    }),
  });
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
    // Steps of 7 subscribers: the fourth leaves nobody after its cursor and is the last.
    const { rows: steps } = await sql<{ n: number }>`
      select count(*)::int as n from pgboss.job
       where name = 'send-fanout' and (data->>'messageId')::bigint = ${data.message.id}`.execute(ctx.ownerDb);
    expect(steps[0].n).toBe(4);
  });
});

describe('a service switched off before its send fans out', () => {
  it('reaches only the subscribers of the services still active when the fan-out runs', async () => {
    const tenant = await createSendingCompany(ctx);
    const news = await tenant.service();
    const sports = await tenant.service();
    // 6 on news, 8 on sports of which 2 also on news: with sports switched off, news' 6 alone.
    await subscribe(ctx.ownerDb, news, numbers(13, 0, 6));
    await subscribe(ctx.ownerDb, sports, numbers(13, 4, 8));
    const response = await send(tenant, {
      serviceIds: [news.id, sports.id],
      message: 'Scheduled before the switch',
      scheduleType: 'scheduled',
      scheduledAt: new Date(Date.now() + 1500).toISOString(),
    });
    expect(response.statusCode, response.body).toBe(201);
    const { data } = response.json();
    await sql`update services set status = 'inactive' where id = ${sports.id}`.execute(ctx.ownerDb);

    await waitFor(
      () => messageRow(ctx.ownerDb, data.message.id),
      (row) => row?.status === 'delivered',
      { what: 'the message to be delivered' },
    );
    const recipients = await recipientsOf(ctx.ownerDb, data.message.id);
    expect(recipients.map((r) => r.recipient_phone).sort()).toEqual(numbers(13, 0, 6).sort());
    expect(recipients.every((r) => Number(r.service_id) === Number(news.id))).toBe(true);
  });
});

describe('hand-over failures', () => {
  it('retries transient errors with growing backoff, fails a recipient after the last attempt, and rejects for good', async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    const [flaky, broken, refused, fine] = numbers(40, 0, 4);
    await subscribe(ctx.ownerDb, service, [flaky, broken, refused, fine]);
    const provider = scriptedProvider((sms, offer) => {
      if (sms.to === flaky) return offer < 3 ? 'retry' : 'accepted';
      if (sms.to === broken) return 'retry';
      if (sms.to === refused) return 'rejected';
      return 'accepted';
    });
    providers.set(tenant.company.id, provider);
    const response = await send(tenant, { serviceIds: [service.id], message: 'Try again' });
    const id = response.json().data.message.id;
    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'sent',
      { what: 'hand-over' },
    );
    const rows = await recipientsOf(ctx.ownerDb, id);
    const byPhone = new Map(rows.map((row) => [row.recipient_phone, row]));
    expect(byPhone.get(flaky)).toMatchObject({
      status: 'submitted',
      attempts: 3,
      next_attempt_at: null,
      error_message: null,
    });
    expect(byPhone.get(broken)).toMatchObject({
      status: 'failed',
      attempts: 3,
      error_message: 'GatewayError',
      gateway_message_id: null,
    });
    expect(byPhone.get(refused)).toMatchObject({
      status: 'rejected',
      attempts: 1,
      error_message: 'InvalidPhoneNumber',
    });
    expect(byPhone.get(fine)).toMatchObject({ status: 'submitted', attempts: 1 });
    // Accepted recipients are never offered again; retried ones waited out a growing backoff.
    const offersOf = (phone: string) =>
      provider.offers
        .filter((offer) => offer.key === String(byPhone.get(phone)!.id))
        .map((offer) => offer.at);
    expect(offersOf(fine)).toHaveLength(1);
    expect(offersOf(refused)).toHaveLength(1);
    const [first, second, third] = offersOf(flaky);
    expect(second - first).toBeGreaterThanOrEqual(150 * 0.8 - 5);
    expect(third - second).toBeGreaterThanOrEqual(300 * 0.8 - 5);
    expect(await countTotals(ctx.ownerDb, id)).toMatchObject({
      submitted: 2,
      failed: 1,
      rejected: 1,
      pending: 0,
    });
  });

  it('hands over in batches of the provider’s size', async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, numbers(41, 0, 23));
    const provider = scriptedProvider(() => 'accepted');
    providers.set(tenant.company.id, provider);
    settings.set(tenant.company.id, { batchSize: 4 });
    const id = (await send(tenant, { serviceIds: [service.id], message: 'Batches' })).json().data.message.id;
    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'sent',
      { what: 'hand-over' },
    );
    expect(Math.max(...provider.batchSizes)).toBe(4);
    expect(provider.batchSizes.reduce((sum, size) => sum + size, 0)).toBe(23);
    expect(new Set(provider.offers.map((offer) => offer.key)).size).toBe(23);
  });
});

describe('the provider rate', () => {
  it('never hands a company more than its messages per second', async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, numbers(42, 0, 25));
    const provider = scriptedProvider(() => 'accepted');
    providers.set(tenant.company.id, provider);
    settings.set(tenant.company.id, { messagesPerSecond: 10, batchSize: 4 });
    const started = Date.now();
    const id = (await send(tenant, { serviceIds: [service.id], message: 'Slowly' })).json().data.message.id;
    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'sent',
      { what: 'hand-over' },
    );
    // 25 at 10 a second: three one-second windows at least, so more than a second from first to last.
    expect(Date.now() - started).toBeGreaterThan(1000);
    const { rows } = await sql<{ second: Date; n: number }>`
      select date_trunc('second', submitted_at) as second, count(*)::int as n from delivery_reports
       where message_id = ${id} group by 1 order by 1`.execute(ctx.ownerDb);
    expect(rows.reduce((sum, row) => sum + row.n, 0)).toBe(25);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...rows.map((row) => row.n))).toBeLessThanOrEqual(10);
    const window = await ctx.ownerDb
      .selectFrom('company_send_windows')
      .selectAll()
      .where('company_id', '=', tenant.company.id)
      .executeTakeFirstOrThrow();
    expect(window.used).toBeLessThanOrEqual(10);
  });
});
