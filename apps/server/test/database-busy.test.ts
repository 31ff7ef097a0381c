import { setTimeout as delay } from 'node:timers/promises';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../src/app.ts';
import { connectDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { BUSY_RETRY_AFTER_SECONDS } from '../src/plugins/database-unavailable.ts';
import { WAITING_PER_CONNECTION } from '../src/plugins/load-shedding.ts';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
});
afterAll(() => ctx?.close());

/** The same app on a pool of one connection. */
async function appOnPoolOfOne(connectionTimeoutMillis: number) {
  const handle = connectDatabase(ctx.config.databaseAppUrl!, 1, { connectionTimeoutMillis });
  const app = await buildApp({ ...ctx.deps, db: handle.db }, { serveConsole: false });
  await app.ready();
  return { handle, app, close: () => app.close().then(() => handle.close()) };
}

const listMessages = (app: App) =>
  app.inject({ method: 'GET', url: '/api/v1/messages', headers: bearer(tenant.staff.company_admin.token) });

const busyAnswer = {
  success: false,
  error: 'unavailable',
  message: REQUEST_LIMIT_MESSAGES.serverBusy(BUSY_RETRY_AFTER_SECONDS),
};

async function until(condition: () => boolean, what: string) {
  for (let i = 0; i < 200 && !condition(); i++) await delay(25);
  if (!condition()) throw new Error(`Never happened: ${what}`);
}

describe('a request that cannot get a database connection in time', () => {
  let tiny: { handle: DatabaseHandle; app: App; close: () => Promise<void> };
  beforeAll(async () => {
    tiny = await appOnPoolOfOne(200);
  });
  afterAll(() => tiny?.close());

  it('answers 503 with Retry-After and the standard envelope, then serves again once one is free', async () => {
    expect((await listMessages(tiny.app)).statusCode).toBe(200);
    let held: pg.PoolClient | undefined = await tiny.handle.pool.connect();
    try {
      const busy = await listMessages(tiny.app);
      expect(busy.statusCode).toBe(503);
      expect(busy.headers['retry-after']).toBe(String(BUSY_RETRY_AFTER_SECONDS));
      expect(busy.json()).toEqual(busyAnswer);
      held.release();
      held = undefined;
      expect((await listMessages(tiny.app)).statusCode).toBe(200);
    } finally {
      held?.release();
    }
  });
});

describe('a process that serves and works', () => {
  let tiny: { handle: DatabaseHandle; app: App; close: () => Promise<void> };
  beforeAll(async () => {
    tiny = await appOnPoolOfOne(200);
  });
  afterAll(() => tiny?.close());

  it('serves requests while its jobs hold every job connection (requests and jobs have pools of their own)', async () => {
    const held = await tiny.handle.jobPool.connect();
    try {
      expect((await listMessages(tiny.app)).statusCode).toBe(200);
    } finally {
      held.release();
    }
  });
});

describe('a process with too many requests waiting for a connection (@fastify/under-pressure)', () => {
  let tiny: { handle: DatabaseHandle; app: App; close: () => Promise<void> };
  beforeAll(async () => {
    tiny = await appOnPoolOfOne(30_000);
  });
  afterAll(() => tiny?.close());

  it('turns new requests away at once with 503, Retry-After and the envelope, and serves again once they are gone', async () => {
    const held = await tiny.handle.pool.connect();
    let waiting: Promise<{ statusCode: number }[]> | undefined;
    try {
      waiting = Promise.all(Array.from({ length: WAITING_PER_CONNECTION + 2 }, () => listMessages(tiny.app)));
      await until(() => tiny.app.isUnderPressure(), 'the pool counted as overloaded');
      const turnedAway = await listMessages(tiny.app);
      expect(turnedAway.statusCode).toBe(503);
      expect(turnedAway.headers['retry-after']).toBe(String(BUSY_RETRY_AFTER_SECONDS));
      expect(turnedAway.json()).toEqual(busyAnswer);
    } finally {
      held.release();
    }
    // Those already waiting are served, not dropped.
    expect((await waiting).map((answer) => answer.statusCode)).toEqual(
      Array(WAITING_PER_CONNECTION + 2).fill(200),
    );
    await until(() => !tiny.app.isUnderPressure(), 'the pressure gone');
    expect((await listMessages(tiny.app)).statusCode).toBe(200);
  });
});
