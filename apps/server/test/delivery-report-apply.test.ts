import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { REPORT_WINDOW } from '../src/messaging/delivery-report-applier.ts';
import { acceptDeliveryReports } from '../src/messaging/delivery-report-intake.ts';
import type { DeliveryUpdate } from '../src/messaging/providers/provider.ts';
import { settleSends } from '../src/messaging/send-progress.ts';
import { applyWaitingReports } from './support/delivery-report-inbox.ts';
import { createCompany } from './support/factories.ts';
import {
  applyReports,
  insertHandedOverMessage,
  unmatchedIds,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The apply statement lives in the database (apply_delivery_report_inbox, so its plan is cached
 * per session): it must still run as the caller, under the caller's tenant binding.
 */
let ctx: TestContext;
let mine: { id: number };
let theirs: { id: number };
let theirSettled: number;

const report = (id: string, status: DeliveryUpdate['status'] = 'delivered'): DeliveryUpdate => ({
  providerMessageId: id,
  status,
  providerStatus: status === 'delivered' ? 'Success' : 'Failed',
  error: null,
  at: new Date(),
});

/** One handed-over recipient (status submitted, provider id `gid`) of a new message of the company. */
const handedOverRecipient = (companyId: number, gid: string) =>
  insertHandedOverMessage(ctx.ownerDb, companyId, [gid], { send: false });

const statusOf = async (gid: string) =>
  (
    await sql<{
      status: string;
    }>`select status from delivery_reports where gateway_message_id = ${gid}`.execute(ctx.ownerDb)
  ).rows[0]?.status;

beforeAll(async () => {
  ctx = await createTestContext();
  mine = await createCompany(ctx.ownerDb);
  theirs = await createCompany(ctx.ownerDb);
  await handedOverRecipient(mine.id, 'APPLY-mine-1');
  await handedOverRecipient(theirs.id, 'APPLY-theirs-1');
  theirSettled = await handedOverRecipient(theirs.id, 'SETTLE-theirs-1');
  await sql`
    insert into message_sends (company_id, message_id, state, recipients)
    values (${theirs.id}, ${theirSettled}, 'done', 1)`.execute(ctx.ownerDb);
  // Its one recipient delivered: the message is ready to become delivered.
  await sql`
    update message_delivery_counts set submitted = 0, delivered = 1
     where company_id = ${theirs.id} and message_id = ${theirSettled}`.execute(ctx.ownerDb);
});
afterAll(async () => ctx?.close());

describe('apply_delivery_report_inbox (the DLR apply statement, as a database function)', () => {
  it("applies a company's report under its own binding, and a repeat changes nothing", async () => {
    expect(await applyReports(ctx.db, mine.id, [report('APPLY-mine-1'), report('APPLY-unknown-1')])).toBe(2);
    expect(await statusOf('APPLY-mine-1')).toBe('delivered');
    expect(await unmatchedIds(ctx.ownerDb, mine.id)).toEqual(['APPLY-unknown-1']);
    await applyReports(ctx.db, mine.id, [report('APPLY-mine-1', 'failed')]);
    expect(await statusOf('APPLY-mine-1')).toBe('delivered');
  });

  it("cannot reach another company's reports or recipients: row-level security holds inside the function", async () => {
    await acceptDeliveryReports(ctx.db, theirs.id, [report('APPLY-theirs-1')], [null]);
    // Bound to one company, naming another one: its inbox rows are invisible, nothing is applied.
    const applied = await inTenantTransaction(ctx.db, companyScope(mine.id), async (trx) => {
      const { rows } = await sql<{ n: number }>`
        select apply_delivery_report_inbox(${theirs.id}::bigint, 100, 10000, ${REPORT_WINDOW}::interval) as n`.execute(
        trx,
      );
      return rows[0].n;
    });
    expect(applied).toBe(0);
    expect(await statusOf('APPLY-theirs-1')).toBe('submitted');
    expect(await applyWaitingReports(ctx.db)).toBe(1);
    expect(await statusOf('APPLY-theirs-1')).toBe('delivered');
  });

  it('carries the index-only join preferences itself (no statement of their own before each batch)', async () => {
    const { rows } = await sql<{ config: string[] }>`
      select proconfig as config from pg_proc where proname = 'apply_delivery_report_inbox'`.execute(
      ctx.ownerDb,
    );
    expect(rows[0].config).toEqual(
      expect.arrayContaining(['enable_hashjoin=off', 'enable_mergejoin=off', 'enable_seqscan=off']),
    );
  });
});

describe('settleSends (record_send_progress, a database function)', () => {
  const messageStatus = async () =>
    (
      await ctx.ownerDb
        .selectFrom('messages')
        .select('status')
        .where('id', '=', theirSettled)
        .executeTakeFirstOrThrow()
    ).status;

  it("runs as the caller: bound to one company it sees nothing of another's, bound to that one it settles", async () => {
    const across = await inTenantTransaction(ctx.db, companyScope(mine.id), (trx) =>
      settleSends(trx, theirs.id, [theirSettled]),
    );
    expect(across).toEqual([]);
    expect(await messageStatus()).toBe('sent');
    const own = await inTenantTransaction(ctx.db, companyScope(theirs.id), (trx) =>
      settleSends(trx, theirs.id, [theirSettled]),
    );
    expect(own).toEqual([{ id: theirSettled, status: 'delivered' }]);
    expect(await messageStatus()).toBe('delivered');
  });

  it('settles the message when the engine moves its send to done while a kept report is applied (the sweep)', async () => {
    const messageId = await handedOverRecipient(mine.id, 'SWEEP-race-1');
    await sql`
      insert into message_sends (company_id, message_id, state, recipients)
      values (${mine.id}, ${messageId}, 'dispatch', 1)`.execute(ctx.ownerDb);
    // The engine's settle: everyone handed over, the report not applied yet, so the send is done and
    // the message stays sent; its transaction is still open when the sweep applies the report.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let settled!: () => void;
    const settling = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const engine = inTenantTransaction(ctx.db, companyScope(mine.id), async (trx) => {
      await settleSends(trx, mine.id, [messageId]);
      settled();
      await held;
    });
    await settling;
    const sweeping = applyReports(ctx.db, mine.id, [report('SWEEP-race-1')]);
    await waitFor(
      async () =>
        (
          await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
             where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.ownerDb)
        ).rows[0].n,
      (waiting) => waiting > 0,
      { timeoutMs: 5000, everyMs: 10, what: 'the sweep waiting on the engine’s settle' },
    );
    release();
    await engine;
    expect(await sweeping).toBe(1);
    const status = await ctx.ownerDb
      .selectFrom('messages')
      .select('status')
      .where('id', '=', messageId)
      .executeTakeFirstOrThrow();
    expect(status.status).toBe('delivered');
  });
});
