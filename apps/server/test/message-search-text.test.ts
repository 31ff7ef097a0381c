import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../src/db/database.ts';
import {
  companyScope,
  inTenantTransaction,
  platformScope,
  type TenantScope,
} from '../src/db/tenant-scope.ts';
import { newestMatches, readPattern } from '../src/modules/messages/message-search.repository.ts';
import { createCompany } from './support/factories.ts';
import { insertMessage } from './support/message-log-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// Migration 0018: the message search's side table lies outside row-level security, so the
// function that reads it is the only wall between tenants there. These probes go through sms_app's
// own connections, as the application's do.

let ctx: TestContext;
let a: number;
let b: number;
const ids = { a: [] as number[], b: [] as number[] };

beforeAll(async () => {
  ctx = await createTestContext();
  a = (await createCompany(ctx.ownerDb)).id;
  b = (await createCompany(ctx.ownerDb)).id;
  // The same words and numbers in both companies, newest last.
  for (const [company, list] of [
    [a, ids.a],
    [b, ids.b],
  ] as const) {
    for (const [i, content] of ['Weekend SALE today', 'weekend match', 'No match here'].entries())
      list.push(
        await insertMessage(ctx.ownerDb, {
          companyId: company,
          content,
          msisdn: `+25471100000${i}`,
          createdAt: new Date(Date.now() - (10 - i) * 60_000),
        }),
      );
  }
});
afterAll(() => ctx?.close());

type Match = { company_id: number; message_id: number };

const search = async (db: Executor, companyId: number | null, pattern: string, limit = 100, few = false) =>
  (await newestMatches(db, companyId, await readPattern(db, companyId, pattern), limit, few)).map(
    ({ company_id, message_id }): Match => ({ company_id, message_id }),
  );

const searchAs = (
  scope: TenantScope,
  companyId: number | null,
  pattern: string,
  limit?: number,
  few?: boolean,
) => inTenantTransaction(ctx.db, scope, (trx) => search(trx, companyId, pattern, limit, few));

describe('newestMatches (through message_search_entries)', () => {
  it("bound to company A, returns A's matches newest first and never B's, whichever company is asked for", async () => {
    for (const few of [false, true])
      for (const pattern of ['%weekend%', '%71100000%', '%e%']) {
        const own = await searchAs(companyScope(a), null, pattern, 100, few);
        expect(own.length, pattern).toBeGreaterThan(0);
        expect(new Set(own.map((row) => row.company_id)), pattern).toEqual(new Set([a]));
        expect(await searchAs(companyScope(a), a, pattern, 100, few), pattern).toEqual(own);
        expect(await searchAs(companyScope(a), b, pattern, 100, few), pattern).toEqual([]);
      }
    expect((await searchAs(companyScope(a), null, '%weekend%')).map((row) => row.message_id)).toEqual([
      ids.a[1],
      ids.a[0],
    ]);
  });

  it('unbound (no company, no platform), returns nothing', async () => {
    for (const companyId of [null, a, b])
      expect(await search(ctx.db, companyId, '%weekend%'), String(companyId)).toEqual([]);
    await ctx.db.transaction().execute(async (trx) => {
      expect(await search(trx, a, '%weekend%')).toEqual([]);
      expect(await search(trx, null, '%e%')).toEqual([]);
    });
  });

  it('in the platform scope, returns every company, or the one asked for', async () => {
    const all = await searchAs(platformScope, null, '%weekend%');
    expect(new Set(all.map((row) => row.message_id))).toEqual(
      new Set([ids.a[0], ids.a[1], ids.b[0], ids.b[1]]),
    );
    expect(new Set((await searchAs(platformScope, b, '%weekend%')).map((row) => row.company_id))).toEqual(
      new Set([b]),
    );
  });

  it('matches the content ignoring case (the caller lowers the text), the number when it has digits, and stops at the limit', async () => {
    expect((await searchAs(companyScope(a), a, '%sale%')).map((row) => row.message_id)).toEqual([ids.a[0]]);
    expect((await searchAs(companyScope(a), a, '%+254711000002%')).map((row) => row.message_id)).toEqual([
      ids.a[2],
    ]);
    expect(await searchAs(companyScope(a), a, '%weekend%', 1)).toHaveLength(1);
    expect(await searchAs(companyScope(a), a, '%weekend%', 0)).toEqual([]);
  });

  it('is kept as messages are written, changed and deleted by the application itself', async () => {
    const id = await inTenantTransaction(ctx.db, companyScope(a), async (trx) => {
      const { rows } = await sql<{ id: number }>`
        insert into messages (company_id, direction, content, status)
        values (${a}, 'outbound', 'Quarterly DIGEST', 'pending') returning id`.execute(trx);
      return rows[0]!.id;
    });
    expect((await searchAs(companyScope(a), a, '%digest%')).map((row) => row.message_id)).toEqual([id]);
    await inTenantTransaction(ctx.db, companyScope(a), (trx) =>
      sql`update messages set content = 'Monthly roundup', status = 'sent' where company_id = ${a} and id = ${id}`.execute(
        trx,
      ),
    );
    expect(await searchAs(companyScope(a), a, '%digest%')).toEqual([]);
    expect((await searchAs(companyScope(a), a, '%roundup%')).map((row) => row.message_id)).toEqual([id]);
    await inTenantTransaction(ctx.db, companyScope(a), (trx) =>
      sql`delete from messages where company_id = ${a} and id = ${id}`.execute(trx),
    );
    expect(await searchAs(companyScope(a), a, '%roundup%')).toEqual([]);
  });
});

describe('newestMatches, every company or one (migration 0027)', () => {
  it('looks text up in the numbers only when it could be part of one: digits, with or without a leading +', async () => {
    const coded = await insertMessage(ctx.ownerDb, {
      companyId: a,
      content: 'your code #711 inside',
      msisdn: '+254799999999',
      createdAt: new Date(Date.now() - 60_000),
    });
    const found = async (pattern: string) =>
      new Set((await searchAs(companyScope(a), a, pattern)).map((row) => row.message_id));
    expect(await found('%711%')).toEqual(new Set([...ids.a, coded]));
    expect(await found('%+2547110%')).toEqual(new Set(ids.a));
    expect(await found('%#711%')).toEqual(new Set([coded]));
    expect(await found('%code #711%')).toEqual(new Set([coded]));
  });

  it('with p_few (every match counted) finds the same matches, newest first, up to the limit', async () => {
    for (const pattern of ['%weekend%', '%711%', '%match%', '%e%', '%zzqx%'])
      for (const limit of [1, 2, 100])
        expect(await searchAs(companyScope(a), a, pattern, limit, true), `${pattern} ${limit}`).toEqual(
          await searchAs(companyScope(a), a, pattern, limit, false),
        );
    expect((await searchAs(companyScope(a), a, '%weekend%', 1, true)).map((row) => row.message_id)).toEqual([
      ids.a[1],
    ]);
  });
});

describe('message_search_text', () => {
  it('cannot be read or written by sms_app directly, bound or not', async () => {
    for (const scope of [companyScope(a), platformScope])
      await expect(
        inTenantTransaction(ctx.db, scope, (trx) => sql`select * from message_search_text`.execute(trx)),
      ).rejects.toThrow(/permission denied/);
    await expect(
      inTenantTransaction(ctx.db, companyScope(a), (trx) =>
        sql`insert into message_search_text (company_id, message_id, created_at, content)
            values (${a}, ${ids.b[0]}, now(), 'x')`.execute(trx),
      ),
    ).rejects.toThrow(/permission denied/);
  });

  it('holds every message once, as the migration and the triggers wrote it', async () => {
    const { rows } = await sql<{ missing: number; extra: number }>`
      select (select count(*)::int from messages m
               where not exists (select 1 from message_search_text t
                                  where t.company_id = m.company_id and t.message_id = m.id
                                    and t.content = lower(m.content) and t.msisdn is not distinct from m.msisdn
                                    and t.created_at = m.created_at)) as missing,
             (select count(*)::int from message_search_text t
               where not exists (select 1 from messages m where m.company_id = t.company_id and m.id = t.message_id)) as extra`.execute(
      ctx.ownerDb,
    );
    expect(rows[0]).toEqual({ missing: 0, extra: 0 });
  });
});
