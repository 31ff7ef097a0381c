import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyProviderSettings } from '../src/messaging/providers/company-provider-settings.ts';
import type { SmsProvider, SubmitOutcome } from '../src/messaging/providers/provider.ts';
import { buildProvider } from '../src/messaging/providers/registry.ts';
import {
  createSendingCompany,
  messageRow,
  numbers,
  recipientsOf,
  signInSystemAdmin,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// Outages and flow control are not the recipients' fault: they hold the send, they do not use up
// its attempts (SEND_MAX_ATTEMPTS is 2 here), and the send goes on once the provider answers.
let ctx: TestContext;
const providers = new Map<number, SmsProvider>();

beforeAll(async () => {
  ctx = await createTestContext({
    SIMULATOR_BATCH_SIZE: '10',
    SIMULATOR_FAIL_RATE: '0',
    SIMULATOR_DELIVERY_DELAY_MS: '10',
    SEND_MAX_ATTEMPTS: '2',
  });
  const simulator = ctx.config.messaging.simulator;
  await startWorker(ctx, {
    build: (chosen, context) => providers.get(context.companyId) ?? buildProvider(chosen, context),
    loadSettings: async (): Promise<CompanyProviderSettings> => ({
      kind: 'simulator',
      messagesPerSecond: 1_000_000,
      batchSize: 10,
      simulator: { ...simulator, rejectRate: 0, retryRate: 0, failRate: 0, maxBatchSize: 10 },
    }),
  });
});
afterAll(async () => ctx?.close());

/** A provider that answers every recipient with `answer()` until `answer` is changed. */
function switchableProvider(answer: (key: string) => SubmitOutcome) {
  const provider = {
    kind: 'smpp' as const,
    maxBatchSize: 10,
    calls: 0,
    answer,
    async sendBatch(messages: { recipientKey: string }[]) {
      provider.calls++;
      return messages.map((sms) => provider.answer(sms.recipientKey));
    },
    async close() {},
  };
  return provider;
}

const accepted = (key: string): SubmitOutcome => ({
  recipientKey: key,
  outcome: 'accepted',
  providerMessageId: `OK-${key}`,
});

async function sendFive(prefix: number) {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, numbers(prefix, 0, 5));
  return { tenant, service };
}

async function send(tenant: Awaited<ReturnType<typeof createSendingCompany>>, serviceId: number) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [serviceId], message: 'Through an outage' },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data.message.id as number;
}

describe('an account-wide provider failure', () => {
  it('holds the send with the reason, shows the provider failing to the admin, and resumes by itself', {
    timeout: 60_000,
  }, async () => {
    const { tenant, service } = await sendFive(70);
    const reason = 'not bound to the SMSC: the SMSC refused the bind: ESME_RINVPASWD';
    const provider = switchableProvider((key) => ({
      recipientKey: key,
      outcome: 'retry',
      reason,
      scope: 'account',
    }));
    providers.set(tenant.company.id, provider);
    const id = await send(tenant, service.id);

    const details = () =>
      ctx.app
        .inject({ method: 'GET', url: `/api/v1/messages/${id}/details`, headers: tenant.admin })
        .then((response) => response.json().data);
    const held = await waitFor(details, (data) => data?.jobStatus?.status === 'delayed', {
      what: 'the send to be held',
    });
    expect(held.jobStatus.failedReason).toBe(MESSAGE_MESSAGES.providerUnavailable(reason));
    // Probed again, not burnt: past SEND_MAX_ATTEMPTS of 2, nobody failed and no attempt counted.
    await waitFor(
      async () => provider.calls,
      (calls) => calls >= 3,
      { what: 'the provider to be probed again', timeoutMs: 30_000 },
    );
    const waiting = await recipientsOf(ctx.ownerDb, id);
    expect(waiting.every((row) => row.status === 'pending')).toBe(true);
    // At most the offer in flight is counted (its claim), and given back once it is answered.
    expect(Math.max(...waiting.map((row) => row.attempts))).toBeLessThanOrEqual(1);

    const admin = await signInSystemAdmin(ctx);
    const companyOf = async () => {
      const response = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/admin/companies?searchTerm=${encodeURIComponent(tenant.company.name)}`,
        headers: admin,
      });
      return response.json().data.companies.find((found: { id: number }) => found.id === tenant.company.id);
    };
    expect((await companyOf()).providerFailure).toMatchObject({ reason });

    provider.answer = accepted;
    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'sent',
      { what: 'the send to go on once the provider answers', timeoutMs: 45_000 },
    );
    expect((await companyOf()).providerFailure).toBeNull();
    const rows = await recipientsOf(ctx.ownerDb, id);
    expect(rows.map((row) => [row.status, row.attempts])).toEqual(rows.map(() => ['submitted', 1]));
  });
});

describe('flow control', () => {
  it('waits out throttling without using up the recipients’ attempts', { timeout: 60_000 }, async () => {
    const { tenant, service } = await sendFive(71);
    const provider = switchableProvider((key) => ({
      recipientKey: key,
      outcome: 'retry',
      reason: 'the SMSC refused submit_sm: ESME_RTHROTTLED',
      scope: 'request',
    }));
    providers.set(tenant.company.id, provider);
    const id = await send(tenant, service.id);
    await waitFor(
      async () => provider.calls,
      (calls) => calls >= 3,
      { what: 'three throttled offers', timeoutMs: 30_000 },
    );
    provider.answer = accepted;
    await waitFor(
      () => messageRow(ctx.ownerDb, id),
      (row) => row?.status === 'sent',
      { what: 'the send to go on', timeoutMs: 45_000 },
    );
    const rows = await recipientsOf(ctx.ownerDb, id);
    expect(rows.every((row) => row.status === 'submitted')).toBe(true);
  });

  it('still fails a recipient the provider refuses for itself, after its attempts', {
    timeout: 60_000,
  }, async () => {
    const { tenant, service } = await sendFive(72);
    providers.set(
      tenant.company.id,
      switchableProvider((key) => ({ recipientKey: key, outcome: 'retry', reason: 'GatewayError (501)' })),
    );
    const id = await send(tenant, service.id);
    const rows = await waitFor(
      () => recipientsOf(ctx.ownerDb, id),
      (found) => found.length === 5 && found.every((row) => row.status === 'failed'),
      { what: 'the recipients to fail after 2 attempts', timeoutMs: 45_000 },
    );
    expect(rows.every((row) => row.attempts === 2 && row.error_message === 'GatewayError (501)')).toBe(true);
  });
});
