import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../src/db/database.ts';
import {
  companyScope,
  inTenantTransaction,
  platformScope,
  type TenantScope,
} from '../src/db/tenant-scope.ts';
import {
  countedMatches,
  countMatches,
  messagesHoldingWord,
  newestMatches,
  readPattern,
  recentMatches,
  wordStartCandidates,
} from '../src/modules/messages/message-search.repository.ts';
import { createCompany } from './support/factories.ts';
import { insertMessage } from './support/message-log-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// The search reads its side tables past row-level security, through two views owned by the schema's
// owner: their condition must check the company against the transaction's binding. These calls go
// through sms_app's connections, as the application's do, bound to company A.

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

const patternOf = (db: Executor, companyId: number, text: string) => readPattern(db, companyId, text);

/**
 * Each read of the search's side tables about `companyId` (they go past row-level security through
 * the views message_search_entries and message_search_known_words), as rows of message ids (or a count).
 */
const CALLS: Record<string, (db: Executor, companyId: number) => Promise<unknown>> = {
  wordStartCandidates: async (db, companyId) =>
    (await wordStartCandidates(db, companyId, await patternOf(db, companyId, '% sale%'))) ?? [],
  messagesHoldingWord: (db, companyId) => messagesHoldingWord(db, companyId, 'weekend', 10),
  countedMatches: async (db, companyId) =>
    (await countedMatches(db, companyId, await patternOf(db, companyId, '% sale%'), 10, 0, 10)).message_ids,
  recentMatches: async (db, companyId) =>
    recentMatches(db, companyId, await patternOf(db, companyId, '%weekend%'), 10, 100),
  newestMatches: async (db, companyId) =>
    newestMatches(db, companyId, await patternOf(db, companyId, '% sale%'), 10),
  countMatches: async (db, companyId) =>
    Array.from({
      length: await countMatches(db, companyId, await patternOf(db, companyId, '%weekend%'), 10),
    }),
};

const callAs = (scope: TenantScope, name: string, companyId: number) =>
  inTenantTransaction(ctx.db, scope, (trx) => CALLS[name]!(trx, companyId)) as Promise<unknown[]>;

describe('the search past row-level security', () => {
  it('takes no SECURITY DEFINER function that takes a company: its views hold the wall', async () => {
    const { rows } = await sql<{ name: string }>`
      select p.proname as name from pg_proc p
       where p.prosecdef and p.pronamespace = 'public'::regnamespace
         and 'p_company_id' = any(p.proargnames)
       order by 1`.execute(ctx.ownerDb);
    expect(rows.map((row) => row.name)).toEqual([]);
  });

  it.each(['message_search_entries', 'message_search_known_words'])(
    '%s shows the binding its own company, the platform every one, unbound nothing, and takes no writes',
    async (view) => {
      const companiesSeen = (scope: TenantScope | null) => {
        const read = (db: Executor) =>
          sql<{ company_id: number }>`select distinct company_id from ${sql.table(view)} order by 1`
            .execute(db)
            .then(({ rows }) => rows.map((row) => row.company_id).filter((id) => id === a || id === b));
        return scope === null ? read(ctx.db) : inTenantTransaction(ctx.db, scope, read);
      };
      expect(await companiesSeen(companyScope(a))).toEqual([a]);
      expect(await companiesSeen(platformScope)).toEqual([a, b].sort((x, y) => x - y));
      expect(await companiesSeen(null)).toEqual([]);
      await expect(
        inTenantTransaction(ctx.db, companyScope(a), (trx) =>
          sql`delete from ${sql.table(view)} where company_id = ${a}`.execute(trx),
        ),
      ).rejects.toThrow(/permission denied/);
    },
  );

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
