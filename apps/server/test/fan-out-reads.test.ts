import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { batchWindows, subscriptionsInOrder } from '../src/messaging/fan-out.ts';
import { insertMessage } from './support/message-log-factories.ts';
import { createSendingCompany, numbers, subscribe, waitFor } from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('a fan-out step', () => {
  it("reads its services' active subscriptions index-only, under row-level security (migration 0045)", async () => {
    const tenant = await createSendingCompany(ctx);
    const [a, b] = [await tenant.service(), await tenant.service()];
    await subscribe(ctx.ownerDb, a, numbers(64, 0, 200));
    await subscribe(ctx.ownerDb, b, numbers(64, 100, 200));
    // The visibility map set, as autovacuum keeps it for a table that is mostly read. The run's
    // cluster commits asynchronously (support/embedded-postgres-process.ts): VACUUM marks a page
    // all-visible only once its rows' commits are written out, a moment later, so again until then.
    await waitFor(
      async () => {
        await sql`vacuum (analyze) subscriptions`.execute(ctx.ownerDb);
        const { rows } = await sql<{ pages: number; visible: number }>`
          select relpages as pages, relallvisible as visible from pg_class
           where oid = 'subscriptions'::regclass`.execute(ctx.ownerDb);
        return rows[0];
      },
      (table) => table.visible === table.pages,
      { what: 'every page of subscriptions all-visible' },
    );
    const plan = await inTenantTransaction(ctx.db, companyScope(tenant.company.id), async (trx) => {
      // A small table would be read whole; the question is how the index is read.
      await sql`select set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`.execute(
        trx,
      );
      const { rows } = await sql<{ 'QUERY PLAN': string }>`
        explain (analyze, costs off, timing off, summary off)
        ${subscriptionsInOrder(tenant.company.id, [a.id, b.id], '0', 20_000)}`.execute(trx);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    const scans = plan.split('\n').filter((line) => line.includes('on subscriptions'));
    expect(scans).toHaveLength(2);
    for (const scan of scans)
      expect(scan).toContain('Index Only Scan using subscriptions_service_active_idx');
    expect(plan).toContain('Heap Fetches: 0');
    expect(plan).not.toMatch(/Heap Fetches: [1-9]/);
  });
});

describe("a send's hand-over batches", () => {
  it('are windows of ids that hold every recipient once and at most a batch each, wherever ids have gaps', async () => {
    const tenant = await createSendingCompany(ctx);
    const companyId = tenant.company.id;
    const [send, other] = [
      await insertMessage(ctx.ownerDb, { companyId }),
      await insertMessage(ctx.ownerDb, { companyId }),
    ];
    const at = new Date();
    await sql`select ensure_delivery_report_partition(${at}::timestamptz)`.execute(ctx.ownerDb);
    // The send's ids with gaps, and another send's ids between them (sequences hand each
    // connection its own block of ids, so concurrent sends interleave).
    const ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, ...Array.from({ length: 14 }, (_, i) => 100 + i)];
    const insert = (messageId: number, list: number[]) => sql`
      insert into delivery_reports (company_id, created_at, message_id, id, recipient_phone)
      select ${companyId}, ${at}, ${messageId}, i, '+2547' || lpad(i::text, 8, '0') from unnest(${list}::bigint[]) i`;
    await insert(send, ids).execute(ctx.ownerDb);
    await insert(other, [11, 12, 13, 14, 16, 50]).execute(ctx.ownerDb);

    const windows = await inTenantTransaction(ctx.db, companyScope(companyId), (trx) =>
      batchWindows(trx, companyId, send, at, 4),
    );
    const ranges = windows.map((w) => [Number(w.first_id), Number(w.last_id)] as const);
    for (const [i, [first, last]] of ranges.entries()) {
      const held = ids.filter((id) => id >= first && id <= last);
      expect(held.length, `window ${first}-${last}`).toBeGreaterThanOrEqual(1);
      expect(held.length, `window ${first}-${last}`).toBeLessThanOrEqual(4);
      if (i > 0) expect(first).toBeGreaterThan(ranges[i - 1][1]);
    }
    for (const id of ids)
      expect(
        ranges.filter(([first, last]) => id >= first && id <= last),
        `id ${id}`,
      ).toHaveLength(1);
    expect(ranges).toEqual([
      [1, 4],
      [5, 8],
      [9, 12],
      [15, 18],
      [100, 103],
      [104, 107],
      [108, 111],
      [112, 115],
    ]);
  });
});
