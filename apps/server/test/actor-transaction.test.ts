import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inActorTransaction } from '../src/db/actor-transaction.ts';
import { connectDatabase } from '../src/db/database.ts';
import { inTenantTransaction } from '../src/db/tenant-scope.ts';
import type { RequestContext } from '../src/request-context.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const requestAs = (role: 'system_admin' | 'viewer', companyId: number | null): RequestContext => ({
  actor: { userId: 7, role, companyId, name: 'A', email: 'a@b.test', sessionId: 's' },
  ip: '127.0.0.1',
  userAgent: null,
  readOnly: true,
});

const readSettings = (trx: Parameters<Parameters<typeof inActorTransaction>[2]>[0]) =>
  sql<{ company: string; user: string }>`select current_setting('app.company_id', true) as company,
                                                current_setting('app.user_id', true) as user`
    .execute(trx)
    .then((result) => result.rows[0]);

it('binds the tenant and user to the transaction, and only to it', async () => {
  const inside = await inActorTransaction(ctx.db, requestAs('viewer', 42), readSettings);
  expect(inside).toEqual({ company: '42', user: '7' });

  const platform = await inActorTransaction(ctx.db, requestAs('system_admin', null), readSettings);
  expect(platform).toEqual({ company: '', user: '7' });

  // Transaction-local: a pooled connection carries nothing into the next request.
  const outside = await ctx.db.transaction().execute(readSettings);
  expect(outside.company ?? '').toBe('');
});

it('rolls back the work when it fails', async () => {
  await expect(
    inActorTransaction(ctx.db, requestAs('viewer', 1), async (trx) => {
      await trx.insertInto('platform_secrets').values({ name: 'rollback-probe', value: 'x' }).execute();
      throw new Error('boom');
    }),
  ).rejects.toThrow('boom');
  const row = await ctx.db
    .selectFrom('platform_secrets')
    .select('name')
    .where('name', '=', 'rollback-probe')
    .executeTakeFirst();
  expect(row).toBeUndefined();
});

it('binds ids only: a scope whose company is not an id is refused before anything runs', async () => {
  const forged = { kind: 'company', companyId: Number.NaN } as const;
  await expect(inTenantTransaction(ctx.db, forged, readSettings)).rejects.toThrow('Not a whole number');
});

it('looks up the session user across tenants inside app_session_user only', async () => {
  const inside = await inActorTransaction(ctx.db, requestAs('viewer', 42), async (trx) => {
    await sql`select * from app_session_user(1, ${randomUUID()}::uuid)`.execute(trx);
    return sql<{ platform: string; company: string }>`
      select current_setting('app.platform', true) as platform, current_setting('app.company_id', true) as company`
      .execute(trx)
      .then((result) => result.rows[0]);
  });
  expect(inside).toEqual({ platform: '', company: '42' });
});

it('sends a read request to the read replica (DATABASE_READ_URL) in a read-only transaction, a write to the primary', async () => {
  const replicaUrl = new URL(ctx.config.databaseAppUrl!);
  replicaUrl.searchParams.set('application_name', 'replica-probe');
  const handle = connectDatabase(ctx.config.databaseAppUrl!, 2, { readUrl: replicaUrl.toString() });
  const where = (trx: Parameters<Parameters<typeof inActorTransaction>[2]>[0]) =>
    sql<{ app: string; readOnly: string }>`select current_setting('application_name') as app,
                                                  current_setting('transaction_read_only') as "readOnly"`
      .execute(trx)
      .then((result) => result.rows[0]);
  try {
    expect(await inActorTransaction(handle.db, requestAs('viewer', 42), where)).toEqual({
      app: 'replica-probe',
      readOnly: 'on',
    });
    const write = { ...requestAs('viewer', 42), readOnly: false };
    expect(await inActorTransaction(handle.db, write, where)).toEqual({ app: '', readOnly: 'off' });
  } finally {
    await handle.close();
  }
});
