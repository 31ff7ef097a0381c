import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createCompany, createUser, signIn } from './support/factories.ts';
import { createService, kenyanNumber, subscribeNumbers } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// A streamed export reads its rows in batches long after the request's sign-in check. Here the file
// has ten batches of about 1.2 MB (each row names three long services); a download that stops
// reading after its first chunk holds the server back (it reads one batch ahead of the socket),
// so batches are still to be read when the sign-in ends.
const SUBSCRIBERS = 20_000;

let ctx: TestContext;
let base: string;
let companyId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  companyId = (await createCompany(ctx.ownerDb, { plan: 'enterprise' })).id;
  const numbers = Array.from({ length: SUBSCRIBERS }, (_, i) => kenyanNumber(30, i));
  for (const letter of ['A', 'B', 'C']) {
    const service = await createService(ctx.ownerDb, companyId, {
      name: `${letter} ${'long name '.repeat(19)}`,
    });
    await subscribeNumbers(ctx.ownerDb, service, numbers);
  }
  // As an import leaves them: planned for their size.
  await sql`select analyze_subscriber_tables()`.execute(ctx.ownerDb);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});
afterAll(() => ctx?.close());

async function signedInAdmin() {
  const user = await createUser(ctx.ownerDb, { role: 'company_admin', companyId });
  return { user, token: (await signIn(ctx.app, user.email)).accessToken };
}

/**
 * Downloads the export over a real socket: reads the first chunk, then stops reading (the server's
 * writes back up and its batches wait) while `meanwhile` runs, then reads on to the end.
 * `complete`: the response arrived whole (its last chunk), not cut off.
 */
function download(token: string, meanwhile: () => Promise<unknown>) {
  return new Promise<{ status: number; complete: boolean; lines: number }>((resolve, reject) => {
    let answered = false;
    const call = request(
      `${base}/api/v1/subscriptions/subscribers/export`,
      { headers: bearer(token) },
      (response) => {
        answered = true;
        let lines = 0;
        let paused = false;
        response.on('data', (chunk: Buffer) => {
          for (const byte of chunk) if (byte === 10) lines++;
          if (paused) return;
          paused = true;
          response.pause();
          meanwhile().then(() => response.resume(), reject);
        });
        // A cut-off response ends in an 'aborted' error; what arrived is counted all the same.
        response.on('error', () => {});
        response.on('close', () =>
          resolve({ status: response.statusCode ?? 0, complete: response.complete, lines }),
        );
      },
    );
    call.on('error', (error) => {
      if (!answered) reject(error);
    });
    call.end();
  });
}

describe('a subscriber export while its sign-in ends', () => {
  it('runs to the last row while the sign-in lasts', async () => {
    const { token } = await signedInAdmin();
    const file = await download(token, async () => {});
    expect(file).toEqual({ status: 200, complete: true, lines: SUBSCRIBERS + 1 });
  });

  it.each([
    [
      'signed out',
      (token: string) =>
        ctx.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: bearer(token), payload: {} }),
    ],
    [
      'deactivated',
      (_token: string, userId: number) =>
        ctx.ownerDb.updateTable('users').set({ status: 'inactive' }).where('id', '=', userId).execute(),
    ],
    [
      'moved to another role',
      (_token: string, userId: number) =>
        ctx.ownerDb.updateTable('users').set({ role: 'viewer' }).where('id', '=', userId).execute(),
    ],
  ])('stops, cut off, once the user is %s', async (_case, end) => {
    const { user, token } = await signedInAdmin();
    const file = await download(token, () => end(token, user.id));
    expect(file.status).toBe(200);
    expect(file.complete).toBe(false);
    expect(file.lines).toBeLessThan(SUBSCRIBERS + 1);
  });

  it('stops, cut off, once the company is suspended', async () => {
    const { token } = await signedInAdmin();
    const suspend = (status: string) =>
      ctx.ownerDb.updateTable('companies').set({ status }).where('id', '=', companyId).execute();
    try {
      const file = await download(token, () => suspend('suspended'));
      expect(file.complete).toBe(false);
      expect(file.lines).toBeLessThan(SUBSCRIBERS + 1);
    } finally {
      await suspend('active');
    }
  });
});
