import type { TSmppMessageIdType } from '@sms/contracts/admin/company-provider';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeIdForm, startFakeSmsc } from './support/fake-smsc.ts';
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
 * SMSCs that give a message's id in hex in submit_sm_resp and in decimal in its receipt, or the
 * reverse: the company's message ID type says which, and the default matches both.
 */
let ctx: TestContext;
let systemAdmin: Record<string, string>;
const credentials = { systemId: 'idtypes', password: 'pw-ids' };
const smscs = new Map<FakeIdForm, Awaited<ReturnType<typeof startFakeSmsc>>>();

beforeAll(async () => {
  ctx = await createTestContext();
  for (const form of ['hex_decimal', 'decimal_hex'] as const) {
    const smsc = await startFakeSmsc(credentials, { idForm: form });
    smsc.setPlan(() => ({ receipt: 'DELIVRD' }));
    smscs.set(form, smsc);
  }
  systemAdmin = await signInSystemAdmin(ctx);
  await startWorker(ctx);
});
afterAll(async () => {
  await ctx?.close();
  for (const smsc of smscs.values()) await smsc.close();
});

let prefix = 50;

async function sendThrough(form: FakeIdForm, messageIdType: TSmppMessageIdType | undefined) {
  const smsc = smscs.get(form)!;
  const tenant = await createSendingCompany(ctx);
  const configured = await ctx.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/companies/${tenant.company.id}`,
    headers: systemAdmin,
    payload: {
      name: tenant.company.name,
      email: `c${tenant.company.id}@co.test`,
      phoneNumber: '+254700',
      address: 'Road',
      provider: { kind: 'smpp', host: smsc.host, port: smsc.port, ...credentials, messageIdType },
    },
  });
  expect(configured.statusCode, configured.body).toBe(200);
  const service = await tenant.service();
  const msisdns = numbers(prefix++, 0, 2);
  await subscribe(ctx.ownerDb, service, msisdns);
  const sent = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message: 'Which form is your id?' },
  });
  expect(sent.statusCode, sent.body).toBe(201);
  return { messageId: sent.json().data.message.id as number, companyId: tenant.company.id };
}

describe('message ids in hex and in decimal', () => {
  it.each([
    ['hex in submit_sm_resp, decimal in receipts', 'hex_decimal', 'hex_decimal'],
    ['decimal in submit_sm_resp, hex in receipts', 'decimal_hex', 'decimal_hex'],
    ['hex in submit_sm_resp, decimal in receipts, by default', 'hex_decimal', undefined],
    ['decimal in submit_sm_resp, hex in receipts, by default', 'decimal_hex', undefined],
  ] as const)('an SMSC with %s: its receipts deliver the recipients', async (_name, form, type) => {
    const { messageId } = await sendThrough(form, type);
    const recipients = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.length === 2 && rows.every((row) => row.status === 'delivered'),
      { what: 'both receipts applied' },
    );
    // Shown as the SMSC gave it in submit_sm_resp.
    const submitted = smscs.get(form)!.messageIds;
    for (const row of recipients) expect(submitted).toContain(row.gateway_message_id);
  });

  it('an SMSC set to give the same text in both: a receipt in the other base matches nobody', async () => {
    const { messageId, companyId } = await sendThrough('hex_decimal', 'same');
    // The receipts came and were kept as unknown ids: the setting is what made the others match.
    await waitFor(
      async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from unmatched_delivery_reports where company_id = ${companyId}`.execute(
          ctx.ownerDb,
        );
        return rows[0].n;
      },
      (kept) => kept === 2,
      { what: 'both receipts kept unmatched' },
    );
    const recipients = await recipientsOf(ctx.ownerDb, messageId);
    expect(recipients.map((row) => row.status)).toEqual(['submitted', 'submitted']);
  });
});
