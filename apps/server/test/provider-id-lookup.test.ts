import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { REPORT_WINDOW } from '../src/messaging/delivery-report-applier.ts';
import { acceptDeliveryReports } from '../src/messaging/delivery-report-intake.ts';
import { HandOverLater, handOverBatch } from '../src/messaging/hand-over.ts';
import { dropExpiredPartitions, ensurePartitions } from '../src/messaging/maintenance.ts';
import type { DeliveryUpdate } from '../src/messaging/providers/provider.ts';
import {
  applyReports,
  createSendingCompany,
  fannedOutSend,
  insertHandedOverMessage,
  recipientsOf,
  scriptedProvider,
  unmatchedIds,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// Delivery reports find their recipient by the provider's id through recipient_gateway_ids, which
// the hand-over writes in its own statement (migration 0029); no index of the recipient rows covers
// a column the hand-over or a report writes, so those updates can be HOT updates.
let ctx: TestContext;

// No worker: the test drives the hand-over itself.
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const settings = { maxAttempts: 3, sendValidityHours: 24, claimSeconds: 60 };

const delivered = (id: string): DeliveryUpdate => ({
  providerMessageId: id,
  status: 'delivered',
  providerStatus: 'Success',
  error: null,
  at: new Date(),
});

describe('provider ids of their own (recipient_gateway_ids)', () => {
  it('a hand-over keeps the provider id of each accepted recipient, pointing at it, and its report finds it', async () => {
    const plan = await fannedOutSend(ctx, 12, { prefix: 62, message: 'Provider ids' });
    // Every third recipient rejected, every third one to be retried later, the rest accepted.
    const fate = (key: string) => (['accepted', 'rejected', 'retry'] as const)[Number(key) % 3];
    const provider = scriptedProvider((sms) => fate(sms.recipientKey));
    const companyProvider = { provider, batchSize: 100, messagesPerSecond: 1000 };
    const providers = { forCompany: async () => companyProvider, invalidate() {}, async close() {} };
    // Every recipient is offered once; the batch ends unfinished (its retried ones are left).
    await expect(
      handOverBatch(ctx.db, providers, settings, plan, new AbortController().signal),
    ).rejects.toThrow(HandOverLater);
    const { recipients_at: recipientsAt } = await ctx.ownerDb
      .selectFrom('message_sends')
      .select('recipients_at')
      .where('message_id', '=', plan.messageId)
      .executeTakeFirstOrThrow();
    const recipients = await recipientsOf(ctx.ownerDb, plan.messageId);
    const accepted = recipients.filter((r) => fate(String(r.id)) === 'accepted');
    expect(accepted.length).toBeGreaterThan(0);
    expect(recipients.filter((r) => r.status === 'pending').length).toBeGreaterThan(0);

    const { rows: kept } = await sql<{ gid: string; created_at: Date; message_id: string; id: string }>`
      select g.gateway_message_id as gid, g.created_at, g.message_id::text, g.id::text from recipient_gateway_ids g
       where g.company_id = ${plan.companyId} order by g.id`.execute(ctx.ownerDb);
    expect(kept).toEqual(
      accepted.map((r) => ({
        gid: `SCRIPT-${r.id}`,
        created_at: recipientsAt,
        message_id: String(plan.messageId),
        id: String(r.id),
      })),
    );
    // The recipient row still shows its provider id (the message details read it there).
    expect(accepted.every((r) => r.gateway_message_id === `SCRIPT-${r.id}`)).toBe(true);

    const rejected = recipients.find((r) => r.status === 'rejected');
    await applyReports(ctx.db, plan.companyId, [
      ...accepted.map((r) => delivered(`SCRIPT-${r.id}`)),
      delivered(`SCRIPT-${rejected?.id}`),
    ]);
    expect(await unmatchedIds(ctx.ownerDb, plan.companyId)).toEqual([`SCRIPT-${rejected?.id}`]);
    const after = await recipientsOf(ctx.ownerDb, plan.messageId);
    expect(after.filter((r) => r.status === 'delivered').map((r) => r.id)).toEqual(accepted.map((r) => r.id));
  });

  it('a batch reads only its own recipients, also in a month without statistics yet', async () => {
    const tenant = await createSendingCompany(ctx);
    const companyId = tenant.company.id;
    const gids = Array.from({ length: 3000 }, (_, i) => `STATS-${i}`);
    await insertHandedOverMessage(ctx.ownerDb, companyId, gids, { send: false });
    // The recipients' month has statistics (the fan-out takes them as it writes); their provider ids not yet.
    await sql`analyze delivery_reports`.execute(ctx.ownerDb);
    const reported = gids.filter((_, i) => i % 300 === 0);
    // The statistics this transaction's statements gathered, read in the same transaction.
    await acceptDeliveryReports(
      ctx.db,
      companyId,
      reported.map(delivered),
      reported.map(() => null),
    );
    const { applied, reads } = await inTenantTransaction(ctx.db, companyScope(companyId), async (trx) => {
      const { rows: taken } = await sql<{ n: number }>`
        select apply_delivery_report_inbox(${companyId}::bigint, 100, 10000, ${REPORT_WINDOW}::interval) as n`.execute(
        trx,
      );
      const { rows } = await sql<{ scans: number; fetched: number }>`
        select coalesce(sum(idx_scan), 0)::int as scans, coalesce(sum(idx_tup_fetch + seq_tup_read), 0)::int as fetched
          from pg_stat_xact_user_tables
         where relname ~ '^(delivery_reports|recipient_gateway_ids)_y'`.execute(trx);
      return { applied: taken[0].n, reads: rows[0] };
    });
    expect(applied).toBe(reported.length);
    expect(await unmatchedIds(ctx.ownerDb, companyId)).toEqual([]);
    // A few key lookups per report on each table and the update's own (31 to 111 rows read for these
    // 10, as the pool's connection has planned the function's statements before or not), never a
    // company's worth (3,000: a scan of the month).
    expect(reads.fetched).toBeLessThan(reported.length * 20);
  });

  it('no index of the recipient rows covers a column the hand-over or a delivery report writes', async () => {
    // next_attempt_at (the retry index) is written too, but stays null for an accepted recipient.
    const written = [
      'status',
      'gateway_message_id',
      'provider_status',
      'error_message',
      'attempts',
      'submitted_at',
      'delivered_at',
      'updated_at',
    ];
    const { rows } = await sql<{ index: string; columns: string[]; predicate: string | null }>`
      select c.relname as index,
             array(select a.attname from pg_attribute a
                    where a.attrelid = i.indrelid and a.attnum = any(i.indkey) order by a.attnum)::text[] as columns,
             concat(pg_get_expr(i.indpred, i.indrelid), pg_get_expr(i.indexprs, i.indrelid)) as predicate
        from pg_index i join pg_class c on c.oid = i.indexrelid
       where i.indrelid = 'delivery_reports'::regclass`.execute(ctx.ownerDb);
    expect(rows.length).toBeGreaterThan(0);
    for (const index of rows)
      for (const column of written) {
        expect(index.columns, index.index).not.toContain(column);
        expect(index.predicate ?? '', index.index).not.toMatch(new RegExp(`\\b${column}\\b`));
      }
  });

  it('has its month partitions created ahead and dropped with the recipients’ months', async () => {
    await ensurePartitions(ctx.db);
    const partitions = async () =>
      (
        await sql<{ name: string }>`
          select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
           where i.inhparent in ('delivery_reports'::regclass, 'recipient_gateway_ids'::regclass)
           order by 1`.execute(ctx.ownerDb)
      ).rows.map((row) => row.name);
    const month = (monthsAhead: number) => {
      const at = new Date();
      at.setUTCDate(1);
      at.setUTCMonth(at.getUTCMonth() + monthsAhead);
      return `y${at.getUTCFullYear()}m${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
    };
    for (const ahead of [0, 1, 2])
      expect(await partitions()).toEqual(
        expect.arrayContaining([`delivery_reports_${month(ahead)}`, `recipient_gateway_ids_${month(ahead)}`]),
      );

    await sql`select ensure_delivery_report_partition(now() - interval '14 months')`.execute(ctx.ownerDb);
    const old = [`delivery_reports_${month(-14)}`, `recipient_gateway_ids_${month(-14)}`];
    expect(await partitions()).toEqual(expect.arrayContaining(old));
    // Each month is walled like its parent: row-level security forced, the tenant policy, no grant.
    const walls = await sql<{
      name: string;
      rls: boolean;
      forced: boolean;
      policy: string | null;
      granted: boolean;
    }>`
      select c.relname as name, c.relrowsecurity as rls, c.relforcerowsecurity as forced,
             (select p.qual from pg_policies p where p.tablename = c.relname and p.policyname = 'tenant_isolation') as policy,
             has_table_privilege('sms_app', c.oid, 'select') as granted
        from pg_class c where c.relname = any(${old})`.execute(ctx.ownerDb);
    expect(walls.rows).toHaveLength(2);
    for (const wall of walls.rows)
      expect(wall, wall.name).toMatchObject({
        rls: true,
        forced: true,
        granted: false,
        policy: expect.stringContaining('app_company_id()'),
      });
    expect((await dropExpiredPartitions(ctx.db, 12)).sort()).toEqual(old);
    const left = await partitions();
    for (const name of old) expect(left).not.toContain(name);
    expect(left).toEqual(expect.arrayContaining([`recipient_gateway_ids_${month(0)}`]));
  });
});
