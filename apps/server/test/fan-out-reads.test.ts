import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { subscriptionsInOrder } from '../src/messaging/fan-out.ts';
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
