import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../src/app.ts';
import { BUSY_RETRY_AFTER_SECONDS, connectDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
// The same app on a pool of one connection that gives up waiting after 200 ms.
let tiny: DatabaseHandle;
let app: App;

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  tiny = connectDatabase(ctx.config.databaseAppUrl!, 1, { connectionTimeoutMillis: 200 });
  app = await buildApp({ ...ctx.deps, db: tiny.db }, { serveConsole: false });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await tiny?.close();
  await ctx?.close();
});

const listMessages = () =>
  app.inject({
    method: 'GET',
    url: '/api/v1/messages',
    headers: bearer(tenant.staff.company_admin.token),
  });

describe('a request that cannot get a database connection in time', () => {
  it('answers 503 with Retry-After and the standard envelope, then serves again once one is free', async () => {
    expect((await listMessages()).statusCode).toBe(200);

    let held: pg.PoolClient | undefined = await tiny.pool.connect();
    try {
      const busy = await listMessages();
      expect(busy.statusCode).toBe(503);
      expect(busy.headers['retry-after']).toBe(String(BUSY_RETRY_AFTER_SECONDS));
      expect(busy.json()).toEqual({
        success: false,
        error: 'unavailable',
        message: REQUEST_LIMIT_MESSAGES.serverBusy(BUSY_RETRY_AFTER_SECONDS),
      });
      held.release();
      held = undefined;
      expect((await listMessages()).statusCode).toBe(200);
    } finally {
      held?.release();
    }
  });

  it('many waiting at once are each told to retry, and all served once the connection is free', async () => {
    const held = await tiny.pool.connect();
    try {
      const waiting = await Promise.all(Array.from({ length: 10 }, listMessages));
      expect(waiting.map((response) => response.statusCode)).toEqual(Array(10).fill(503));
    } finally {
      held.release();
    }
    // One at a time: on a pool of one with a 200 ms wait, ten at once could outwait it on a busy machine.
    for (let i = 0; i < 3; i++) expect((await listMessages()).statusCode).toBe(200);
  });
});
