import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../src/db/database.ts';
import {
  companyScope,
  inTenantTransaction,
  platformScope,
  type TenantScope,
} from '../src/db/tenant-scope.ts';
import { createCompany } from './support/factories.ts';
import { insertMessage } from './support/message-log-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// A SECURITY DEFINER function runs as the schema's owner, past row-level security: the company it
// is asked about must be checked against the transaction's binding by the function itself. These
// calls go through sms_app's connections, as the application's do, bound to company A.

let ctx: TestContext;
let a: number;
let b: number;

beforeAll(async () => {
  ctx = await createTestContext();
  a = (await createCompany(ctx.ownerDb)).id;
  b = (await createCompany(ctx.ownerDb)).id;
  for (const companyId of [a, b])
    for (const [i, content] of ['Weekend SALE today', 'weekend salesman', 'Nothing else'].entries())
      await insertMessage(ctx.ownerDb, { companyId, content, msisdn: `+25471100000${i}` });
});
afterAll(() => ctx?.close());

/** Each company-taking SECURITY DEFINER function, called about `companyId`, as rows of message ids (or a count). */
const CALLS: Record<string, (db: Executor, companyId: number) => Promise<unknown>> = {
  message_search_word_start_ids: async (db, companyId) => {
    const { rows } = await sql<{ ids: number[] | null }>`
      select message_search_word_start_ids(${companyId}::bigint, '% sale%') as ids`.execute(db);
    return rows[0]!.ids ?? [];
  },
  message_search_word_page: async (db, companyId) =>
    (
      await sql`select message_id from message_search_word_page(${companyId}::bigint, 'weekend', 10)`.execute(
        db,
      )
    ).rows,
  message_search_matches: async (db, companyId) =>
    (
      await sql`select message_id from message_search_matches(${companyId}::bigint, '% sale%', 10)`.execute(
        db,
      )
    ).rows,
  message_search_recent: async (db, companyId) =>
    (
      await sql`select message_id from message_search_recent(${companyId}::bigint, '%weekend%', 10, 100)`.execute(
        db,
      )
    ).rows,
  search_message_ids: async (db, companyId) =>
    (await sql`select message_id from search_message_ids(${companyId}::bigint, '% sale%', 10)`.execute(db))
      .rows,
  count_message_matches: async (db, companyId) => {
    const { rows } = await sql<{ n: number }>`
      select count_message_matches(${companyId}::bigint, '%weekend%', 10) as n`.execute(db);
    return Array.from({ length: rows[0]!.n });
  },
};

const callAs = (scope: TenantScope, name: string, companyId: number) =>
  inTenantTransaction(ctx.db, scope, (trx) => CALLS[name]!(trx, companyId)) as Promise<unknown[]>;

describe('SECURITY DEFINER functions that take a company', () => {
  it('are every one of them here', async () => {
    const { rows } = await sql<{ name: string }>`
      select p.proname as name from pg_proc p
       where p.prosecdef and p.pronamespace = 'public'::regnamespace
         and 'p_company_id' = any(p.proargnames)
       order by 1`.execute(ctx.ownerDb);
    expect(rows.map((row) => row.name)).toEqual(Object.keys(CALLS).sort());
  });

  it.each(Object.keys(CALLS))(
    "%s, bound to company A and asked about B, answers nothing of B's",
    async (name) => {
      // B has matches: its own binding and the platform's find them.
      expect(await callAs(companyScope(b), name, b)).not.toHaveLength(0);
      expect(await callAs(platformScope, name, b)).not.toHaveLength(0);
      expect(await callAs(companyScope(a), name, b)).toEqual([]);
    },
  );

  it.each(Object.keys(CALLS))('%s, unbound, answers nothing', async (name) => {
    expect(await (CALLS[name]!(ctx.db, b) as Promise<unknown[]>)).toEqual([]);
  });
});

describe('maintenance SECURITY DEFINER functions', () => {
  it('drop old recipient partitions for the platform scope only', async () => {
    await expect(
      inTenantTransaction(ctx.db, companyScope(a), (trx) =>
        sql`select ensure_delivery_report_partition(now() - interval '12 months', 'drop')`.execute(trx),
      ),
    ).rejects.toThrow(/platform/);
    await expect(
      inTenantTransaction(ctx.db, platformScope, (trx) =>
        sql`select ensure_delivery_report_partition(now() - interval '12 months', 'drop')`.execute(trx),
      ),
    ).resolves.toBeDefined();
  });
});
