import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { sha256 } from '../src/lib/crypto.ts';
import { applyInboxBatch, createInboxJobs, REPORT_WINDOW } from '../src/messaging/delivery-report-applier.ts';
import {
  acceptDeliveryReports,
  createDeliveryReportIntake,
} from '../src/messaging/delivery-report-intake.ts';
import type { DeliveryUpdate } from '../src/messaging/providers/provider.ts';
import { applyWaitingReports, inboxReports } from './support/delivery-report-inbox.ts';
import { createCompany } from './support/factories.ts';
import { insertHandedOverMessage, openProcess, waitFor } from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The delivery-report inbox: the callback stores reports (acceptDeliveryReports, its URL token
 * checked as it stores them), a worker's dlr-apply job applies them in large batches and deletes
 * them in the same transaction (apply_delivery_report_inbox).
 */
let ctx: TestContext;
type Tenant = { id: number; dlr: string };
let mine: Tenant;
let theirs: Tenant;

const report = (id: string, status: DeliveryUpdate['status'] = 'delivered'): DeliveryUpdate => ({
  providerMessageId: id,
  status,
  providerStatus: status === 'delivered' ? 'Success' : status === 'failed' ? 'Failed' : 'Sent',
  error: status === 'failed' ? 'DeliveryFailure' : null,
  at: new Date(),
});

async function tenant(): Promise<Tenant> {
  const company = await createCompany(ctx.ownerDb);
  const dlr = `dlr-${company.id}-${'d'.repeat(32)}`;
  await sql`
    insert into company_callback_tokens (company_id, callback_type, token_hash, token_encrypted)
    values (${company.id}, 'dlr', ${sha256(dlr)}, 'not used here')`.execute(ctx.ownerDb);
  return { id: company.id, dlr };
}

/** Stores reports as the callback does: on the pool, each with its URL token. */
const accept = (who: Tenant, updates: DeliveryUpdate[], token = who.dlr) =>
  acceptDeliveryReports(
    ctx.db,
    who.id,
    updates,
    updates.map(() => sha256(token)),
  );

const statusesOf = async (gids: string[]) =>
  (
    await sql<{ status: string }>`
      select d.status from unnest(${gids}::text[]) with ordinality g(gid, ord)
      left join delivery_reports d on d.gateway_message_id = g.gid order by g.ord`.execute(ctx.ownerDb)
  ).rows.map((row) => row.status);

const totalsOf = async (messageId: number) =>
  (
    await sql<{ submitted: number; sent: number; delivered: number; failed: number; total: number }>`
      select submitted::int, sent::int, delivered::int, failed::int, total::int from message_delivery_totals
       where message_id = ${messageId}`.execute(ctx.ownerDb)
  ).rows[0];

const messageStatus = async (messageId: number) =>
  (
    await ctx.ownerDb
      .selectFrom('messages')
      .select('status')
      .where('id', '=', messageId)
      .executeTakeFirstOrThrow()
  ).status;

const gidsOf = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

beforeAll(async () => {
  ctx = await createTestContext();
  mine = await tenant();
  theirs = await tenant();
});
afterAll(async () => ctx?.close());

describe('accepting reports into the inbox', () => {
  it('stores a batch with the company’s token as one row, and applies nothing yet', async () => {
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, ['IN-1', 'IN-2'], { send: true });
    expect(await accept(mine, [report('IN-1'), report('IN-2', 'failed')])).toEqual([true, true]);
    expect(await inboxReports(ctx.ownerDb, mine.id)).toBe(2);
    expect(await statusesOf(['IN-1', 'IN-2'])).toEqual(['submitted', 'submitted']);
    expect(await applyWaitingReports(ctx.db)).toBe(2);
    expect(await statusesOf(['IN-1', 'IN-2'])).toEqual(['delivered', 'failed']);
    expect(await totalsOf(messageId)).toMatchObject({ submitted: 0, delivered: 1, failed: 1, total: 2 });
    expect(await messageStatus(messageId)).toBe('delivered');
    expect(await inboxReports(ctx.ownerDb)).toBe(0);
  });

  it('stores nothing for a wrong token, another company’s token, or a company that does not exist', async () => {
    expect(await accept(mine, [report('IN-x')], 'wrong-token')).toEqual([false]);
    expect(await accept(mine, [report('IN-x')], theirs.dlr)).toEqual([false]);
    expect(await acceptDeliveryReports(ctx.db, 999_999_999, [report('IN-x')], [sha256(mine.dlr)])).toEqual([
      false,
    ]);
    expect(await inboxReports(ctx.ownerDb)).toBe(0);
  });

  it('stores only the reports of a mixed batch whose token is right', async () => {
    const accepted = await acceptDeliveryReports(
      ctx.db,
      mine.id,
      [report('MIX-1'), report('MIX-2'), report('MIX-3')],
      [sha256(mine.dlr), sha256('wrong'), sha256(mine.dlr)],
    );
    expect(accepted).toEqual([true, false, true]);
    const { rows } = await sql<{ gids: string[] }>`
      select gateway_message_ids as gids from delivery_report_inbox where company_id = ${mine.id}`.execute(
      ctx.ownerDb,
    );
    expect(rows).toEqual([{ gids: ['MIX-1', 'MIX-3'] }]);
    await applyWaitingReports(ctx.db);
  });

  it('holds the inbox to its company (row-level security): another binding neither sees nor applies its rows', async () => {
    await accept(mine, [report('RLS-1')]);
    const seen = await inTenantTransaction(ctx.db, companyScope(theirs.id), async (trx) => {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from delivery_report_inbox`.execute(
        trx,
      );
      const { rows: applied } = await sql<{ n: number }>`
        select apply_delivery_report_inbox(${mine.id}::bigint, 100, 10000, ${REPORT_WINDOW}::interval) as n`.execute(
        trx,
      );
      return { rows: rows[0].n, applied: applied[0].n };
    });
    expect(seen).toEqual({ rows: 0, applied: 0 });
    expect(await inboxReports(ctx.ownerDb, mine.id)).toBe(1);
    // Nor can a binding write a row for another company.
    await expect(
      inTenantTransaction(ctx.db, companyScope(theirs.id), (trx) =>
        sql`insert into delivery_report_inbox (company_id, gateway_message_ids, statuses, provider_statuses,
                                                error_messages, reported_ats)
            values (${mine.id}, '{x}', '{delivered}', '{Success}', '{NULL}', array[now()])`.execute(trx),
      ),
    ).rejects.toThrow(/row-level security/);
    await applyWaitingReports(ctx.db);
    expect(await inboxReports(ctx.ownerDb)).toBe(0);
  });
});

describe('applying the inbox', () => {
  it('applies each report once: a second apply finds nothing, and repeats change no counter', async () => {
    const gids = gidsOf('ONCE', 30);
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, gids, { send: true });
    // Several intake batches, one with a repeat and older news of the same ids.
    await accept(
      mine,
      gids.slice(0, 20).map((gid) => report(gid, 'sent')),
    );
    await accept(
      mine,
      gids.slice(0, 20).map((gid) => report(gid)),
    );
    await accept(
      mine,
      gids.slice(20).map((gid) => report(gid, 'failed')),
    );
    await accept(
      mine,
      gids.slice(0, 5).map((gid) => report(gid, 'sent')),
    );
    expect(await applyInboxBatch(ctx.db, mine.id)).toBe(55);
    expect(await applyInboxBatch(ctx.db, mine.id)).toBe(0);
    expect(await totalsOf(messageId)).toMatchObject({
      submitted: 0,
      sent: 0,
      delivered: 20,
      failed: 10,
      total: 30,
    });
    expect(await messageStatus(messageId)).toBe('delivered');
    // The same reports again: accepted, applied, nothing moves.
    await accept(
      mine,
      gids.map((gid) => report(gid)),
    );
    expect(await applyInboxBatch(ctx.db, mine.id)).toBe(30);
    expect(await totalsOf(messageId)).toMatchObject({
      submitted: 0,
      sent: 0,
      delivered: 20,
      failed: 10,
      total: 30,
    });
  });

  it('keeps ids no recipient carries in unmatched_delivery_reports', async () => {
    await accept(mine, [report('NOBODY-1')]);
    await applyWaitingReports(ctx.db);
    const { rows } = await sql<{ gid: string }>`
      select gateway_message_id as gid from unmatched_delivery_reports where company_id = ${mine.id}`.execute(
      ctx.ownerDb,
    );
    expect(rows.map((row) => row.gid)).toContain('NOBODY-1');
  });

  it('loses nothing and applies nothing twice when the applying transaction dies before its commit', async () => {
    const gids = gidsOf('CRASH', 10);
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, gids, { send: true });
    await accept(
      mine,
      gids.map((gid) => report(gid)),
    );
    class Crash extends Error {}
    await expect(
      inTenantTransaction(ctx.db, companyScope(mine.id), async (trx) => {
        const { rows } = await sql<{ n: number }>`
          select apply_delivery_report_inbox(${mine.id}::bigint, 100, 10000, ${REPORT_WINDOW}::interval) as n`.execute(
          trx,
        );
        expect(rows[0].n).toBe(10);
        throw new Crash('the worker died here');
      }),
    ).rejects.toThrow(Crash);
    expect(await inboxReports(ctx.ownerDb, mine.id)).toBe(10);
    expect(await totalsOf(messageId)).toMatchObject({ submitted: 10, delivered: 0 });
    expect(await applyWaitingReports(ctx.db)).toBe(10);
    expect(await totalsOf(messageId)).toMatchObject({ submitted: 0, delivered: 10, total: 10 });
    expect(await inboxReports(ctx.ownerDb, mine.id)).toBe(0);
  });

  it('lets one applier at a time take a company: another is told busy and applies nothing', async () => {
    const gids = gidsOf('BUSY', 4);
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, gids, { send: true });
    await accept(
      mine,
      gids.map((gid) => report(gid)),
    );
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let applied!: () => void;
    const holding = new Promise<void>((resolve) => {
      applied = resolve;
    });
    const first = inTenantTransaction(ctx.db, companyScope(mine.id), async (trx) => {
      await sql`select apply_delivery_report_inbox(${mine.id}::bigint, 100, 10000, ${REPORT_WINDOW}::interval)`.execute(
        trx,
      );
      applied();
      await held;
    });
    await holding;
    expect(await applyInboxBatch(ctx.db, mine.id)).toBe('busy');
    release();
    await first;
    expect(await applyInboxBatch(ctx.db, mine.id)).toBe(0);
    expect(await totalsOf(messageId)).toMatchObject({ submitted: 0, delivered: 4, total: 4 });
  });

  it('takes whole rows up to about maxReports reports a transaction, the first row however large', async () => {
    const gids = gidsOf('CAP', 1_800);
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, gids, { send: true });
    for (const part of [0, 1, 2])
      await accept(
        mine,
        gids.slice(part * 600, (part + 1) * 600).map((gid) => report(gid)),
      );
    // 600 came before the second row (fewer than 1,000): it is taken; 1,200 before the third: left.
    expect(await applyInboxBatch(ctx.db, mine.id, 200, 1_000)).toBe(1_200);
    expect(await inboxReports(ctx.ownerDb, mine.id)).toBe(600);
    // A row larger than the bound on its own is still applied whole.
    expect(await applyInboxBatch(ctx.db, mine.id, 200, 100)).toBe(600);
    expect(await applyInboxBatch(ctx.db, mine.id, 200, 100)).toBe(0);
    expect(await totalsOf(messageId)).toMatchObject({ submitted: 0, delivered: 1_800, total: 1_800 });
    expect(await messageStatus(messageId)).toBe('delivered');
  });

  it('settles the message when the engine moves its send to done while the last report is being applied', async () => {
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, ['RACE-1'], { send: false });
    await sql`
      insert into message_sends (company_id, message_id, state, recipients)
      values (${mine.id}, ${messageId}, 'dispatch', 1)`.execute(ctx.ownerDb);
    await accept(mine, [report('RACE-1')]);
    // The engine's settle: everyone handed over, the report not applied yet, so the send is done and
    // the message stays sent; its transaction is still open when the applier gets there.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let settled!: () => void;
    const settling = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const engine = inTenantTransaction(ctx.db, companyScope(mine.id), async (trx) => {
      await sql`select * from record_send_progress(${mine.id}::bigint, '{}', '{}', '{}', array[${messageId}]::bigint[])`.execute(
        trx,
      );
      settled();
      await held;
    });
    await settling;
    const applying = applyInboxBatch(ctx.db, mine.id);
    await waitFor(
      async () =>
        (
          await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
             where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.ownerDb)
        ).rows[0].n,
      (waiting) => waiting > 0,
      { timeoutMs: 5000, everyMs: 10, what: 'the applier waiting on the engine’s settle' },
    );
    release();
    await engine;
    expect(await applying).toBe(1);
    expect(await totalsOf(messageId)).toMatchObject({ submitted: 0, delivered: 1 });
    expect(await messageStatus(messageId)).toBe('delivered');
  });
});

describe('applied by queue jobs', () => {
  let workers: Awaited<ReturnType<typeof openProcess>>[] = [];
  const startWorkers = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const worker = await openProcess(ctx);
      workers.push(worker);
      await worker.startWorker();
    }
  };
  afterEach(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    workers = [];
  });

  it('applies reports posted to a process without a worker, by a worker process, soon after', async () => {
    await startWorkers(1);
    const gids = gidsOf('API', 30);
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, gids, { send: true });
    // The test context's messaging runs no worker, as an API process: its intake enqueues the job.
    await Promise.all(
      gids.map((gid) => ctx.deps.messaging.deliveryReports.submit(mine.id, report(gid), mine.dlr)),
    );
    // The worker started before the reports: only their job (not its start-up upkeep) applies them in time.
    await waitFor(
      () => totalsOf(messageId),
      (totals) => totals.delivered === 30,
      { timeoutMs: 10_000, what: 'the reports applied by the worker' },
    );
    expect(await messageStatus(messageId)).toBe('delivered');
    expect(await inboxReports(ctx.ownerDb, mine.id)).toBe(0);
  });

  it('two workers apply every report once: the counters equal a direct count', async () => {
    await startWorkers(2);
    const gids = gidsOf('TWO', 600);
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, gids, { send: true });
    const inboxJobs = createInboxJobs(ctx.db, ctx.deps.messaging.queue, () => {}, { spacingMs: 0 });
    const intake = createDeliveryReportIntake(ctx.db, {
      maxBatch: 25,
      concurrency: 3,
      onAccepted: (companyId) => inboxJobs.accepted(companyId),
    });
    try {
      // Each report twice (a repeat), in small intake batches.
      await Promise.all(
        [...gids, ...gids].map((gid, i) =>
          intake.submit(mine.id, report(gid, i % 7 === 0 ? 'failed' : 'delivered'), mine.dlr),
        ),
      );
      await waitFor(
        () => inboxReports(ctx.ownerDb, mine.id),
        (left) => left === 0,
        { what: 'every report applied' },
      );
      const totals = await totalsOf(messageId);
      expect(totals.delivered + totals.failed).toBe(600);
      const { rows } = await sql<{ status: string; n: number }>`
        select status, count(*)::int as n from delivery_reports where message_id = ${messageId} group by status`.execute(
        ctx.ownerDb,
      );
      const byStatus = Object.fromEntries(rows.map((row) => [row.status, row.n]));
      expect({ delivered: totals.delivered, failed: totals.failed }).toEqual({
        delivered: byStatus.delivered ?? 0,
        failed: byStatus.failed ?? 0,
      });
      expect(await messageStatus(messageId)).toBe('delivered');
    } finally {
      await intake.close();
      await inboxJobs.flush();
    }
  });

  it('applies early reports once their hand-over is committed, however many unknown ids were kept before them', async () => {
    // Ids no recipient will ever carry, kept first (the oldest unmatched rows).
    for (let part = 0; part < 3; part++)
      await accept(
        mine,
        gidsOf(`NEVER-${part}`, 500).map((gid) => report(gid)),
      );
    await applyWaitingReports(ctx.db);
    // Then 3,000 reports that came before their own hand-over's commit.
    const early = gidsOf('EARLY', 3000);
    for (let part = 0; part < 3; part++)
      await accept(
        mine,
        early.slice(part * 1000, (part + 1) * 1000).map((gid) => report(gid)),
      );
    await applyWaitingReports(ctx.db);
    const kept = await sql<{ n: number }>`
      select count(*)::int as n from unmatched_delivery_reports where company_id = ${mine.id}`.execute(
      ctx.ownerDb,
    );
    expect(kept.rows[0].n).toBeGreaterThanOrEqual(4500);
    // The hand-over commits; a worker's jobs (its start-up upkeep's dlr-unmatched) apply them.
    const messageId = await insertHandedOverMessage(ctx.ownerDb, mine.id, early, { send: true });
    await startWorkers(1);
    await waitFor(
      () => totalsOf(messageId),
      (totals) => totals.delivered === 3000,
      { timeoutMs: 15_000, what: 'all 3,000 early reports applied' },
    );
    expect(await messageStatus(messageId)).toBe('delivered');
    const left = await sql<{ n: number }>`
      select count(*)::int as n from unmatched_delivery_reports
       where company_id = ${mine.id} and gateway_message_id like 'EARLY-%'`.execute(ctx.ownerDb);
    expect(left.rows[0].n).toBe(0);
  });
});
