import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeSmsc } from './support/fake-smsc.ts';
import {
  createSendingCompany,
  signInSystemAdmin,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * Handset messages (MO) that arrive over a company's SMPP link as deliver_sm: stored as inbound
 * messages the way Africa's Talking's incoming-message callback stores them, and answered once
 * stored, with the SMSC's time kept when it gives one.
 */
let ctx: TestContext;
const credentials = { systemId: 'mo', password: 'pw-mo' };
let smsc: Awaited<ReturnType<typeof startFakeSmsc>>;
let tenant: Awaited<ReturnType<typeof createSendingCompany>>;
let service: { id: number; company_id: number };

beforeAll(async () => {
  ctx = await createTestContext();
  smsc = await startFakeSmsc(credentials);
  const systemAdmin = await signInSystemAdmin(ctx);
  tenant = await createSendingCompany(ctx);
  service = await tenant.service({ shortcode: '22384', keyword: 'NEWS' });
  const configured = await ctx.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/companies/${tenant.company.id}`,
    headers: systemAdmin,
    payload: {
      name: tenant.company.name,
      email: `c${tenant.company.id}@co.test`,
      phoneNumber: '+254700',
      address: 'Road',
      provider: { kind: 'smpp', host: smsc.host, port: smsc.port, ...credentials },
    },
  });
  expect(configured.statusCode, configured.body).toBe(200);
  await startWorker(ctx);
  await waitFor(
    async () => smsc.boundSessions(),
    (sessions) => sessions.length > 0,
    { what: "the company's link bound" },
  );
});
afterAll(async () => {
  await ctx?.close();
  await smsc?.close();
});

const inbound = async () => {
  const { rows } = await sql<{
    content: string;
    msisdn: string;
    service_id: number | null;
    created_at: Date;
  }>`
    select content, msisdn, service_id, created_at from messages
     where company_id = ${tenant.company.id} and direction = 'inbound' order by id`.execute(ctx.ownerDb);
  return rows;
};

describe('a handset message over SMPP', () => {
  it('is stored as an inbound message before its deliver_sm is answered, with the SMSC’s time', async () => {
    const sentAt = new Date(Date.now() - 10 * 60_000);
    sentAt.setMilliseconds(0);
    const answer = await smsc.sendDeliverSm({
      source_addr: '254711000101',
      destination_addr: '22384',
      short_message: 'Hello from a handset',
      schedule_delivery_time: sentAt,
    });
    expect(answer.command_status).toBe(0);
    // Answered OK only once stored: it is there as soon as the answer is.
    expect(await inbound()).toEqual([
      {
        content: 'Hello from a handset',
        msisdn: '+254711000101',
        service_id: service.id,
        created_at: sentAt,
      },
    ]);
  });

  it('acts as the incoming-message callback does: STOP unsubscribes the sender', async () => {
    const msisdn = '+254711000102';
    await subscribe(ctx.ownerDb, service, [msisdn]);
    const answer = await smsc.sendDeliverSm({
      source_addr: msisdn.slice(1),
      destination_addr: '22384',
      short_message: 'STOP',
    });
    expect(answer.command_status).toBe(0);
    const { rows } = await sql<{ status: string }>`
      select sub.status from subscriptions sub join subscribers s on s.id = sub.subscriber_id
       where s.company_id = ${tenant.company.id} and s.msisdn = ${msisdn}`.execute(ctx.ownerDb);
    expect(rows.map((row) => row.status)).toEqual(['unsubscribed']);
    expect((await inbound()).at(-1)).toMatchObject({ content: 'STOP', msisdn });
  });
});

describe('a handset message the SMSC sends again (our deliver_sm_resp lost or late)', () => {
  const sameText = async (text: string) => (await inbound()).filter((row) => row.content === text);

  it('is stored once when sent again without the SMSC’s time, and both times answered OK', async () => {
    const pdu = {
      source_addr: '254711000201',
      destination_addr: '22384',
      short_message: 'Resent without a time',
    };
    expect((await smsc.sendDeliverSm(pdu)).command_status).toBe(0);
    expect((await smsc.sendDeliverSm(pdu)).command_status).toBe(0);
    expect(await sameText('Resent without a time')).toHaveLength(1);
  });

  it('is stored once when the resend comes while the first is still being stored', async () => {
    const pdu = {
      source_addr: '254711000202',
      destination_addr: '22384',
      short_message: 'Resent while late',
    };
    const waiting = async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks
         where not granted and database = (select oid from pg_database where datname = current_database())`.execute(
        ctx.ownerDb,
      );
      return rows[0]!.n;
    };
    // The table is busy: the first store waits to insert, long enough for the SMSC to give up on it.
    const sent = await ctx.ownerDb.transaction().execute(async (trx) => {
      await sql`lock table messages in share mode`.execute(trx);
      const first = smsc.sendDeliverSm(pdu);
      await waitFor(waiting, (n) => n === 1, { what: 'the first store waiting' });
      const again = smsc.sendDeliverSm(pdu);
      await waitFor(waiting, (n) => n === 2, { what: 'the resend waiting' });
      return [first, again];
    });
    const answers = await Promise.all(sent);
    expect(answers.map((answer) => answer.command_status)).toEqual([0, 0]);
    expect(await sameText('Resent while late')).toHaveLength(1);
  });

  it('is stored once when sent again with the same SMSC time, however late', async () => {
    const sentAt = new Date(Date.now() - 5 * 60_000);
    sentAt.setMilliseconds(0);
    const pdu = {
      source_addr: '254711000203',
      destination_addr: '22384',
      short_message: 'Resent with a time',
      schedule_delivery_time: sentAt,
    };
    expect((await smsc.sendDeliverSm(pdu)).command_status).toBe(0);
    expect((await smsc.sendDeliverSm(pdu)).command_status).toBe(0);
    expect(await sameText('Resent with a time')).toHaveLength(1);
  });

  it('keeps two messages of the same text a minute apart, and the same text to another address', async () => {
    const sentAt = new Date(Date.now() - 5 * 60_000);
    sentAt.setMilliseconds(0);
    const pdu = { source_addr: '254711000204', destination_addr: '22384', short_message: 'NEWS' };
    await smsc.sendDeliverSm({ ...pdu, schedule_delivery_time: sentAt });
    await smsc.sendDeliverSm({ ...pdu, schedule_delivery_time: new Date(sentAt.getTime() + 60_000) });
    // Without the SMSC's time: the first arrived a minute ago (its row aged as the clock would).
    await smsc.sendDeliverSm(pdu);
    await sql`
      update messages set created_at = created_at - interval '1 minute'
       where company_id = ${tenant.company.id} and direction = 'inbound' and msisdn = '+254711000204'`.execute(
      ctx.ownerDb,
    );
    await smsc.sendDeliverSm(pdu);
    await smsc.sendDeliverSm({ ...pdu, destination_addr: '22385' });
    const kept = (await inbound()).filter((row) => row.msisdn === '+254711000204');
    expect(kept).toHaveLength(5);
  });
});
