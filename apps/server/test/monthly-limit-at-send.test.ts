import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSendingCompany,
  fallDue,
  messageRow,
  messagesUsed,
  numbers,
  recipientsOf,
  scheduleSend,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The monthly limit holds when a send starts, not only when it is accepted: a send scheduled while
 * its services were small is checked again against the recipients it really has (issue: "plan
 * limits can't be raced past by scheduling"). Driven as the probe did: schedule, import, let it run.
 */
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext({ SIMULATOR_FAIL_RATE: '0', SIMULATOR_DELIVERY_DELAY_MS: '30' });
  await startWorker(ctx);
});
afterAll(async () => ctx?.close());

type Tenant = Awaited<ReturnType<typeof createSendingCompany>>;

async function importNumbers(tenant: Tenant, serviceId: number, msisdns: string[]) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/services/${serviceId}/subscribers/import`,
    headers: tenant.admin,
    payload: { csv: ['phone', ...msisdns].join('\n') },
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json().data.imported).toBe(msisdns.length);
}

// The simulator fails nobody here: a send that goes out ends delivered.
const FINAL = ['delivered', 'failed'];
const finished = (id: number) =>
  waitFor(
    () => messageRow(ctx.ownerDb, id),
    (row) => FINAL.includes(row?.status ?? ''),
    { what: `message ${id} to finish` },
  );

const jobStatusOf = async (tenant: Tenant, id: number) =>
  (
    await ctx.app.inject({ method: 'GET', url: `/api/v1/messages/${id}/details`, headers: tenant.admin })
  ).json().data.jobStatus;

const handedOver = (rows: { status: string }[]) => rows.filter((row) => row.status !== 'pending');

// UCS-2 (the check marks) and 80 characters: two SMS parts per recipient.
const TWO_PARTS = `Results are in ✓ ${'x'.repeat(63)}`;

describe('the monthly limit when a send starts', () => {
  it('hands nothing over when the recipients imported after scheduling take the send past the month, and says so', async () => {
    const tenant = await createSendingCompany(ctx, { messagesLimit: 10 });
    const news = await tenant.service();
    await subscribe(ctx.ownerDb, news, numbers(70, 0, 1));
    const message = await scheduleSend(ctx, tenant, [news.id], TWO_PARTS);
    expect(message.parts).toBe(2);
    expect(await messagesUsed(ctx.ownerDb, tenant.company.id)).toBe(2);

    // 6 recipients x 2 parts = 12 of a limit of 10 (but 6 recipients alone would fit: parts count).
    await importNumbers(tenant, news.id, numbers(70, 1, 5));
    await fallDue(ctx, message);

    expect((await finished(message.id))?.status).toBe('failed');
    const recipients = await recipientsOf(ctx.ownerDb, message.id);
    expect(recipients).toHaveLength(6);
    expect(handedOver(recipients)).toEqual([]);
    expect(await jobStatusOf(tenant, message.id)).toMatchObject({
      status: 'failed',
      failedReason: MESSAGE_MESSAGES.monthlyLimitReachedAtSend(0, 10),
    });
    // Nothing went out, so nothing is counted: the reservation is given back.
    expect(await messagesUsed(ctx.ownerDb, tenant.company.id)).toBe(0);
  });

  it('lets only one of two sends that start together take the month’s last room', async () => {
    const tenant = await createSendingCompany(ctx, { messagesLimit: 10 });
    const news = await tenant.service();
    const sports = await tenant.service();
    await subscribe(ctx.ownerDb, news, numbers(71, 0, 1));
    await subscribe(ctx.ownerDb, sports, numbers(72, 0, 1));
    const first = await scheduleSend(ctx, tenant, [news.id], 'News at noon');
    const second = await scheduleSend(ctx, tenant, [sports.id], 'Sports at noon');
    expect(await messagesUsed(ctx.ownerDb, tenant.company.id)).toBe(2);

    // Each now needs 6 of the 10: either fits alone, both together do not.
    await importNumbers(tenant, news.id, numbers(71, 1, 5));
    await importNumbers(tenant, sports.id, numbers(72, 1, 5));
    await fallDue(ctx, first, second);

    const outcomes = await Promise.all([finished(first.id), finished(second.id)]);
    expect(outcomes.map((row) => row?.status).sort()).toEqual(['delivered', 'failed']);
    const failed = outcomes.find((row) => row?.status === 'failed')!;
    expect((await jobStatusOf(tenant, failed.id)).failedReason).toBe(
      MESSAGE_MESSAGES.monthlyLimitReachedAtSend(6, 10),
    );
    const delivered = outcomes.find((row) => row?.status === 'delivered')!;
    expect(handedOver(await recipientsOf(ctx.ownerDb, delivered.id))).toHaveLength(6);
    expect(handedOver(await recipientsOf(ctx.ownerDb, failed.id))).toEqual([]);
    expect(await messagesUsed(ctx.ownerDb, tenant.company.id)).toBe(6);
  });
});
