import type { Pdu } from 'smpp';
import smpp from 'smpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSmsc } from './support/fake-smsc.ts';
import {
  countTotals,
  createSendingCompany,
  messageRow,
  messagesUsed,
  numbers,
  recipientsOf,
  signInSystemAdmin,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * A long message goes out as parts, and every part's receipt counts: through the real worker and
 * the company's SMPP settings to a local SMSC that gives each part its own message id.
 */
let ctx: TestContext;
let systemAdmin: Record<string, string>;
const credentials = { systemId: 'parts', password: 'pw-parts' };
let smsc: Awaited<ReturnType<typeof startFakeSmsc>>;

/** 150 basic characters and six € (two septets each): 156 characters, 162 septets, two parts. */
const EURO_TEXT = `${'Price lst '.repeat(15)}€€€€€€`;
/** 71 UCS-2 units: one past a single Unicode SMS. */
const UCS2_TEXT = `Привет ${'ж'.repeat(64)}`;

beforeAll(async () => {
  ctx = await createTestContext();
  smsc = await startFakeSmsc(credentials);
  systemAdmin = await signInSystemAdmin(ctx);
  await startWorker(ctx);
});
afterAll(async () => {
  await ctx?.close();
  await smsc?.close();
});

/** The part's number in its concatenation header (1 for a message sent whole). */
const partOf = (pdu: Pdu) => {
  const udh = (pdu.short_message as { udh?: Buffer[] }).udh;
  return udh?.[0]?.[4] ?? 1;
};

async function smppCompany() {
  const tenant = await createSendingCompany(ctx);
  const response = await ctx.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/companies/${tenant.company.id}`,
    headers: systemAdmin,
    payload: {
      name: tenant.company.name,
      email: `c${tenant.company.id}@co.test`,
      phoneNumber: '+254700',
      address: 'Road',
      provider: { kind: 'smpp', host: smsc.host, port: smsc.port, ...credentials, messagesPerSecond: 100 },
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return tenant;
}

async function send(tenant: Awaited<ReturnType<typeof smppCompany>>, msisdns: string[], message: string) {
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, msisdns);
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data.message.id as number;
}

const submitsTo = (msisdns: string[]) =>
  smsc.submits.filter((pdu) => msisdns.includes(`+${pdu.destination_addr}`));

describe('a long message sent as parts', () => {
  it('a text of 156 characters with six € goes as two GSM-7 parts; delivered only once both parts are', async () => {
    const tenant = await smppCompany();
    const msisdns = numbers(41, 0, 2);
    // Part 1's receipt comes at once; part 2's only when the test sends it.
    smsc.setPlan((pdu) => (partOf(pdu) === 1 ? { receipt: 'DELIVRD' } : {}));
    const usedBefore = await messagesUsed(ctx.ownerDb, tenant.company.id);
    const messageId = await send(tenant, msisdns, EURO_TEXT);

    const halfway = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.length === 2 && rows.every((row) => row.delivered_parts?.join() === '1'),
      { what: "both recipients' first part delivered" },
    );
    // One part of two: on its way, not delivered.
    expect(halfway.map((row) => [row.status, row.report_parts])).toEqual([
      ['sent', 2],
      ['sent', 2],
    ]);
    const submits = submitsTo(msisdns);
    expect(submits.map((pdu) => [pdu.data_coding, partOf(pdu)]).sort()).toEqual([
      [0, 1],
      [0, 1],
      [0, 2],
      [0, 2],
    ]);
    // Usage counts parts: two per recipient.
    expect((await messageRow(ctx.ownerDb, messageId))?.parts).toBe(2);
    expect((await messagesUsed(ctx.ownerDb, tenant.company.id)) - usedBefore).toBe(4);

    for (const [index, pdu] of submits.entries()) {
      if (partOf(pdu) !== 2) continue;
      const id = smsc.messageIds[smsc.submits.indexOf(pdu)]!;
      const answer = await smsc.sendDeliverSm(
        {
          source_addr: pdu.destination_addr,
          destination_addr: pdu.source_addr,
          esm_class: smpp.ESM_CLASS.MC_DELIVERY_RECEIPT,
          short_message: `id:${id} sub:001 dlvrd:001 submit date:2603011000 done date:2603011001 stat:DELIVRD err:000 text:`,
        },
        pdu,
      );
      expect(answer.command_status, `receipt ${index}`).toBe(0);
    }
    const done = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.every((row) => row.status === 'delivered'),
      { what: 'both recipients delivered' },
    );
    expect(done.map((row) => row.delivered_parts)).toEqual([
      [1, 2],
      [1, 2],
    ]);
    await waitFor(
      () => messageRow(ctx.ownerDb, messageId),
      (row) => row?.status === 'delivered',
      { what: 'the message delivered' },
    );
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({ delivered: 2, sent: 0, submitted: 0 });
  });

  it('a Unicode text of 71 units goes as two UCS-2 parts, each with its receipt applied', async () => {
    const tenant = await smppCompany();
    const msisdns = numbers(42, 0, 1);
    smsc.setPlan(() => ({ receipt: 'DELIVRD' }));
    expect(UCS2_TEXT.length).toBe(71);
    const messageId = await send(tenant, msisdns, UCS2_TEXT);
    const [row] = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.length === 1 && rows[0]!.status === 'delivered',
      { what: 'the recipient delivered' },
    );
    expect(row).toMatchObject({ report_parts: 2, delivered_parts: [1, 2] });
    expect(submitsTo(msisdns).map((pdu) => [pdu.data_coding, partOf(pdu)])).toEqual([
      [8, 1],
      [8, 2],
    ]);
  });

  it("fails the recipient with part 2's reason when part 2 is not delivered, after part 1 was", async () => {
    const tenant = await smppCompany();
    const msisdns = numbers(43, 0, 1);
    smsc.setPlan((pdu) => (partOf(pdu) === 1 ? { receipt: 'DELIVRD' } : {}));
    const messageId = await send(tenant, msisdns, EURO_TEXT);
    await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.length === 1 && rows[0]!.delivered_parts?.join() === '1',
      { what: 'part 1 delivered' },
    );
    const part2 = submitsTo(msisdns).find((pdu) => partOf(pdu) === 2)!;
    const id = smsc.messageIds[smsc.submits.indexOf(part2)]!;
    await smsc.sendDeliverSm(
      {
        source_addr: part2.destination_addr,
        destination_addr: part2.source_addr,
        esm_class: smpp.ESM_CLASS.MC_DELIVERY_RECEIPT,
        short_message: `id:${id} sub:001 dlvrd:000 submit date:2603011000 done date:2603011001 stat:UNDELIV err:001 text:`,
      },
      part2,
    );
    const [row] = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows[0]!.status !== 'sent',
      { what: "part 2's receipt applied" },
    );
    expect(row).toMatchObject({ status: 'failed', error_message: 'UNDELIV (err 001)' });
    await waitFor(
      () => messageRow(ctx.ownerDb, messageId),
      (message) => message?.status === 'failed',
      { what: 'the message failed' },
    );
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({ delivered: 0, failed: 1, sent: 0 });
  });
});
