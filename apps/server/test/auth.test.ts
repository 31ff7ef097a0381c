import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/lib/crypto.ts';
import { bearer, createCompany, createUser, signIn, TEST_PASSWORD } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ LOGIN_MAX_FAILURES: '3' });
});
afterAll(() => ctx.close());

const login = (email: string, password: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });
const refresh = (refreshToken: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken } });
const profile = (token: string) =>
  ctx.app.inject({ method: 'GET', url: '/api/v1/auth/profile', headers: bearer(token) });

describe('POST /auth/login', () => {
  it('returns tokens and the user with company, and records a LOGIN audit entry', async () => {
    const company = await createCompany(ctx.ownerDb, { name: 'Login Co' });
    const user = await createUser(ctx.ownerDb, {
      role: 'company_admin',
      companyId: company.id,
      name: 'Jane Doe',
    });
    const response = await login(user.email.toUpperCase(), TEST_PASSWORD);
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data.accessToken).toMatch(/^ey/);
    expect(data.refreshToken.length).toBeGreaterThanOrEqual(43);
    expect(data.user).toMatchObject({
      id: user.id,
      firstName: 'Jane',
      role: 'company_admin',
      companyId: company.id,
      company: { name: 'Login Co' },
    });
    expect(data.user).not.toHaveProperty('password_hash');
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(audit.map((entry) => entry.action)).toContain('LOGIN');
  });

  it('gives the same 401 text for an unknown e-mail and a wrong password', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
    const wrongPassword = await login(user.email, 'not-the-password');
    const unknownEmail = await login('nobody@nowhere.test', TEST_PASSWORD);
    for (const response of [wrongPassword, unknownEmail]) {
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        success: false,
        message: AUTH_MESSAGES.invalidCredentials,
        error: 'unauthorized',
      });
    }
  });

  it('refuses bad input with 400 and the field named', async () => {
    const response = await login('', '');
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe('Email is required');
    const missing = await ctx.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: {} });
    expect(missing.json().details).toEqual(['email: Email is required', 'password: Password is required']);
  });

  it.each([
    ['inactive user', { status: 'inactive' }, 'active', AUTH_MESSAGES.userInactive],
    ['suspended user', { status: 'suspended' }, 'active', AUTH_MESSAGES.userSuspended],
    ['suspended company', {}, 'suspended', AUTH_MESSAGES.companySuspended],
    ['pending company', {}, 'pending', AUTH_MESSAGES.companyPending],
  ])('refuses a %s with a reason', async (_label, userOverrides, companyStatus, message) => {
    const company = await createCompany(ctx.ownerDb, { status: companyStatus });
    const user = await createUser(ctx.ownerDb, { role: 'viewer', companyId: company.id, ...userOverrides });
    const response = await login(user.email, TEST_PASSWORD);
    expect(response.statusCode).toBe(403);
    expect(response.json().message).toBe(message);
  });

  it('blocks an address after repeated failures with 429, even for the right password', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
    for (let attempt = 0; attempt < 3; attempt++)
      expect((await login(user.email, 'wrong')).statusCode).toBe(401);
    const blocked = await login(user.email, TEST_PASSWORD);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().message).toBe(AUTH_MESSAGES.tooManyAttempts);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('tokens', () => {
  it('rotates the refresh token; reusing the old one after the grace period ends the whole sign-in', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
    const first = await signIn(ctx.app, user.email);
    const rotated = await refresh(first.refreshToken);
    expect(rotated.statusCode).toBe(200);
    const next = rotated.json().data;
    expect(next.refreshToken).not.toBe(first.refreshToken);
    expect((await profile(next.accessToken)).statusCode).toBe(200);

    // Past REFRESH_REUSE_GRACE (refresh-grace.test.ts covers the reuse within it).
    await sql`update refresh_tokens set used_at = used_at - interval '1 minute'
               where token_hash = ${sha256(first.refreshToken)}`.execute(ctx.ownerDb);
    const reuse = await refresh(first.refreshToken);
    expect(reuse.statusCode).toBe(401);
    // The family is revoked: the newest tokens stop working too.
    expect((await refresh(next.refreshToken)).statusCode).toBe(401);
    expect((await profile(next.accessToken)).statusCode).toBe(401);
  });

  it('logout ends the sign-in for both tokens and is audited', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
    const session = await signIn(ctx.app, user.email);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: bearer(session.accessToken),
      payload: { refreshToken: session.refreshToken },
    });
    expect(response.json()).toEqual({ success: true, data: { loggedOut: true } });
    expect((await profile(session.accessToken)).statusCode).toBe(401);
    expect((await refresh(session.refreshToken)).statusCode).toBe(401);
    const actions = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select('action')
      .where('user_id', '=', user.id)
      .execute();
    expect(actions.map((row) => row.action)).toEqual(expect.arrayContaining(['LOGIN', 'LOGOUT']));
  });

  it('answers an expired access token with 401 "Token has expired"', async () => {
    const short = await createTestContext({ ACCESS_TOKEN_TTL: '1s' });
    try {
      const user = await createUser(short.ownerDb, { role: 'system_admin' });
      const session = await signIn(short.app, user.email);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const response = await short.app.inject({
        method: 'GET',
        url: '/api/v1/auth/profile',
        headers: bearer(session.accessToken),
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ message: 'Token has expired', error: 'token_expired' });
    } finally {
      await short.close();
    }
  });

  it('rejects missing, malformed and forged tokens', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/auth/profile' })).statusCode).toBe(401);
    expect((await profile('not-a-jwt')).json().message).toBe(AUTH_MESSAGES.invalidToken);
    const forged =
      'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOiJ4Iiwic3ViIjoiMSIsImlzcyI6InNtcy1jb25zb2xlIiwiZXhwIjo0MTAyNDQ0ODAwfQ.c2lnbmF0dXJl';
    expect((await profile(forged)).statusCode).toBe(401);
  });

  it('a user suspended mid-session loses access on the next request', async () => {
    const company = await createCompany(ctx.ownerDb);
    const user = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
    const session = await signIn(ctx.app, user.email);
    await ctx.ownerDb
      .updateTable('companies')
      .set({ status: 'suspended' })
      .where('id', '=', company.id)
      .execute();
    const response = await profile(session.accessToken);
    expect(response.statusCode).toBe(401);
    expect(response.json().message).toBe(AUTH_MESSAGES.companySuspended);
  });
});

describe('API basics', () => {
  it('answers unknown API routes with the 404 envelope', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false, error: 'not_found' });
  });

  it('serves the OpenAPI document', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json().paths)).toContain('/api/v1/auth/login');
  });
});
