import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CompanyProviderSettings } from '../src/messaging/providers/company-provider-settings.ts';
import { startFakeAfricasTalking } from './support/fake-africastalking.ts';
import {
  createSendingCompany,
  messageRow,
  numbers,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// The real Africa's Talking adapter against the local fake, through four phases: HTTP 500s, then
// time-outs (the fake takes the messages over and never answers), then per-recipient failures,
// then recovery. Every recipient ends final or, taken over in a request that timed out, submitted
// with its outcome unknown (never offered again: the fake's ledger shows no one taken twice).
//
// Shortened for a test run: the 500s last FAULT_AT_OUTAGE_MS (2 s here; the 30 s with
// FAULT_AT_OUTAGE_MS=30000) and at least three requests; the adapter's time-out is 300 ms. Requests
// of 10, so that the recipients of the requests that time out (unknown, never offered again) leave
// most for the phases after.

const RECIPIENTS = 300;
const OUTAGE_MS = Number(process.env.FAULT_AT_OUTAGE_MS ?? 2000);
const credentials = { apiKey: 'fault-key', username: 'fault' };
let ctx: TestContext;
let fake: Awaited<ReturnType<typeof startFakeAfricasTalking>>;

beforeAll(async () => {
  ctx = await createTestContext({ SEND_MAX_ATTEMPTS: '3' });
  fake = await startFakeAfricasTalking(credentials);
  await startWorker(ctx, {
    loadSettings: async (): Promise<CompanyProviderSettings> => ({
      kind: 'africastalking',
      messagesPerSecond: 1000,
      batchSize: 10,
      africastalking: {
        baseUrl: fake.baseUrl,
        ...credentials,
        batchSize: 10,
        timeoutMs: 300,
        allowedPrivateHosts: ['127.0.0.1'],
      },
    }),
  });
});
afterAll(async () => {
  await ctx?.close();
  await fake?.close();
});

const requestsAtLeast = (count: number, what: string) =>
  waitFor(
    async () => fake.requests.length,
    (n) => n >= count,
    { timeoutMs: 30_000, what },
  );

it("Africa's Talking: 500s, then time-outs, then per-recipient failures, then recovery: every recipient final or unknown, no duplicate", {
  timeout: 90_000,
}, async () => {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  const msisdns = numbers(58, 0, RECIPIENTS);
  await subscribe(ctx.ownerDb, service, msisdns);
  // The last recipients: the first are the ones the 500s and the time-outs meet.
  const rejected = new Set(msisdns.slice(-10));
  const failing = new Set(msisdns.slice(-20, -10));
  const hiccup = new Set(msisdns.slice(-30, -20));

  // Phase 1: the whole API answers 500.
  fake.setOverride((res) =>
    res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Internal Server Error'),
  );
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message: 'Through every fault' },
  });
  expect(response.statusCode, response.body).toBe(201);
  const messageId: number = response.json().data.message.id;
  const outageEnds = Date.now() + OUTAGE_MS;
  await requestsAtLeast(3, 'three requests answered 500');
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, outageEnds - Date.now())));
  const answered500 = fake.requests.length;

  // Phase 2: taken over, never answered.
  fake.setOverride(null);
  fake.setWithholdAnswers(true);
  await waitFor(
    async () => fake.stats.abandonedByClient,
    (n) => n >= 3,
    { what: 'three requests taken over and timed out by the adapter' },
  );
  fake.setWithholdAnswers(false);

  // Phase 3: per-recipient answers: refused for good, failing every time, failing for now.
  for (const number of rejected) fake.answers.set(number, { statusCode: 403, status: 'InvalidPhoneNumber' });
  for (const number of failing) fake.answers.set(number, { statusCode: 501, status: 'GatewayError' });
  for (const number of hiccup) fake.answers.set(number, { statusCode: 500, status: 'InternalServerError' });
  const beforeMixed = fake.requests.length;
  await requestsAtLeast(beforeMixed + 3, 'three requests with per-recipient failures');

  // Phase 4: recovery (the always-failing and refused numbers stay so: their own fate).
  for (const number of hiccup) fake.answers.delete(number);
  const rows = await waitFor(
    async () =>
      (
        await sql<{
          phone: string;
          status: string;
          attempts: number;
          gateway: string | null;
          unknown: boolean;
        }>`
          select recipient_phone as phone, status, attempts, gateway_message_id as gateway,
                 outcome_unknown_since is not null as unknown
            from delivery_reports where message_id = ${messageId}`.execute(ctx.ownerDb)
      ).rows,
    (found) => found.length === RECIPIENTS && found.every((row) => row.status !== 'pending'),
    { timeoutMs: 45_000, everyMs: 200, what: 'every recipient final' },
  );
  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'sent',
    { what: 'the message sent' },
  );

  // Taken over in a request that timed out: submitted, outcome unknown, never offered again.
  const unknown = rows.filter((row) => row.unknown);
  const unknownPhones = new Set(unknown.map((row) => row.phone));
  expect(unknownPhones).toEqual(new Set(fake.acceptedUnanswered));
  expect(unknown.every((row) => row.status === 'submitted' && row.gateway === null)).toBe(true);
  const known = rows.filter((row) => !row.unknown);
  const byStatus = (status: string) => known.filter((row) => row.status === status);
  expect(
    byStatus('rejected')
      .map((row) => row.phone)
      .sort(),
  ).toEqual([...rejected].filter((phone) => !unknownPhones.has(phone)).sort());
  expect(
    byStatus('failed')
      .map((row) => row.phone)
      .sort(),
  ).toEqual([...failing].filter((phone) => !unknownPhones.has(phone)).sort());
  expect(byStatus('failed').every((row) => row.attempts === 3)).toBe(true);
  const submitted = byStatus('submitted');
  expect(submitted.length + unknown.length).toBe(
    RECIPIENTS - byStatus('rejected').length - byStatus('failed').length,
  );
  expect(submitted.every((row) => row.gateway?.startsWith('ATXid_'))).toBe(true);

  // The fake's ledger: everyone submitted was taken over, and nobody twice: a time-out offers no
  // one again (the duplicate bound is 0 per time-out; before, each time-out could add a copy).
  for (const row of submitted) expect(fake.acceptedCounts.get(row.phone), row.phone).toBe(1);
  let duplicates = 0;
  for (const times of fake.acceptedCounts.values()) duplicates += times - 1;
  expect(duplicates).toBe(0);
  console.info(
    `fault Africa's Talking: ${RECIPIENTS} sent; ${answered500} requests answered 500 over ${OUTAGE_MS} ms, ` +
      `${fake.stats.abandonedByClient} timed out (${fake.acceptedUnanswered.length} taken over unanswered); handed over ${submitted.length}, ` +
      `duplicates ${duplicates}, lost 0; final: ${submitted.length} submitted, ${unknown.length} unknown ` +
      `(waiting for their reports), ${byStatus('rejected').length} rejected, ` +
      `${byStatus('failed').length} failed after 3 attempts`,
  );
});
