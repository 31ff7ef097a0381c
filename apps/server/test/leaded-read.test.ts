import { setTimeout as delay } from 'node:timers/promises';
import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createCompany, createUser, signIn } from './support/factories.ts';
import { recordSent } from './support/recorded-statements.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function staff(role: 'company_admin' | 'viewer') {
  const company = await createCompany(ctx.ownerDb);
  const service = await createService(ctx.ownerDb, company.id);
  const user = await createUser(ctx.ownerDb, { role, companyId: company.id });
  const { accessToken } = await signIn(ctx.app, user.email);
  return { company, service, user, token: accessToken };
}

const get = (url: string, token: string) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: bearer(token) });

const setUser = (id: number, values: { status?: string; role?: string; name?: string }) =>
  ctx.ownerDb.updateTable('users').set(values).where('id', '=', id).execute();

const LOOKUP = /^begin; select \* from app_begin_session\(\d+, '[0-9a-f-]{36}', true\)$/;
const BINDING = /^begin; select set_config\('app\.company_id', '\d+', true\)/;

describe('a read of a sign-in found before', () => {
  it('sends BEGIN with the session lookup, its statement and COMMIT in one write, and answers as a read looked up first', async () => {
    const { service, token } = await staff('company_admin');
    const first = await get(`/services/${service.id}`, token);
    expect(first.statusCode).toBe(200);

    const sent = await recordSent(ctx.pool, async () => {
      const again = await get(`/services/${service.id}`, token);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(first.json());
    });
    // The guard's visibility check (the lookup's statement), then the route's read bound without a
    // second lookup; each its own transaction, each one write.
    expect(sent.statements[0]).toMatch(LOOKUP);
    expect(sent.statements[1]).toMatch(/app_row_visible/);
    expect(sent.statements[2]).toBe('commit');
    expect(sent.statements[3]).toMatch(BINDING);
    expect(sent.statements.at(-1)).toBe('commit');
    expect(sent.statements.filter((text) => LOOKUP.test(text))).toHaveLength(1);
    expect(sent.writes).toBe(sent.statements.length / 3);
  });

  it('refuses a user suspended since, with the 401 of a lookup made first, and shows them nothing', async () => {
    const { user, token } = await staff('company_admin');
    expect((await get('/subscriptions/subscribers', token)).statusCode).toBe(200);
    await setUser(user.id, { status: 'suspended' });

    const refused = await get('/subscriptions/subscribers', token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({
      success: false,
      message: AUTH_MESSAGES.userSuspended,
      error: 'unauthorized',
    });
    // Forgotten: the next read looks the user up first, and is refused the same way.
    expect((await get('/subscriptions/subscribers', token)).json().message).toBe(AUTH_MESSAGES.userSuspended);
  });

  it('refuses an ended sign-in', async () => {
    const { user, token } = await staff('company_admin');
    expect((await get('/auth/profile', token)).statusCode).toBe(200);
    await ctx.ownerDb
      .updateTable('refresh_tokens')
      .set({ revoked_at: new Date() })
      .where('user_id', '=', user.id)
      .execute();

    const refused = await get('/auth/profile', token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toBe(AUTH_MESSAGES.invalidToken);
  });

  it('answers a user changed since (role, name) with token_expired, and the next read with the user as they are', async () => {
    const { user, token } = await staff('company_admin');
    expect((await get('/auth/profile', token)).json().data.user.role).toBe('company_admin');
    await setUser(user.id, { role: 'viewer', name: 'Renamed Person' });

    const stale = await get('/auth/profile', token);
    expect(stale.statusCode).toBe(401);
    expect(stale.json()).toEqual({
      success: false,
      message: AUTH_MESSAGES.tokenExpired,
      error: 'token_expired',
    });

    const fresh = await get('/auth/profile', token);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json().data.user).toMatchObject({ role: 'viewer', name: 'Renamed Person' });
    expect((await get('/subscriptions/subscribers', token)).statusCode).toBe(403);
  });

  it('looks the sign-in up before an answer made without a statement leaves (a 403 from the remembered role)', async () => {
    const { user, token } = await staff('viewer');
    expect((await get('/subscriptions/subscribers', token)).statusCode).toBe(403);
    await setUser(user.id, { role: 'company_admin' });

    // The guard refuses from the remembered role; the lookup then finds the user changed.
    const stale = await get('/subscriptions/subscribers', token);
    expect(stale.statusCode).toBe(401);
    expect(stale.json().error).toBe('token_expired');
    expect((await get('/subscriptions/subscribers', token)).statusCode).toBe(200);
  });

  it('looks the sign-in up before a 400 leaves, and answers with its refusal instead', async () => {
    const { user, token } = await staff('company_admin');
    expect((await get('/messages', token)).statusCode).toBe(200);
    const sent = await recordSent(ctx.pool, async () => {
      const invalid = await get('/messages?page=abc', token);
      expect(invalid.statusCode).toBe(400);
    });
    expect(sent.statements[0]).toMatch(LOOKUP);

    await setUser(user.id, { status: 'suspended' });
    const refused = await get('/messages?page=abc', token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toBe(AUTH_MESSAGES.userSuspended);
  });

  it('gives every connection back, whatever the answer', async () => {
    const { user, service, token } = await staff('company_admin');
    expect((await get(`/services/${service.id}`, token)).statusCode).toBe(200);
    const answers = await Promise.all([
      get(`/services/${service.id}`, token),
      get('/messages?page=abc', token),
      get('/services/999999999', token),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 400, 404]);
    await setUser(user.id, { status: 'suspended' });
    expect((await get(`/services/${service.id}`, token)).statusCode).toBe(401);
    await delay(20);
    expect(ctx.pool.totalCount - ctx.pool.idleCount).toBe(0);
  });
});
