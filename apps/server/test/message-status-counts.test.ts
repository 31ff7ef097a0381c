import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import { createCompany } from './support/factories.ts';
import { seededRandom } from './support/seeded-random.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The message list's counters (migration 0020) against a direct count of messages, after a random
 * run of every change that moves them, made by several connections at once: batches of new
 * messages, status changes (some to the status they already have), text edits, deletes, messages
 * moved to another company, transactions rolled back, and a whole company deleted. The messages'
 * search rows (the top bar's words, the message list's text) are checked after the same run. Most of it runs
 * as the application does (its role, bound to the company, row-level security inside the triggers).
 */
let ctx: TestContext;
let companies: number[];

const STATUSES = ['pending', 'queued', 'scheduled', 'processing', 'sent', 'delivered', 'failed'] as const;

/** Every (company, direction, status) where the counters and the messages disagree (empty when exact). */
async function countDifferences(db: Database) {
  const { rows } = await sql<Record<string, unknown>>`
    with direct as (
      select company_id, direction, status, count(*)::bigint as n from messages group by 1, 2, 3),
    counted as (
      select company_id, direction, status, sum(messages)::bigint as n from message_status_counts
       group by 1, 2, 3 having sum(messages) <> 0)
    (select 'missing' as problem, * from direct except select 'missing', * from counted)
    union all
    (select 'extra', * from counted except select 'extra', * from direct)
    order by 2, 3, 4, 1`.execute(db);
  return rows;
}

/** Every message whose search rows (0009's words, 0018's text) differ from its own text (empty when exact). */
async function searchDifferences(db: Database) {
  const { rows } = await sql<Record<string, unknown>>`
    with direct_text as (
      select company_id, id as message_id, created_at, lower(content) as content, msisdn from messages),
    kept_text as (select company_id, message_id, created_at, content, msisdn from message_search_text),
    direct_words as (
      select m.company_id, w.word, m.created_at, m.id as message_id
        from messages m cross join lateral search_words(m.content) as w(word)),
    kept_words as (select company_id, word, created_at, message_id from message_search_words)
    (select 'text missing' as problem, company_id, message_id from (select * from direct_text except select * from kept_text) x)
    union all
    (select 'text extra', company_id, message_id from (select * from kept_text except select * from direct_text) x)
    union all
    (select 'words missing', company_id, message_id from (select * from direct_words except select * from kept_words) x)
    union all
    (select 'words extra', company_id, message_id from (select * from kept_words except select * from direct_words) x)
    order by 2, 3, 1`.execute(db);
  return rows;
}

beforeAll(async () => {
  ctx = await createTestContext();
  companies = [];
  for (let i = 0; i < 3; i++) companies.push((await createCompany(ctx.ownerDb)).id);
});
afterAll(() => ctx.close());

class RolledBack extends Error {}

/**
 * Two writers picking random overlapping sets of rows lock them in different orders, and PostgreSQL
 * aborts one of the two (the application changes one message at a time and never does this). The
 * victim's transaction is rolled back whole, which the counters must survive like any rollback.
 */
const isDeadlockVictim = (error: unknown) => (error as { code?: string }).code === '40P01';

/** One writer: a random run of changes, each in its own transaction, some rolled back. */
async function write(seed: number, steps: number) {
  const next = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)];
  for (let step = 0; step < steps; step++) {
    const companyId = pick(companies);
    const operation = pick([
      'insert',
      'insert',
      'status',
      'status',
      'status',
      'edit',
      'delete',
      'move',
    ] as const);
    const rollBack = next() < 0.1;
    // Moving a message to another company is the platform's work; the rest runs bound to the company.
    const scope = operation === 'move' ? platformScope : companyScope(companyId);
    const n = 1 + Math.floor(next() * 6);
    const status = pick(STATUSES);
    const inbound = next() < 0.2;
    const target = pick(companies);
    try {
      await inTenantTransaction(ctx.db, scope, async (trx) => {
        // The ids to change are picked inside the statement: whatever the other writers left.
        const some = sql`(select id from messages where company_id = ${companyId} order by random() limit ${n})`;
        switch (operation) {
          case 'insert':
            await sql`
              insert into messages (company_id, direction, content, status)
              select ${companyId}, ${inbound ? 'inbound' : 'outbound'}, 'Text ' || g,
                     ${inbound ? 'received' : status}
                from generate_series(1, ${n}) g`.execute(trx);
            break;
          case 'status':
            await sql`update messages set status = ${status}, updated_at = now()
                       where company_id = ${companyId} and direction = 'outbound' and id in ${some}`.execute(
              trx,
            );
            break;
          case 'edit':
            await sql`update messages set content = content || '!' where company_id = ${companyId} and id in ${some}`.execute(
              trx,
            );
            break;
          case 'delete':
            await sql`delete from messages where company_id = ${companyId} and id in ${some}`.execute(trx);
            break;
          case 'move':
            await sql`update messages set company_id = ${target}
                       where company_id = ${companyId} and service_id is null and id in ${some}
                         and not exists (select 1 from delivery_reports d where d.company_id = messages.company_id
                                            and d.message_id = messages.id)`.execute(trx);
            break;
        }
        if (rollBack) throw new RolledBack();
      });
    } catch (error) {
      if (!(error instanceof RolledBack) && !isDeadlockVictim(error)) throw error;
    }
  }
}

describe('message status counters', () => {
  it('equal a direct count after concurrent random writers, and after a company is deleted', async () => {
    await Promise.all([1, 2, 3, 4, 5].map((writer) => write(20_261_123 + writer, 60)));
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from messages`.execute(ctx.ownerDb);
    expect(rows[0].n).toBeGreaterThan(100);
    expect(await countDifferences(ctx.ownerDb)).toEqual([]);
    // The search rows follow the same changes (edits, deletes, moves to another company).
    expect(await searchDifferences(ctx.ownerDb)).toEqual([]);

    // A whole company goes, its counters with it; the others stay exact.
    await ctx.ownerDb.deleteFrom('companies').where('id', '=', companies[2]).execute();
    expect(await countDifferences(ctx.ownerDb)).toEqual([]);
    const { rows: left } = await sql<{ n: number }>`
      select count(*)::int as n from message_status_counts where company_id = ${companies[2]}`.execute(
      ctx.ownerDb,
    );
    expect(left[0].n).toBe(0);
  });

  it('are read by a company user for their own company only', async () => {
    const seen = await inTenantTransaction(ctx.db, companyScope(companies[0]), (trx) =>
      sql<{ company_id: number }>`select distinct company_id from message_status_counts`.execute(trx),
    );
    expect(seen.rows.map((row) => Number(row.company_id))).toEqual([companies[0]]);
  });
});
