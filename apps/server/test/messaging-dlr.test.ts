import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reapplyUnmatchedReports } from '../src/messaging/maintenance.ts';
import { applyAcceptedReports, inboxReports } from './support/delivery-report-inbox.ts';
import {
  countTotals,
  createSendingCompany,
  messageRow,
  numbers,
  recipientsOf,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * Delivery reports in: the simulator hands over but posts its own reports only after an hour, so
 * these tests post the provider's reports themselves.
 */
let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createSendingCompany>>;
let messageId: number;
let recipients: Awaited<ReturnType<typeof recipientsOf>>;

beforeAll(async () => {
  ctx = await createTestContext({ SIMULATOR_DELIVERY_DELAY_MS: '3600000', SIMULATOR_FAIL_RATE: '0' });
  await startWorker(ctx);
  tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, numbers(30, 0, 6));
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message: 'Reports, please' },
  });
  messageId = response.json().data.message.id;
  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'sent',
    { what: 'hand-over' },
  );
  recipients = await recipientsOf(ctx.ownerDb, messageId);
});
afterAll(async () => ctx?.close());

const post = (payload: Record<string, string> | object, token = tenant.tokens.dlr, json = false) =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/v1/callbacks/dlr/${tenant.company.id}/${token}`,
    ...(json
      ? { payload }
      : {
          payload: new URLSearchParams(payload as Record<string, string>).toString(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
  });
/** Posts a report and applies the inbox, as the worker would right after. */
const postAndApply = async (...args: Parameters<typeof post>) => {
  const response = await post(...args);
  await applyAcceptedReports(ctx.db);
  return response;
};
const ACCEPTED = { success: true, data: { accepted: 1 } };
const recipient = async (index: number) =>
  (await recipientsOf(ctx.ownerDb, messageId)).find((row) => row.id === recipients[index].id)!;

describe('POST /callbacks/dlr/{companyId}/{token}', () => {
  it('every recipient was handed over with a provider id and waits for its report', () => {
    expect(recipients).toHaveLength(6);
    expect(recipients.every((r) => r.status === 'submitted' && r.gateway_message_id)).toBe(true);
  });

  it('accepts a delivery into the inbox, then the applier moves status, delivered_at and the counters', async () => {
    const response = await post({
      id: recipients[0].gateway_message_id!,
      status: 'Success',
      phoneNumber: recipients[0].recipient_phone,
    });
    expect(response.statusCode, response.body).toBe(200);
    // The answer is a constant string: still JSON, and still the whole envelope.
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.json()).toEqual(ACCEPTED);
    await applyAcceptedReports(ctx.db);
    expect(await inboxReports(ctx.ownerDb)).toBe(0);
    const row = await recipient(0);
    expect(row).toMatchObject({ status: 'delivered', provider_status: 'Success' });
    expect(row.delivered_at).toBeInstanceOf(Date);
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({ delivered: 1, submitted: 5, total: 6 });
  });

  it('changes nothing for a repeat, an intermediate report after the final one, or a second final one', async () => {
    const before = await recipient(0);
    for (const status of ['Success', 'Sent', 'Buffered', 'Failed']) {
      const response = await postAndApply({
        id: before.gateway_message_id!,
        status,
        failureReason: 'DeliveryFailure',
      });
      expect(response.json(), status).toEqual(ACCEPTED);
    }
    expect(await recipient(0)).toEqual(before);
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({ delivered: 1, submitted: 5 });
  });

  it('moves forward through intermediate reports and records a failure with its reason (JSON bodies too)', async () => {
    const id = recipients[1].gateway_message_id!;
    expect((await postAndApply({ id, status: 'Sent' })).statusCode).toBe(200);
    expect((await recipient(1)).status).toBe('sent');
    expect((await postAndApply({ id, status: 'Submitted' })).statusCode).toBe(200);
    expect((await recipient(1)).status).toBe('sent');
    const failed = await postAndApply(
      { id, status: 'Failed', failureReason: 'UserInBlackList' },
      undefined,
      true,
    );
    expect(failed.json()).toEqual(ACCEPTED);
    expect(await recipient(1)).toMatchObject({
      status: 'failed',
      error_message: 'UserInBlackList',
      delivered_at: null,
    });
    expect(
      (await postAndApply({ id: recipients[2].gateway_message_id!, status: 'Expired' })).statusCode,
    ).toBe(200);
    expect(await recipient(2)).toMatchObject({ status: 'expired', error_message: 'Expired' });
  });

  it('changes nothing for an unknown id, and refuses an unreadable report', async () => {
    const before = await recipientsOf(ctx.ownerDb, messageId);
    const unknown = await postAndApply({ id: 'ATXid_never_sent', status: 'Success' });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual(ACCEPTED);
    const unreadable = await post({ id: recipients[3].gateway_message_id!, status: 'Teleported' });
    expect(unreadable.statusCode).toBe(400);
    expect((await post({ status: 'Success' })).statusCode).toBe(400);
    // Bad input stores nothing.
    expect(await inboxReports(ctx.ownerDb)).toBe(0);
    await applyAcceptedReports(ctx.db);
    expect(await recipientsOf(ctx.ownerDb, messageId)).toEqual(before);
    const kept = await ctx.ownerDb
      .selectFrom('unmatched_delivery_reports')
      .select('gateway_message_id')
      .where('company_id', '=', tenant.company.id)
      .execute();
    expect(kept.map((row) => row.gateway_message_id)).toEqual(['ATXid_never_sent']);
  });

  it('refuses a wrong token, the subscription token and another company’s id, changing nothing', async () => {
    const before = await recipientsOf(ctx.ownerDb, messageId);
    const body = { id: recipients[3].gateway_message_id!, status: 'Success' };
    expect((await post(body, 'x'.repeat(43))).statusCode).toBe(404);
    expect((await post(body, tenant.tokens.subscription)).statusCode).toBe(404);
    // A wrong URL stores nothing.
    expect(await inboxReports(ctx.ownerDb)).toBe(0);
    const other = await createSendingCompany(ctx);
    const foreign = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/callbacks/dlr/${other.company.id}/${tenant.tokens.dlr}`,
      payload: body,
    });
    expect(foreign.statusCode).toBe(404);
    expect(await inboxReports(ctx.ownerDb)).toBe(0);
    // Another company's valid URL cannot reach this company's recipients either.
    const theirUrl = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/callbacks/dlr/${other.company.id}/${other.tokens.dlr}`,
      payload: body,
    });
    expect(theirUrl.json()).toEqual(ACCEPTED);
    expect(await inboxReports(ctx.ownerDb, other.company.id)).toBe(1);
    await applyAcceptedReports(ctx.db);
    expect(await recipientsOf(ctx.ownerDb, messageId)).toEqual(before);
  });

  it('still settles recipients handed over before the company was suspended or left pending', async () => {
    try {
      for (const [status, index] of [
        ['suspended', 4],
        ['pending', 5],
      ] as const) {
        await ctx.ownerDb
          .updateTable('companies')
          .set({ status })
          .where('id', '=', tenant.company.id)
          .execute();
        const response = await postAndApply({ id: recipients[index].gateway_message_id!, status: 'Success' });
        expect(response.json(), status).toEqual(ACCEPTED);
        expect((await recipient(index)).status, status).toBe('delivered');
      }
    } finally {
      await ctx.ownerDb
        .updateTable('companies')
        .set({ status: 'active' })
        .where('id', '=', tenant.company.id)
        .execute();
    }
  });

  it('keeps a report that came before its hand-over was committed, and applies it once it is', async () => {
    const early = await postAndApply({ id: 'SIM-early-bird', status: 'Success' });
    expect(early.statusCode).toBe(200);
    expect((await recipient(3)).status).toBe('submitted');
    // The hand-over's commit lands after the report: recipient 3 now carries that provider id.
    await sql`
      with handed_over as (
        update delivery_reports set gateway_message_id = 'SIM-early-bird'
         where id = ${recipients[3].id}
        returning company_id, gateway_message_id, created_at, message_id, id)
      insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
      select company_id, gateway_message_id, created_at, message_id, id from handed_over`.execute(
      ctx.ownerDb,
    );
    // Here, or by the worker's dlr-unmatched job first: either way once.
    await reapplyUnmatchedReports(ctx.db, tenant.company.id);
    expect((await recipient(3)).status).toBe('delivered');
    const left = await ctx.ownerDb
      .selectFrom('unmatched_delivery_reports')
      .select('gateway_message_id')
      .where('company_id', '=', tenant.company.id)
      .execute();
    expect(left.map((row) => row.gateway_message_id)).toEqual(['ATXid_never_sent']);
  });

  it('stores concurrent reports in shared batches (group commit), each answered after its batch committed', async () => {
    const rest = [recipients[4], recipients[5]];
    const before = ctx.deps.messaging.deliveryReports.stats();
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post({ id: rest[i % 2].gateway_message_id!, status: i < 2 ? 'Success' : 'Sent' }),
      ),
    );
    expect(responses.every((response) => response.statusCode === 200)).toBe(true);
    const after = ctx.deps.messaging.deliveryReports.stats();
    expect(after.reports - before.reports).toBe(40);
    expect(after.batches - before.batches).toBeLessThan(40);
    await applyAcceptedReports(ctx.db);
    expect((await recipient(4)).status).toBe('delivered');
    expect((await recipient(5)).status).toBe('delivered');
    // Every recipient is final now: the message follows (some delivered, so delivered).
    expect((await messageRow(ctx.ownerDb, messageId))?.status).toBe('delivered');
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({
      delivered: 4,
      failed: 1,
      expired: 1,
      submitted: 0,
      sent: 0,
      total: 6,
    });
  });

  it('takes receipts from connection-based providers (SMPP) through the same path', async () => {
    const other = await createSendingCompany(ctx);
    await ctx.deps.messaging.deliveryReports.submit(other.company.id, {
      providerMessageId: 'smpp-0001',
      status: 'delivered',
      providerStatus: 'DELIVRD',
      error: null,
      at: new Date(),
    });
    await applyAcceptedReports(ctx.db);
    const kept = await ctx.ownerDb
      .selectFrom('unmatched_delivery_reports')
      .select('gateway_message_id')
      .where('company_id', '=', other.company.id)
      .execute();
    expect(kept.map((row) => row.gateway_message_id)).toEqual(['smpp-0001']);
  });
});
