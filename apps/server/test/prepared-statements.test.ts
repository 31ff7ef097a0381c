import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inActorTransaction } from '../src/db/actor-transaction.ts';
import {
  connectDatabase,
  type DatabaseHandle,
  PREPARED_PER_CONNECTION,
  withPreparedStatements,
} from '../src/db/database.ts';
import { RequestTransaction } from '../src/db/request-transaction.ts';
import { inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import { beginSessionTransaction } from '../src/modules/auth/auth.repository.ts';
import type { RequestContext } from '../src/request-context.ts';
import { createCompany, createUser, signIn } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// One connection, so every statement below meets the same server session and its prepared statements.
let ctx: TestContext;
let single: DatabaseHandle;
beforeAll(async () => {
  ctx = await createTestContext();
  single = connectDatabase(ctx.config.databaseAppUrl ?? '', 1);
  // A row for the reads below to see (platform scope).
  await ctx.ownerDb.insertInto('platform_secrets').values({ name: 'probe-row', value: 'x' }).execute();
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

it('answers a read whose prepared statement a migration made stale: the transaction begun again, once', async () => {
  const readAll = () =>
    inActorTransaction(single.db, systemAdmin, async (trx) => {
      // A read before it in the same transaction: it has answered already and loses nothing.
      const visible = await sql<{ n: number }>`select ${1}::int as n`.execute(trx);
      const rows = await trx.selectFrom('platform_secrets').selectAll().where('name', '<>', 'none').execute();
      const bound = await sql<{ platform: string }>`
        select current_setting('app.platform', true) as platform where ${true}::boolean`.execute(trx);
      return { visible: visible.rows, rows, platform: bound.rows[0]?.platform };
    });
  await readAll();
  await readAll();
  // A deploy's migration while this process keeps serving.
  await sql`alter table platform_secrets add column probe_retried int`.execute(ctx.ownerDb);
  // The statement prepared before is refused; the read still answers, with the new column, bound as before.
  const answered = await readAll();
  expect(answered.visible).toEqual([{ n: 1 }]);
  expect(answered.platform).toBe('on');
  expect(answered.rows.length).toBeGreaterThan(0);
  for (const row of answered.rows) expect(row).toHaveProperty('probe_retried', null);
  expect(await readAll()).toEqual(answered);
});

it('does not begin again a transaction that wrote: the stale statement fails and the write is rolled back', async () => {
  const readAll = (write: boolean) =>
    inActorTransaction(single.db, systemAdmin, async (trx) => {
      if (write)
        await sql`insert into platform_secrets (name, value) values ('probe-stale-write', 'x')`.execute(trx);
      return trx.selectFrom('platform_secrets').selectAll().where('name', '<>', 'none').execute();
    });
  await readAll(false);
  await sql`alter table platform_secrets add column probe_after_write int`.execute(ctx.ownerDb);
  await expect(readAll(true)).rejects.toThrow('cached plan must not change result type');
  const written = await ctx.ownerDb
    .selectFrom('platform_secrets')
    .select('name')
    .where('name', '=', 'probe-stale-write')
    .executeTakeFirst();
  expect(written).toBeUndefined();
  // Prepared afresh from then on.
  expect((await readAll(false)).every((row) => 'probe_after_write' in row)).toBe(true);
});

/** A read as the API runs it: its transaction opened by the session lookup, its statements prepared. */
async function readInRequestTransaction(userId: number, sessionId: string) {
  const { transaction, value } = await RequestTransaction.open(single.db, (connection) =>
    beginSessionTransaction(connection, userId, sessionId, true),
  );
  try {
    return await withPreparedStatements(() =>
      transaction.run(async (trx) => ({
        user: value?.id,
        services: await trx.selectFrom('services').selectAll().where('id', '>', 0).execute(),
      })),
    );
  } finally {
    transaction.end();
  }
}

describe('a request transaction made stale by a migration', () => {
  const signedInAdmin = async () => {
    const company = await createCompany(ctx.ownerDb);
    await createService(ctx.ownerDb, company.id);
    const user = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
    await signIn(ctx.app, user.email);
    const { family_id } = await ctx.ownerDb
      .selectFrom('refresh_tokens')
      .select('family_id')
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    return { user, session: family_id as string };
  };

  it('is begun again with its own message (the session looked up again) and answers', async () => {
    const { user, session } = await signedInAdmin();
    await readInRequestTransaction(user.id, session);
    await sql`alter table services add column probe_held int`.execute(ctx.ownerDb);
    const read = await readInRequestTransaction(user.id, session);
    expect(read.user).toBe(user.id);
    expect(read.services).toHaveLength(1);
    expect(read.services[0]).toHaveProperty('probe_held', null);
  });

  it('fails as before when the session lookup answers otherwise the second time (signed out meanwhile)', async () => {
    const { user, session } = await signedInAdmin();
    await readInRequestTransaction(user.id, session);
    await sql`alter table services add column probe_signed_out int`.execute(ctx.ownerDb);
    // The sign-in ends between the request's lookup and its stale statement.
    const { transaction } = await RequestTransaction.open(single.db, (connection) =>
      beginSessionTransaction(connection, user.id, session, true),
    );
    await ctx.ownerDb
      .updateTable('refresh_tokens')
      .set({ revoked_at: new Date() })
      .where('user_id', '=', user.id)
      .execute();
    await expect(
      withPreparedStatements(() =>
        transaction.run((trx) => trx.selectFrom('services').selectAll().where('id', '>', 0).execute()),
      ),
    ).rejects.toThrow('cached plan must not change result type');
    transaction.end();
  });
});

it('does not begin again a transaction above READ COMMITTED (its reads share one snapshot)', async () => {
  const read = async (isolation: string) => {
    const { transaction } = await RequestTransaction.open(single.db, (connection) =>
      sql.raw(`begin${isolation}; select set_config('app.platform', 'on', true)`).execute(connection),
    );
    try {
      return await withPreparedStatements(() =>
        transaction.run((trx) =>
          trx.selectFrom('platform_secrets').selectAll().where('name', '<>', 'none-isolated').execute(),
        ),
      );
    } finally {
      transaction.end();
    }
  };
  await read('');
  await sql`alter table platform_secrets add column probe_isolated int`.execute(ctx.ownerDb);
  await expect(read(' isolation level repeatable read')).rejects.toThrow(
    'cached plan must not change result type',
  );
  expect(await read('')).toEqual([expect.objectContaining({ probe_isolated: null })]);
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
