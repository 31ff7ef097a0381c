import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CompanyProviderSettings } from '../src/messaging/providers/company-provider-settings.ts';
import type { SmsProvider } from '../src/messaging/providers/provider.ts';
import { buildProvider } from '../src/messaging/providers/registry.ts';
import {
  createSendingCompany,
  holdUntilReleased,
  messageRow,
  numbers,
  recipientsOf,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// One worker of 4 slots, at most 2 of them for one company: a company whose provider never answers
// holds its 2, and another company's send goes through the other 2.
let ctx: TestContext;
const hung = holdUntilReleased();
let hungCompanyId = 0;
let offeredToHung = 0;

const hangingProvider: SmsProvider = {
  kind: 'africastalking',
  maxBatchSize: 10,
  async sendBatch(messages) {
    offeredToHung += messages.length;
    await hung.held;
    return messages.map((sms) => ({ recipientKey: sms.recipientKey, outcome: 'retry', reason: 'timed out' }));
  },
  async close() {},
};

beforeAll(async () => {
  ctx = await createTestContext({
    FANOUT_BATCH_SIZE: '1000',
    SIMULATOR_BATCH_SIZE: '10',
    SIMULATOR_DELIVERY_DELAY_MS: '10',
    SIMULATOR_FAIL_RATE: '0',
    WORKER_CONCURRENCY: '4',
    WORKER_CONCURRENCY_PER_COMPANY: '2',
  });
  const simulator = ctx.config.messaging.simulator;
  await startWorker(ctx, {
    build: (chosen, context) =>
      context.companyId === hungCompanyId ? hangingProvider : buildProvider(chosen, context),
    loadSettings: async (): Promise<CompanyProviderSettings> => ({
      kind: 'simulator',
      messagesPerSecond: 1_000_000,
      batchSize: 10,
      simulator: {
        rejectRate: 0,
        retryRate: 0,
        failRate: 0,
        deliveryDelayMs: simulator.deliveryDelayMs,
        dlrConcurrency: 4,
        maxBatchSize: 10,
      },
    }),
  });
});
afterAll(async () => {
  hung.release();
  await ctx?.close();
});

const sendToAll = async (tenant: Awaited<ReturnType<typeof createSendingCompany>>, serviceId: number) => {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [serviceId], message: 'Hello' },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data.message.id as number;
};

it("one company's hung provider does not hold up another company's send", { timeout: 60_000 }, async () => {
  const stuck = await createSendingCompany(ctx);
  hungCompanyId = stuck.company.id;
  const stuckService = await stuck.service();
  await subscribe(ctx.ownerDb, stuckService, numbers(90, 0, 100));
  const other = await createSendingCompany(ctx);
  const otherService = await other.service();
  await subscribe(ctx.ownerDb, otherService, numbers(91, 0, 100));

  const stuckMessage = await sendToAll(stuck, stuckService.id);
  // The hung company's batches (10 of 10 recipients) take every slot they may: 2 offers in flight.
  await waitFor(
    async () => offeredToHung,
    (offered) => offered >= 20,
    { what: 'the hung provider to hold its share of the slots' },
  );
  const otherMessage = await sendToAll(other, otherService.id);
  await waitFor(
    () => messageRow(ctx.ownerDb, otherMessage),
    (row) => row?.status === 'delivered',
    { what: "the other company's send to be delivered", timeoutMs: 30_000 },
  );
  const delivered = await recipientsOf(ctx.ownerDb, otherMessage);
  expect(delivered.filter((row) => row.status === 'delivered')).toHaveLength(100);
  // The hung company still waits on its provider: no more than its share was ever offered.
  expect(offeredToHung).toBe(20);
  expect((await messageRow(ctx.ownerDb, stuckMessage))?.status).toBe('processing');
});
