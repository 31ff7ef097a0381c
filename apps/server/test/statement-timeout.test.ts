import { setTimeout as delay } from 'node:timers/promises';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import { inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import { inLiveSessionTransaction } from '../src/modules/auth/live-session-transaction.ts';
import { resolveActor } from '../src/plugins/authenticate.ts';
import { TIMED_OUT_RETRY_AFTER_SECONDS } from '../src/plugins/database-unavailable.ts';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

const REQUEST_TIMEOUT_MS = 300;

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ REQUEST_STATEMENT_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
});
afterAll(() => ctx?.close());

it("cuts a request's slow statement at the request timeout and answers 503 with Retry-After in the envelope", async () => {
  const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  const list = () =>
    ctx.app.inject({
      method: 'GET',
      url: '/api/v1/services',
      headers: bearer(tenant.staff.company_admin.token),
    });
  expect((await list()).statusCode).toBe(200);

  // The owner holds the table: the request's statement waits on the lock, as behind a slow one.
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const holder = ctx.ownerDb.connection().execute(async (connection) => {
    await sql`begin; lock table services in access exclusive mode`.execute(connection);
    locked();
    await released;
    await sql`rollback`.execute(connection);
  });
  try {
    await lockTaken;
    let answer: Awaited<ReturnType<typeof list>> | undefined;
    const request = list().then((response) => {
      answer = response;
    });
    // Bounded: far longer than the timeout. Without it the request waits for the lock for good.
    for (let i = 0; i < 100 && !answer; i++) await delay(REQUEST_TIMEOUT_MS / 10);
    release();
    await request;
    expect(answer?.statusCode).toBe(503);
    expect(answer?.headers['retry-after']).toBe(String(TIMED_OUT_RETRY_AFTER_SECONDS));
    expect(answer?.json()).toEqual({
      success: false,
      error: 'unavailable',
      message: REQUEST_LIMIT_MESSAGES.serverBusy(TIMED_OUT_RETRY_AFTER_SECONDS),
    });
  } finally {
    release();
    await holder;
  }
  expect((await list()).statusCode).toBe(200);
});

it("gives the engine and jobs their own, longer timeout, and the owner's work and statements outside a transaction none", async () => {
  const timeout = sql<{ timeout: string }>`select current_setting('statement_timeout') as timeout`;
  const bound = (db: Database) =>
    inTenantTransaction(db, platformScope, (trx) =>
      timeout.execute(trx).then((result) => result.rows[0]?.timeout),
    );
  expect(await bound(ctx.db)).toBe(`${REQUEST_TIMEOUT_MS}ms`);
  expect(await bound(ctx.jobDb)).toBe('1min');
  // The owner's (migrations, the demo seed): none.
  expect(await bound(ctx.ownerDb)).toBe('0');
  // Transaction-local: the connection carries nothing into the next piece of work.
  expect((await timeout.execute(ctx.db)).rows[0]?.timeout).toBe('0');
});

it("gives a streamed export's later transactions the request's binding and timeout", async () => {
  const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  const actor = await resolveActor(ctx.deps, tenant.staff.company_admin.token);
  const bound = await inLiveSessionTransaction(ctx.db, actor, (trx) =>
    sql<{ timeout: string; company: string; user: string }>`
      select current_setting('statement_timeout') as timeout,
             current_setting('app.company_id', true) as company,
             current_setting('app.user_id', true) as user`
      .execute(trx)
      .then((result) => result.rows[0]),
  );
  expect(bound).toEqual({
    timeout: `${REQUEST_TIMEOUT_MS}ms`,
    company: String(actor.companyId),
    user: String(actor.userId),
  });
});
