import type { ServerResponse } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failUnknownOutcomes } from '../src/messaging/maintenance.ts';
import type { CompanyProviderSettings } from '../src/messaging/providers/company-provider-settings.ts';
import { startFakeAfricasTalking } from './support/fake-africastalking.ts';
import {
  countTotals,
  createSendingCompany,
  messageRow,
  numbers,
  recipientsOf,
  sendState,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * Africa's Talking takes a request and never answers it (the hand-over times out), then reports
 * the messages delivered: the recipients wait as submitted, their outcome unknown, are never
 * offered again, and the late reports settle them by company and phone number.
 */
let ctx: TestContext;
const credentials = { apiKey: 'atsk_unknown_0123456789', username: 'unknown-co' };
let at: Awaited<ReturnType<typeof startFakeAfricasTalking>>;
/** Requests the fake took and never answered, ended when the test is over. */
const unanswered: ServerResponse[] = [];
const TIMEOUT_MS = 300;

beforeAll(async () => {
  ctx = await createTestContext();
  at = await startFakeAfricasTalking(credentials);
  at.setOverride((res) => {
    unanswered.push(res);
  });
  await startWorker(ctx, {
    loadSettings: async (): Promise<CompanyProviderSettings> => ({
      kind: 'africastalking',
      messagesPerSecond: 100,
      batchSize: 10,
      africastalking: {
        baseUrl: at.baseUrl,
        ...credentials,
        batchSize: 10,
        timeoutMs: TIMEOUT_MS,
        allowedPrivateHosts: ['127.0.0.1'],
      },
    }),
  });
});
afterAll(async () => {
  for (const res of unanswered) res.destroy();
  await ctx?.close();
  await at?.close();
});

type Tenant = Awaited<ReturnType<typeof createSendingCompany>>;

async function sendTo(tenant: Tenant, msisdns: string[]) {
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, msisdns);
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message: 'Taken, never answered' },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data.message.id as number;
}

async function report(tenant: Tenant, fields: Record<string, string>) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/callbacks/dlr/${tenant.company.id}/${tenant.tokens.dlr}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  expect(response.statusCode, response.body).toBe(200);
}

/** How many requests named each number: offers of one recipient. */
const offersOf = (msisdns: string[]) =>
  msisdns.map((msisdn) => at.requests.filter((r) => r.form.to?.split(',').includes(msisdn)).length);

const kept = async (companyId: number) => {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from unmatched_delivery_reports where company_id = ${companyId}`.execute(
    ctx.ownerDb,
  );
  return rows[0].n;
};

describe('a hand-over that times out', () => {
  let tenant: Tenant;
  let messageId: number;
  const msisdns = numbers(61, 0, 3);

  beforeAll(async () => {
    tenant = await createSendingCompany(ctx);
    messageId = await sendTo(tenant, msisdns);
  });

  it('leaves its recipients submitted with the outcome unknown, not failed, and offers them once', async () => {
    const recipients = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.length === 3 && rows.every((row) => row.status !== 'pending'),
      { what: 'the hand-over timed out' },
    );
    for (const row of recipients) {
      expect(row.status).toBe('submitted');
      expect(row.outcome_unknown_since).not.toBeNull();
      expect(row.gateway_message_id).toBeNull();
      expect(row.error_message).toBe(
        `Africa's Talking did not answer within ${TIMEOUT_MS} ms; the provider may have taken it: waiting for its delivery report`,
      );
    }
    // Nobody is left to offer: the send is handed over, the message on its way.
    await waitFor(
      () => sendState(ctx.ownerDb, messageId),
      (state) => state === 'done',
      { what: 'the send handed over' },
    );
    expect((await messageRow(ctx.ownerDb, messageId))?.status).toBe('sent');
    // The duplicate bound: a time-out re-offers nobody (one request per recipient, ever).
    expect(offersOf(msisdns)).toEqual([1, 1, 1]);
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({ submitted: 3, failed: 0 });
  });

  it("settles them by the late reports' phone numbers: delivered, counted once, no failure", async () => {
    await report(tenant, {
      id: 'ATXid_late_1',
      status: 'Success',
      phoneNumber: msisdns[0]!,
      networkCode: '63902',
    });
    // An intermediate report settles it too; the final one then finds it by its id.
    await report(tenant, { id: 'ATXid_late_2', status: 'Sent', phoneNumber: msisdns[1]! });
    await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows[1]!.status === 'sent',
      { what: 'the intermediate report applied' },
    );
    await report(tenant, { id: 'ATXid_late_2', status: 'Success', phoneNumber: msisdns[1]! });
    // A repeat changes nothing.
    await report(tenant, { id: 'ATXid_late_1', status: 'Success', phoneNumber: msisdns[0]! });
    const recipients = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows[0]!.status === 'delivered' && rows[1]!.status === 'delivered',
      { what: 'the late reports applied' },
    );
    expect(recipients.slice(0, 2)).toMatchObject([
      { gateway_message_id: 'ATXid_late_1', error_message: null, outcome_unknown_since: null },
      { gateway_message_id: 'ATXid_late_2', error_message: null, outcome_unknown_since: null },
    ]);
    expect(recipients[2]).toMatchObject({ status: 'submitted', outcome_unknown_since: expect.any(Date) });
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({
      delivered: 2,
      submitted: 1,
      failed: 0,
    });
    expect(offersOf(msisdns)).toEqual([1, 1, 1]);
  });

  it('keeps a report for a number with no recipient waiting, as any unknown id', async () => {
    await report(tenant, { id: 'ATXid_stranger', status: 'Success', phoneNumber: numbers(61, 50, 1)[0]! });
    await waitFor(
      () => kept(tenant.company.id),
      (n) => n === 1,
      { what: 'the report kept' },
    );
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({ delivered: 2, submitted: 1 });
  });

  it('ends failed, saying why, once the validity has passed without a report', async () => {
    await sql`
      update delivery_reports set outcome_unknown_since = now() - interval '25 hours'
       where message_id = ${messageId} and outcome_unknown_since is not null`.execute(ctx.ownerDb);
    expect(await failUnknownOutcomes(ctx.db, 24)).toBe(1);
    const recipients = await recipientsOf(ctx.ownerDb, messageId);
    expect(recipients[2]).toMatchObject({
      status: 'failed',
      outcome_unknown_since: null,
      error_message:
        "The provider did not answer the hand-over, and no delivery report came within the send's validity (24 h)",
    });
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({
      delivered: 2,
      submitted: 0,
      failed: 1,
    });
    expect((await messageRow(ctx.ownerDb, messageId))?.status).toBe('delivered');
  });
});

describe('a report that comes before the hand-over is known to have timed out', () => {
  it('is kept with its phone number and settles the recipient once its outcome is unknown', async () => {
    const tenant = await createSendingCompany(ctx);
    const [msisdn] = numbers(63, 0, 1);
    let keptRow: Record<string, unknown> | undefined;
    let failure: unknown;
    // Africa's Talking takes the request, delivers and reports at once, and its answer is lost:
    // the report is in before the hand-over has recorded anything.
    at.setOverride((res) => {
      void (async () => {
        await report(tenant, { id: 'ATXid_before_timeout', status: 'Success', phoneNumber: msisdn! });
        await waitFor(
          () => kept(tenant.company.id),
          (n) => n === 1,
          { what: 'the early report kept' },
        );
        const { rows } = await sql<{ row: Record<string, unknown> }>`
          select to_jsonb(u) as row from unmatched_delivery_reports u where company_id = ${tenant.company.id}`.execute(
          ctx.ownerDb,
        );
        keptRow = rows[0]?.row;
      })()
        .catch((error) => {
          failure = error;
        })
        .finally(() => res.destroy());
    });
    try {
      const messageId = await sendTo(tenant, [msisdn!]);
      const [settled] = await waitFor(
        () => recipientsOf(ctx.ownerDb, messageId),
        (rows) => failure !== undefined || rows[0]?.status === 'delivered',
        { what: 'the kept report applied by its phone number' },
      );
      expect(failure).toBeUndefined();
      expect(settled).toMatchObject({
        status: 'delivered',
        gateway_message_id: 'ATXid_before_timeout',
        outcome_unknown_since: null,
        error_message: null,
      });
      // What the provider sent is kept with the report, for the match and for anyone looking.
      expect(keptRow).toMatchObject({ gateway_message_id: 'ATXid_before_timeout', recipient_phone: msisdn });
      expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({ delivered: 1, submitted: 0 });
      expect(await kept(tenant.company.id)).toBe(0);
    } finally {
      at.setOverride((res) => {
        unanswered.push(res);
      });
    }
  });
});

describe('two unknown recipients of one number', () => {
  it('are settled one per report, the longest waiting first', async () => {
    const tenant = await createSendingCompany(ctx);
    const [msisdn] = numbers(62, 0, 1);
    const first = await sendTo(tenant, [msisdn!]);
    await waitFor(
      () => recipientsOf(ctx.ownerDb, first),
      (rows) => rows[0]?.outcome_unknown_since != null,
      { what: 'the first hand-over timed out' },
    );
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, [msisdn!]);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers: tenant.admin,
      payload: { serviceIds: [service.id], message: 'Again' },
    });
    const second = response.json().data.message.id as number;
    await waitFor(
      () => recipientsOf(ctx.ownerDb, second),
      (rows) => rows[0]?.outcome_unknown_since != null,
      { what: 'the second hand-over timed out' },
    );
    await report(tenant, {
      id: 'ATXid_twice_1',
      status: 'Failed',
      failureReason: 'UserInBlackList',
      phoneNumber: msisdn!,
    });
    await waitFor(
      () => recipientsOf(ctx.ownerDb, first),
      (rows) => rows[0]!.status === 'failed',
      { what: 'the first settled' },
    );
    expect((await recipientsOf(ctx.ownerDb, second))[0]!.status).toBe('submitted');
    await report(tenant, { id: 'ATXid_twice_2', status: 'Success', phoneNumber: msisdn! });
    await waitFor(
      () => recipientsOf(ctx.ownerDb, second),
      (rows) => rows[0]!.status === 'delivered',
      { what: 'the second settled' },
    );
    expect((await recipientsOf(ctx.ownerDb, first))[0]).toMatchObject({
      status: 'failed',
      error_message: 'UserInBlackList',
    });
  });
});
