import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundSms } from '../src/messaging/providers/provider.ts';
import { createSimulatorProvider } from '../src/messaging/providers/simulator.ts';
import {
  createSendingCompany,
  messageRow,
  numbers,
  openProcess,
  statusCounts,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The simulator's delivery reports are queue jobs (simulator-report), stored before it answers a
 * batch: a worker stopped before they were due leaves them to the next worker, as a real provider
 * keeps its reports whoever of our workers handed the messages over.
 */
let ctx: TestContext;
const processes: Awaited<ReturnType<typeof openProcess>>[] = [];

beforeAll(async () => {
  ctx = await createTestContext({
    SIMULATOR_DELIVERY_DELAY_MS: '5000',
    SIMULATOR_BATCH_SIZE: '50',
    SIMULATOR_FAIL_RATE: '0.2',
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

describe('simulated delivery reports', () => {
  it('survive the worker that handed over: a worker started after it posts them, every recipient ends final', {
    timeout: 60_000,
  }, async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, numbers(61, 0, 200));
    const first = await open();
    await first.startWorker();
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers: tenant.admin,
      payload: { serviceIds: [service.id], message: 'Reports after a restart' },
    });
    expect(response.statusCode, response.body).toBe(201);
    const id: number = response.json().data.message.id;
    await waitFor(
      () => statusCounts(ctx.ownerDb, id),
      (counts) => (counts.submitted ?? 0) === 200,
      { what: 'every recipient handed over' },
    );
    // Stopped before the reports were due (5 s after acceptance).
    await first.close();
    expect((await statusCounts(ctx.ownerDb, id)).submitted).toBeGreaterThan(0);

    const second = await open();
    await second.startWorker();
    const counts = await waitFor(
      () => statusCounts(ctx.ownerDb, id),
      (now) => (now.delivered ?? 0) + (now.failed ?? 0) === 200,
      { timeoutMs: 30_000, what: 'every recipient delivered or failed' },
    );
    expect(counts.submitted).toBeUndefined();
    expect(counts.delivered).toBeGreaterThan(0);
    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'delivered',
      { what: 'the message delivered' },
    );
  });
});

describe('the simulator by itself', () => {
  const sms = (key: string): OutboundSms => ({
    recipientKey: key,
    to: '+254700000001',
    from: '22550',
    text: 'Hi',
    encoding: 'GSM-7',
    parts: 1,
  });
  const simulator = (
    rememberedRecipients: number,
    scheduleReports: (payload: unknown, options: { key: string }) => Promise<unknown>,
  ) =>
    createSimulatorProvider(
      {
        rejectRate: 0,
        retryRate: 0,
        failRate: 0,
        deliveryDelayMs: 1000,
        dlrConcurrency: 32,
        maxBatchSize: 1000,
        rememberedRecipients,
      },
      { companyId: 7, dlrUrl: 'http://127.0.0.1:9/dlr', scheduleReports },
    );

  it('remembers only the last recipient keys it accepted; one forgotten gets the same report job again', async () => {
    const keys: string[] = [];
    const provider = simulator(2, async (_payload, options) => keys.push(options.key));
    await provider.sendBatch([sms('a'), sms('b'), sms('c')]);
    // 'c' is among the last two: a re-offer, no new report.
    await provider.sendBatch([sms('c')]);
    expect(provider.stats()).toMatchObject({ accepted: 3, reoffers: 1 });
    // 'a' was forgotten: accepted again, its report job keyed as the first one (the same job id).
    await provider.sendBatch([sms('a')]);
    expect(provider.stats()).toMatchObject({ accepted: 4, reoffers: 1 });
    expect(keys).toEqual(['7:a', '7:a']);
    await provider.close();
  });

  it('accepts nothing whose report job could not be stored: the batch is a retry, offered again later', async () => {
    let stored = false;
    const provider = simulator(10, async () => {
      if (!stored) throw new Error('database unavailable');
    });
    const refused = await provider.sendBatch([sms('x'), sms('y')]);
    expect(refused.map((outcome) => outcome.outcome)).toEqual(['retry', 'retry']);
    stored = true;
    const accepted = await provider.sendBatch([sms('x'), sms('y')]);
    expect(accepted.map((outcome) => outcome.outcome)).toEqual(['accepted', 'accepted']);
    expect(provider.stats()).toMatchObject({ accepted: 2, reoffers: 0 });
    await provider.close();
  });
});
