import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyProviderSettings } from '../src/messaging/providers/company-provider-settings.ts';
import {
  createSendingCompany,
  fallDue,
  messageRow,
  messagesUsed,
  numbers,
  recipientsOf,
  scheduleSend,
  sendState,
  signInSystemAdmin,
  startWorker,
  statusCounts,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * A company that is not active sends nothing: a send that falls due meanwhile, or is under way,
 * is held at its next hand-over (recipients not handed over stay pending), and on reactivation
 * goes on, unless it is SEND_VALIDITY_HOURS past its due time: then it fails.
 */
let ctx: TestContext;
let systemAdmin: Record<string, string>;
/** Per company, a provider rate of the test's choosing; the rest get the simulator's defaults. */
const rates = new Map<number, { messagesPerSecond: number; batchSize: number }>();

beforeAll(async () => {
  ctx = await createTestContext({
    SIMULATOR_FAIL_RATE: '0',
    SIMULATOR_DELIVERY_DELAY_MS: '30',
    SEND_VALIDITY_HOURS: '2',
  });
  systemAdmin = await signInSystemAdmin(ctx);
  const simulator = ctx.config.messaging.simulator;
  await startWorker(ctx, {
    loadSettings: async (_trx, companyId): Promise<CompanyProviderSettings> => ({
      kind: 'simulator',
      messagesPerSecond: rates.get(companyId)?.messagesPerSecond ?? simulator.messagesPerSecond,
      batchSize: rates.get(companyId)?.batchSize ?? simulator.batchSize,
      simulator: {
        rejectRate: 0,
        retryRate: 0,
        failRate: 0,
        deliveryDelayMs: simulator.deliveryDelayMs,
        dlrConcurrency: 4,
        maxBatchSize: simulator.batchSize,
      },
    }),
  });
});
afterAll(async () => ctx?.close());

type Tenant = Awaited<ReturnType<typeof createSendingCompany>>;

async function suspend(tenant: Tenant) {
  const response = await ctx.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/companies/${tenant.company.id}/suspend`,
    headers: systemAdmin,
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** Saves the company form with a new status, as the admin console does (suspended -> active, ...). */
async function saveStatus(tenant: Tenant, status: 'active' | 'pending') {
  const company = await ctx.ownerDb
    .selectFrom('companies')
    .selectAll()
    .where('id', '=', tenant.company.id)
    .executeTakeFirstOrThrow();
  const response = await ctx.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/companies/${company.id}`,
    headers: systemAdmin,
    payload: {
      name: company.name,
      email: company.email,
      phoneNumber: company.phone_number,
      address: company.address,
      plan: company.plan,
      status,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
}

const held = (messageId: number) =>
  waitFor(
    async () => ({
      state: await sendState(ctx.ownerDb, messageId),
      message: await messageRow(ctx.ownerDb, messageId),
    }),
    // Today's engine never holds: the send ending is the other way out of the wait.
    ({ state, message }) =>
      state === 'held' || ['sent', 'delivered', 'failed'].includes(message?.status ?? ''),
    { what: `message ${messageId}'s send to be held` },
  ).then(({ state }) => state);

const delivered = (messageId: number) =>
  waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'delivered' || row?.status === 'failed',
    { what: `message ${messageId} to be delivered` },
  ).then((row) => row?.status);

const handedOver = async (messageId: number) =>
  (await recipientsOf(ctx.ownerDb, messageId)).filter((row) => row.status !== 'pending').length;

/** As the platform's admin sees it (the company's own users are refused while it is suspended). */
const jobStatusOf = async (id: number) =>
  (
    await ctx.app.inject({ method: 'GET', url: `/api/v1/messages/${id}/details`, headers: systemAdmin })
  ).json().data.jobStatus;

describe('a suspended company’s sends', () => {
  it('holds a scheduled send that falls due while suspended, hands nothing over, and sends it on reactivation', async () => {
    const tenant = await createSendingCompany(ctx);
    const news = await tenant.service();
    await subscribe(ctx.ownerDb, news, numbers(80, 0, 8));
    const message = await scheduleSend(ctx, tenant, [news.id], 'While you were away');

    await suspend(tenant);
    await fallDue(ctx, message);
    expect(await held(message.id)).toBe('held');
    expect(await handedOver(message.id)).toBe(0);
    expect((await messageRow(ctx.ownerDb, message.id))?.status).toBe('processing');
    expect(await jobStatusOf(message.id)).toMatchObject({
      status: 'delayed',
      failedReason: MESSAGE_MESSAGES.heldCompanyNotActive,
    });

    await saveStatus(tenant, 'active');
    expect(await delivered(message.id)).toBe('delivered');
    expect(await statusCounts(ctx.ownerDb, message.id)).toEqual({ delivered: 8 });
  });

  it('stops a send under way at its next hand-over; the rest stays pending, not failed, and goes on reactivation', async () => {
    const tenant = await createSendingCompany(ctx);
    const bystander = await createSendingCompany(ctx);
    // 24 recipients at 4 a second: the send is under way for about six seconds.
    rates.set(tenant.company.id, { messagesPerSecond: 4, batchSize: 2 });
    const news = await tenant.service();
    await subscribe(ctx.ownerDb, news, numbers(81, 0, 24));
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers: tenant.admin,
      payload: { serviceIds: [news.id], message: 'Long send' },
    });
    const id: number = response.json().data.message.id;
    await waitFor(
      () => handedOver(id),
      (count) => count >= 4,
      { what: 'the first hand-overs' },
    );

    await suspend(tenant);
    expect(await held(id)).toBe('held');
    // A batch that took its recipients before the suspension may still be offering them: the hold
    // counts from a moment when no batch of the send is under way (each holds a claim while it runs).
    await waitFor(
      async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from hand_over_claims where message_id = ${id}`.execute(ctx.ownerDb);
        return rows[0].n;
      },
      (claims) => claims === 0,
      { what: 'no batch of the held send under way' },
    );
    const atHold = await handedOver(id);
    expect(atHold).toBeLessThan(24);
    // The engine keeps working for others meanwhile: another company's send goes out entirely...
    const other = await bystander.service();
    await subscribe(ctx.ownerDb, other, numbers(82, 0, 5));
    const otherSend = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers: bystander.admin,
      payload: { serviceIds: [other.id], message: 'Meanwhile' },
    });
    expect(await delivered(otherSend.json().data.message.id)).toBe('delivered');
    // ...and the held one has handed over no one more; its rest waits, none failed one by one.
    expect(await handedOver(id)).toBe(atHold);
    const counts = await statusCounts(ctx.ownerDb, id);
    expect(counts.pending).toBe(24 - atHold);
    expect(counts.failed ?? 0).toBe(0);

    await saveStatus(tenant, 'active');
    expect(await delivered(id)).toBe('delivered');
    const recipients = await recipientsOf(ctx.ownerDb, id);
    expect(recipients.every((row) => row.status === 'delivered' && row.attempts === 1)).toBe(true);
  });

  it('fails a held send that is SEND_VALIDITY_HOURS past its due time when the company is active again', async () => {
    const tenant = await createSendingCompany(ctx);
    const news = await tenant.service();
    await subscribe(ctx.ownerDb, news, numbers(83, 0, 5));
    const message = await scheduleSend(ctx, tenant, [news.id], 'Too late');
    expect(await messagesUsed(ctx.ownerDb, tenant.company.id)).toBe(5);

    // Pending (not approved) sends nothing either.
    await saveStatus(tenant, 'pending');
    await fallDue(ctx, message);
    expect(await held(message.id)).toBe('held');
    // Due three hours ago: past this server's SEND_VALIDITY_HOURS of 2.
    await sql`update messages set scheduled_at = now() - interval '3 hours' where id = ${message.id}`.execute(
      ctx.ownerDb,
    );

    await saveStatus(tenant, 'active');
    expect(await delivered(message.id)).toBe('failed');
    expect(await jobStatusOf(message.id)).toMatchObject({
      status: 'failed',
      failedReason: MESSAGE_MESSAGES.companySuspended,
    });
    expect(await statusCounts(ctx.ownerDb, message.id)).toEqual({ pending: 5 });
    // What was never handed over is given back to the month.
    expect(await messagesUsed(ctx.ownerDb, tenant.company.id)).toBe(0);
  });
});
