import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/lib/crypto.ts';
import { bearer, createCompany, createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ REFRESH_REUSE_GRACE: '10s' });
});
afterAll(() => ctx.close());

const refreshWith = (context: TestContext, refreshToken: string) =>
  context.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken } });
const refresh = (refreshToken: string) => refreshWith(ctx, refreshToken);
const profile = (accessToken: string) =>
  ctx.app.inject({ method: 'GET', url: '/api/v1/auth/profile', headers: bearer(accessToken) });

/** Moves a spent token's rotation into the past, as if that many seconds had gone by. */
const ageRotation = (refreshToken: string, seconds: number) =>
  sql`update refresh_tokens set used_at = used_at - make_interval(secs => ${seconds})
       where token_hash = ${sha256(refreshToken)}`.execute(ctx.ownerDb);

async function newSession() {
  const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
  return signIn(ctx.app, user.email);
}

describe('refresh rotation with two tabs', () => {
  it('gives a reuse within the grace period the same successor, and the sign-in lives on', async () => {
    const session = await newSession();
    const firstTab = await refresh(session.refreshToken);
    expect(firstTab.statusCode).toBe(200);
    const secondTab = await refresh(session.refreshToken);
    expect(secondTab.statusCode).toBe(200);
    expect(secondTab.json().data.refreshToken).toBe(firstTab.json().data.refreshToken);
    for (const answer of [firstTab, secondTab])
      expect((await profile(answer.json().data.accessToken)).statusCode).toBe(200);
    // The shared successor rotates on as usual.
    const next = await refresh(firstTab.json().data.refreshToken);
    expect(next.statusCode).toBe(200);
    expect(next.json().data.refreshToken).not.toBe(firstTab.json().data.refreshToken);
  });

  it('gives two refreshes at the same instant one successor between them', async () => {
    const session = await newSession();
    const answers = await Promise.all([refresh(session.refreshToken), refresh(session.refreshToken)]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    const [first, second] = answers.map((answer) => answer.json().data.refreshToken);
    expect(first).toBe(second);
    const rows = await ctx.ownerDb
      .selectFrom('refresh_tokens')
      .select(['used_at', 'revoked_at'])
      .where('user_id', '=', session.user.id)
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => row.revoked_at === null)).toBe(true);
  });

  it('follows the chain when the first tab has already rotated again', async () => {
    const session = await newSession();
    const once = (await refresh(session.refreshToken)).json().data.refreshToken;
    const twice = (await refresh(once)).json().data.refreshToken;
    const late = await refresh(session.refreshToken);
    expect(late.statusCode).toBe(200);
    expect(late.json().data.refreshToken).toBe(twice);
  });

  it('still ends the whole sign-in for a reuse after the grace period', async () => {
    const session = await newSession();
    const rotated = (await refresh(session.refreshToken)).json().data;
    await ageRotation(session.refreshToken, 11);
    const reuse = await refresh(session.refreshToken);
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().message).toBe(AUTH_MESSAGES.invalidRefreshToken);
    expect((await refresh(rotated.refreshToken)).statusCode).toBe(401);
    expect((await profile(rotated.accessToken)).statusCode).toBe(401);
  });

  it('does not hand the successor to a user suspended since', async () => {
    const company = await createCompany(ctx.ownerDb);
    const user = await createUser(ctx.ownerDb, { role: 'viewer', companyId: company.id });
    const session = await signIn(ctx.app, user.email);
    expect((await refresh(session.refreshToken)).statusCode).toBe(200);
    await ctx.ownerDb.updateTable('users').set({ status: 'suspended' }).where('id', '=', user.id).execute();
    const reuse = await refresh(session.refreshToken);
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().message).toBe(AUTH_MESSAGES.userSuspended);
  });

  it('keeps the successor encrypted, never as the token itself', async () => {
    const session = await newSession();
    const successor = (await refresh(session.refreshToken)).json().data.refreshToken as string;
    const spent = await ctx.ownerDb
      .selectFrom('refresh_tokens')
      .select('successor_token')
      .where('token_hash', '=', sha256(session.refreshToken))
      .executeTakeFirstOrThrow();
    expect(spent.successor_token).toMatch(/^v1\./);
    expect(spent.successor_token).not.toContain(successor);
  });

  it('takes its window from REFRESH_REUSE_GRACE (0s: every reuse ends the sign-in)', async () => {
    const strict = await createTestContext({ REFRESH_REUSE_GRACE: '0s' });
    try {
      const user = await createUser(strict.ownerDb, { role: 'system_admin' });
      const session = await signIn(strict.app, user.email);
      const rotated = (await refreshWith(strict, session.refreshToken)).json().data;
      expect((await refreshWith(strict, session.refreshToken)).statusCode).toBe(401);
      expect((await refreshWith(strict, rotated.refreshToken)).statusCode).toBe(401);
    } finally {
      await strict.close();
    }
  });
});
