import smpp from 'smpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROLE } from '../src/db/database.ts';
import { startFakeSmsc } from './support/fake-smsc.ts';
import {
  createSendingCompany,
  numbers,
  recipientsOf,
  signInSystemAdmin,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * A receipt is answered only once it is stored: while the delivery-report inbox cannot be written,
 * the SMSC hears "temporary application error" and sends the receipt again, so none is lost.
 */
let ctx: TestContext;
let systemAdmin: Record<string, string>;
const credentials = { systemId: 'durable', password: 'pw-dlr' };
let smsc: Awaited<ReturnType<typeof startFakeSmsc>>;

beforeAll(async () => {
  ctx = await createTestContext({});
  smsc = await startFakeSmsc(credentials);
  systemAdmin = await signInSystemAdmin(ctx);
  await startWorker(ctx);
});
afterAll(async () => {
  await ctx?.close();
  await smsc?.close();
});

/** Storing fails for real: the app's role may not insert into the inbox (this database only). */
const inboxWrites = (allowed: boolean) =>
  ctx.ownerPool.query(
    allowed
      ? `grant insert on delivery_report_inbox to ${APP_ROLE}`
      : `revoke insert on delivery_report_inbox from ${APP_ROLE}`,
  );

describe('SMPP receipts during a storage outage', () => {
  it('answers each receipt with ESME_RX_T_APPN until it is stored; redelivered, every one ends applied', async () => {
    const tenant = await createSendingCompany(ctx);
    const configured = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/admin/companies/${tenant.company.id}`,
      headers: systemAdmin,
      payload: {
        name: tenant.company.name,
        email: 'durable@co.test',
        phoneNumber: '+254700',
        address: 'Road',
        provider: {
          kind: 'smpp',
          host: smsc.host,
          port: smsc.port,
          ...credentials,
          bindMode: 'transceiver',
          window: 5,
          messagesPerSecond: 1000,
        },
      },
    });
    expect(configured.statusCode, configured.body).toBe(200);
    smsc.setPlan(() => ({ receipt: 'DELIVRD' }));
    smsc.redeliverRefusedReceipts(100);
    const msisdns = numbers(61, 0, 20);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, msisdns);

    await inboxWrites(false);
    try {
      const sent = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/messages/bulk/send',
        headers: tenant.admin,
        payload: { serviceIds: [service.id], message: 'Receipts while the inbox is down' },
      });
      expect(sent.statusCode, sent.body).toBe(201);
      const messageId = sent.json().data.message.id as number;
      const ids = new Set<string>();
      const answersToOurs = () =>
        Promise.resolve(smsc.receiptAnswers.filter((answer) => ids.has(answer.messageId)));
      await waitFor(
        async () => {
          // Submits arrive as the worker hands recipients over: the ids are collected as they come.
          smsc.submits.forEach((pdu, index) => {
            if (msisdns.includes(`+${pdu.destination_addr}`)) ids.add(smsc.messageIds[index]!);
          });
          return new Set((await answersToOurs()).map((answer) => answer.messageId)).size;
        },
        (answered) => answered === msisdns.length,
        { what: 'every receipt answered once' },
      );
      const duringOutage = await answersToOurs();
      expect(duringOutage.filter((answer) => answer.status !== smpp.ESME_RX_T_APPN)).toEqual([]);

      await inboxWrites(true);
      const recipients = await waitFor(
        () => recipientsOf(ctx.ownerDb, messageId),
        (rows) => rows.length === msisdns.length && rows.every((row) => row.status === 'delivered'),
        { what: 'every redelivered receipt applied' },
      );
      expect(new Set(recipients.map((row) => row.gateway_message_id))).toEqual(ids);
      const accepted = (await answersToOurs()).filter((answer) => answer.status === 0);
      expect(accepted.map((answer) => answer.messageId).sort()).toEqual([...ids].sort());
    } finally {
      await inboxWrites(true);
    }
  });
});
