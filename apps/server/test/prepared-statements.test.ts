import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inActorTransaction } from '../src/db/actor-transaction.ts';
import {
  APP_ROLE,
  connectDatabase,
  type DatabaseHandle,
  PREPARED_PER_CONNECTION,
} from '../src/db/database.ts';
import { inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import type { RequestContext } from '../src/request-context.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// One connection, so every statement below meets the same server session and its prepared statements.
let ctx: TestContext;
let single: DatabaseHandle;
beforeAll(async () => {
  ctx = await createTestContext();
  single = connectDatabase(ctx.config.databaseUrl ?? '', 1, { role: APP_ROLE });
});
afterAll(async () => {
  await single.close();
  await ctx.close();
});

const systemAdmin: RequestContext = {
  actor: { userId: 1, role: 'system_admin', companyId: null, name: 'A', email: 'a@b.test', sessionId: 's' },
  ip: '127.0.0.1',
  userAgent: null,
  readOnly: true,
};

type Trx = Parameters<Parameters<typeof inActorTransaction>[2]>[0];

const preparedNow = (trx: Trx) =>
  sql<{ statement: string }>`select statement from pg_prepared_statements`
    .execute(trx)
    .then((result) => result.rows.map((row) => row.statement));

const planCacheMode = (trx: Trx) =>
  sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`
    .execute(trx)
    .then((result) => result.rows[0]?.mode);

it("prepares a request's parameterised statements once on its connection, planned for each call's values", async () => {
  const probe = (trx: Trx, n: number) => sql`select ${n}::int + 1 as probe_prepared`.execute(trx);
  const { prepared, mode } = await inActorTransaction(single.db, systemAdmin, async (trx) => {
    await probe(trx, 1);
    await probe(trx, 2);
    return { prepared: await preparedNow(trx), mode: await planCacheMode(trx) };
  });
  expect(prepared.filter((text) => text.includes('probe_prepared'))).toHaveLength(1);
  // A generic plan made for an average company misjudges a big or a small one.
  expect(mode).toBe('force_custom_plan');

  // The next request on the connection reuses it; outside a request the session's default holds.
  const again = await inActorTransaction(single.db, systemAdmin, async (trx) => {
    await probe(trx, 3);
    return preparedNow(trx);
  });
  expect(again.filter((text) => text.includes('probe_prepared'))).toHaveLength(1);
  expect(await single.db.transaction().execute(planCacheMode)).toBe('auto');
});

it("leaves a write request's statements unnamed, in the default plan mode (per-row foreign-key checks)", async () => {
  const { prepared, mode } = await inActorTransaction(
    single.db,
    { ...systemAdmin, readOnly: false },
    async (trx) => {
      await sql`select ${6}::int as probe_write`.execute(trx);
      return { prepared: await preparedNow(trx), mode: await planCacheMode(trx) };
    },
  );
  expect(prepared.filter((text) => text.includes('probe_write'))).toHaveLength(0);
  expect(mode).toBe('auto');
});

it('leaves work outside a request (engine, jobs, sign-in) unprepared', async () => {
  const prepared = await inTenantTransaction(single.db, platformScope, async (trx) => {
    await sql`select ${5}::int as probe_unprepared`.execute(trx);
    return preparedNow(trx);
  });
  expect(prepared.filter((text) => text.includes('probe_unprepared'))).toHaveLength(0);
});

it('keeps at most PREPARED_PER_CONNECTION statements on a connection, dropping the least recently used', async () => {
  // Dynamic SQL (an IN-list of any length) must not grow the backend's memory without end.
  const distinct = PREPARED_PER_CONNECTION + 30;
  const prepared = await inActorTransaction(single.db, systemAdmin, async (trx) => {
    for (let i = 0; i < distinct; i += 1)
      await sql`select ${i}::int as ${sql.raw(`probe_bound_${i}`)}`.execute(trx);
    return preparedNow(trx);
  });
  expect(prepared.length).toBeLessThanOrEqual(PREPARED_PER_CONNECTION);
  const kept = prepared.filter((text) => text.includes('probe_bound_'));
  expect(kept.some((text) => text.includes(`probe_bound_${distinct - 1}`))).toBe(true);
  expect(kept.some((text) => /probe_bound_0\b/.test(text))).toBe(false);

  // A statement dropped from the connection is prepared again when it comes back.
  const rows = await inActorTransaction(single.db, systemAdmin, (trx) =>
    sql<{ probe_bound_0: number }>`select ${42}::int as probe_bound_0`.execute(trx),
  );
  expect(rows.rows[0]?.probe_bound_0).toBe(42);
});

it('prepares afresh when a migration changes a table under a prepared statement', async () => {
  const readAll = () =>
    inActorTransaction(single.db, systemAdmin, (trx) =>
      trx.selectFrom('platform_secrets').selectAll().where('name', '<>', 'none').execute(),
    );
  await readAll();
  await readAll();
  // A deploy's migration while this process keeps serving.
  await sql`alter table platform_secrets add column probe_added int`.execute(ctx.ownerDb);
  // The statement prepared before fails once on this connection; from then on it is prepared again.
  await expect(readAll()).rejects.toThrow('cached plan must not change result type');
  const rows = await readAll();
  expect(Array.isArray(rows)).toBe(true);
  expect(await readAll()).toEqual(rows);
});

it('gives a prepared statement the same rows as an unnamed one: keys, order, duplicates, nulls, types', async () => {
  const probe = (trx: Trx, n: number) =>
    sql<Record<string, unknown>>`
      select ${n}::int8 as id, 'a' as dup, null::text as nothing, 'b' as dup,
             timestamptz '2026-11-23 20:01:02.5+00' as at, '{"k":[1,2]}'::jsonb as doc,
             array[1, 2]::int[] as list, true as flag, 1.5::numeric as amount, 'p' as "__proto__"
        from generate_series(1, 3)`.execute(trx);
  const prepared = await inActorTransaction(single.db, systemAdmin, (trx) => probe(trx, 5));
  const unnamed = await inActorTransaction(single.db, { ...systemAdmin, readOnly: false }, (trx) =>
    probe(trx, 5),
  );
  expect(prepared.rows).toHaveLength(3);
  expect(prepared.rows).toStrictEqual(unnamed.rows);
  for (const [i, row] of prepared.rows.entries()) {
    expect(Object.keys(row)).toEqual(Object.keys(unnamed.rows[i] as object));
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('p');
  }
  expect(prepared.rows[0]).toMatchObject({
    id: 5,
    dup: 'b',
    nothing: null,
    doc: { k: [1, 2] },
    list: [1, 2],
  });
  expect((prepared.rows[0] as { at: Date }).at.toISOString()).toBe('2026-11-23T20:01:02.500Z');

  // A shape without __proto__ is built by its own literal; the same rows again on a second call.
  const shaped = (trx: Trx, n: number) =>
    sql<Record<string, unknown>>`select ${n}::int as probe_shape, 'x' as dup, 'y' as dup`.execute(trx);
  const twice = await inActorTransaction(single.db, systemAdmin, async (trx) => [
    (await shaped(trx, 1)).rows,
    (await shaped(trx, 2)).rows,
  ]);
  expect(twice).toStrictEqual([[{ probe_shape: 1, dup: 'y' }], [{ probe_shape: 2, dup: 'y' }]]);
});
