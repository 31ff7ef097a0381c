import { sql } from 'kysely';
import smpp from 'smpp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CompanyProviderSettings } from '../src/messaging/providers/company-provider-settings.ts';
import { startFakeSmsc } from './support/fake-smsc.ts';
import {
  createSendingCompany,
  messageRow,
  numbers,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// The real SMPP adapter against the fake SMSC: the connection dropped with a window of submits in
// flight, then a spell of ESME_RTHROTTLED, then ESME_RSYSERR for some recipients, and receipts for
// ids nobody was given. The link reconnects, throttling is waited out (not hammered, not counted
// against the recipients), and every recipient is accepted once and delivered.

const RECIPIENTS = 200;
const WINDOW = 10;
const THROTTLE_MS = 1500;
const credentials = { systemId: 'faults', password: 'pw-fault' };
let ctx: TestContext;
let smsc: Awaited<ReturnType<typeof startFakeSmsc>>;

beforeAll(async () => {
  ctx = await createTestContext({ SEND_MAX_ATTEMPTS: '3' });
  smsc = await startFakeSmsc(credentials);
  await startWorker(ctx, {
    loadSettings: async (): Promise<CompanyProviderSettings> => ({
      kind: 'smpp',
      messagesPerSecond: 1000,
      batchSize: 50,
      smpp: {
        host: smsc.host,
        port: smsc.port,
        ...credentials,
        bindMode: 'transceiver',
        window: WINDOW,
        batchSize: 50,
        submitTimeoutMs: 2000,
        bindTimeoutMs: 2000,
        reconnect: { initialMs: 200, maxMs: 1000 },
        allowedPrivateHosts: ['127.0.0.1'],
      },
    }),
  });
});
afterAll(async () => {
  await ctx?.close();
  await smsc?.close();
});

it('SMPP: a drop mid-window, throttling and system errors, receipts for unknown ids: reconnects, waits out throttling, nothing lost or accepted twice', {
  timeout: 90_000,
}, async () => {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  const msisdns = numbers(59, 0, RECIPIENTS);
  await subscribe(ctx.ownerDb, service, msisdns);
  const systemErrors = new Set(msisdns.slice(-20).map((number) => number.slice(1)));
  const refusedOnce = new Set<string>();
  let phase: 'slow' | 'throttled' | 'normal' = 'slow';
  let throttledAnswers = 0;
  smsc.setPlan((pdu) => {
    const destination = String(pdu.destination_addr);
    if (phase === 'slow') return { delayMs: 300, receipt: 'DELIVRD' };
    if (phase === 'throttled') {
      throttledAnswers += 1;
      return { status: smpp.ESME_RTHROTTLED };
    }
    if (systemErrors.has(destination) && !refusedOnce.has(destination)) {
      refusedOnce.add(destination);
      return { status: smpp.ESME_RSYSERR };
    }
    return { receipt: 'DELIVRD' };
  });

  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message: 'Through the SMSC faults' },
  });
  expect(response.statusCode, response.body).toBe(201);
  const messageId: number = response.json().data.message.id;

  // A window's worth in flight, then the connection is cut under it.
  await waitFor(
    async () => [smsc.submits.length, smsc.stats.outstanding] as const,
    ([submitted, outstanding]) => submitted >= 30 && outstanding >= WINDOW / 2,
    { what: 'a window of submits in flight' },
  );
  const inFlightAtDrop = smsc.stats.outstanding;
  const bindsBefore = smsc.binds.length;
  phase = 'throttled';
  smsc.dropAll();
  await waitFor(
    async () => smsc.binds.length,
    (binds) => binds > bindsBefore,
    { what: 'the link to bind again' },
  );
  await new Promise((resolve) => setTimeout(resolve, THROTTLE_MS));
  phase = 'normal';
  const throttled = throttledAnswers;

  // Receipts for ids the SMSC never gave: acknowledged, kept aside, nothing changed.
  const unknown = [];
  for (let i = 0; i < 5; i++)
    unknown.push(
      await smsc.sendDeliverSm({
        source_addr: '254700000000',
        destination_addr: '22550',
        esm_class: smpp.ESM_CLASS.MC_DELIVERY_RECEIPT,
        short_message: `id:NOBODY${i} sub:001 dlvrd:001 submit date:2603011000 done date:2603011001 stat:DELIVRD err:000 text:`,
      }),
    );
  expect(unknown.map((pdu) => pdu.command_status)).toEqual([0, 0, 0, 0, 0]);

  const rows = await waitFor(
    async () =>
      (
        await sql<{ phone: string; status: string; attempts: number; gateway: string }>`
          select recipient_phone as phone, status, attempts, gateway_message_id as gateway
            from delivery_reports where message_id = ${messageId}`.execute(ctx.ownerDb)
      ).rows,
    (found) => found.length === RECIPIENTS && found.every((row) => row.status === 'delivered'),
    { timeoutMs: 60_000, everyMs: 200, what: 'every recipient delivered' },
  );
  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'delivered',
    { what: 'the message delivered' },
  );

  // The SMSC accepted (and answered) each recipient once, under the id its receipt names.
  const acceptedBy = new Map<string, string[]>();
  for (const { destination, messageId: id } of smsc.accepted)
    acceptedBy.set(destination, [...(acceptedBy.get(destination) ?? []), id]);
  expect(acceptedBy.size).toBe(RECIPIENTS);
  expect([...acceptedBy.values()].filter((ids) => ids.length !== 1)).toEqual([]);
  for (const row of rows) expect(acceptedBy.get(row.phone.slice(1)), row.phone).toEqual([row.gateway]);
  // A system error is the recipient's attempt; a drop or throttling is not.
  for (const row of rows) expect(row.attempts, row.phone).toBe(refusedOnce.has(row.phone.slice(1)) ? 2 : 1);
  expect(refusedOnce.size).toBeGreaterThan(0);
  // Throttling waited out: each batch held back the rest of its window and paused, so over the
  // throttled spell only a few windows' worth was answered THROTTLED (4 batches, a window each a second).
  expect(throttled).toBeGreaterThan(0);
  expect(throttled).toBeLessThanOrEqual(4 * WINDOW * Math.ceil(THROTTLE_MS / 1000 + 1));
  const kept = await sql<{ n: number }>`
    select count(*)::int as n from unmatched_delivery_reports where company_id = ${tenant.company.id}`.execute(
    ctx.ownerDb,
  );
  // The SMSC also processed submits whose answer the drop lost (it sends their receipts): those
  // phones got a copy the engine never heard of, then the re-offer's. At most the window in flight.
  const reachedTwice = kept.rows[0].n - unknown.length;
  expect(reachedTwice).toBeLessThanOrEqual(inFlightAtDrop);
  console.info(
    `fault SMPP: ${RECIPIENTS} sent; ${smsc.submits.length} submit_sm in all (${inFlightAtDrop} in flight at the drop, ` +
      `${throttled} answered THROTTLED over ${THROTTLE_MS} ms, ${refusedOnce.size} ESME_RSYSERR); ${smsc.accepted.length} accepted, ` +
      `0 accepted twice as answered, ${reachedTwice} processed twice (answer lost in the drop; bound ${inFlightAtDrop}), 0 lost; ` +
      `final: ${rows.length} delivered; 5 receipts for unknown ids acknowledged and kept aside`,
  );
});
