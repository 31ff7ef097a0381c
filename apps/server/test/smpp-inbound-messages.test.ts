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
