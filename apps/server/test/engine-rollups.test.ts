import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSendingCompany,
  messageRow,
  numbers,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { rollupDifferences } from './support/rollup-differences.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The rollups behind the dashboard and reports follow the real engine: sends handed over by the
 * worker, refused and failed recipients, delivery reports posted back by the simulator.
 */
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({
    SIMULATOR_DELIVERY_DELAY_MS: '20',
    FANOUT_BATCH_SIZE: '9',
    WORKER_CONCURRENCY: '2',
  });
  const simulator = ctx.config.messaging.simulator;
  await startWorker(ctx, {
    loadSettings: async () => ({
      kind: 'simulator',
      messagesPerSecond: simulator.messagesPerSecond,
      batchSize: 7,
      simulator: {
        rejectRate: 0.15,
        retryRate: 0,
        failRate: 0.25,
        deliveryDelayMs: 20,
        dlrConcurrency: 4,
        maxBatchSize: 7,
      },
    }),
  });
});
afterAll(async () => ctx?.close());

const FINAL = ['sent', 'delivered', 'failed'];

describe('rollups under the engine', () => {
  it('stay exact through real sends and delivery reports, and the figures agree with the engine', async () => {
    const tenant = await createSendingCompany(ctx);
    const news = await tenant.service();
    const sports = await tenant.service();
    await subscribe(ctx.ownerDb, news, numbers(31, 0, 40));
    await subscribe(ctx.ownerDb, sports, numbers(31, 30, 25));

    const ids: number[] = [];
    for (const serviceIds of [[news.id], [news.id, sports.id]]) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/messages/bulk/send',
        headers: tenant.admin,
        payload: { serviceIds, message: 'Rollup check' },
      });
      expect(response.statusCode, response.body).toBe(201);
      ids.push(response.json().data.message.id);
    }
    // Every recipient handed over and every accepted one reported on.
    await waitFor(
      async () => {
        const rows = await ctx.ownerDb
          .selectFrom('delivery_reports')
          .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
          .where('message_id', 'in', ids)
          .groupBy('status')
          .execute();
        const statuses = await Promise.all(
          ids.map(async (id) => (await messageRow(ctx.ownerDb, id))?.status),
        );
        return { rows, statuses };
      },
      ({ rows, statuses }) =>
        statuses.every((status) => status && FINAL.includes(status)) &&
        rows.every((row) => !['pending', 'submitted', 'sent'].includes(row.status)),
      { what: 'both sends final', timeoutMs: 30_000 },
    );
    expect(await rollupDifferences(ctx.ownerDb)).toEqual([]);

    // 40 on news; news and sports share 10 numbers, so the second send reaches 40 + 15.
    const handedOver = 40 + 55;
    const stats = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/dashboard/stats', headers: tenant.admin })
    ).json().data;
    expect(stats.totalMessages).toBe(handedOver);
    const usage = await ctx.ownerDb
      .selectFrom('company_monthly_usage')
      .select('messages_used')
      .where('company_id', '=', tenant.company.id)
      .executeTakeFirstOrThrow();
    expect(stats.usageStats.messagesUsed).toBe(Number(usage.messages_used));
    expect(stats.usageStats.messagesUsed).toBe(handedOver);

    const report = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/reports?timeframe=24h', headers: tenant.viewer })
    ).json().data;
    const kpi = (id: string) => report.kpis.find((k: { id: string }) => k.id === id).value;
    expect(kpi('messages_sent')).toBe(handedOver);
    const direct = await ctx.ownerDb
      .selectFrom('delivery_reports')
      .select((eb) => [
        eb.fn.countAll<number>().filterWhere('status', '=', 'delivered').as('delivered'),
        eb.fn.countAll<number>().filterWhere('status', 'in', ['failed', 'rejected', 'expired']).as('failed'),
      ])
      .where('company_id', '=', tenant.company.id)
      .executeTakeFirstOrThrow();
    expect(kpi('messages_delivered')).toBe(Number(direct.delivered));
    expect(kpi('messages_failed')).toBe(Number(direct.failed));
    expect(Number(direct.failed)).toBeGreaterThan(0);
  });
});
