import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const refresh = (context: TestContext, refreshToken: string) =>
  context.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken } });
const profile = (context: TestContext, accessToken: string) =>
  context.app.inject({ method: 'GET', url: '/api/v1/auth/profile', headers: bearer(accessToken) });

async function newSession(context: TestContext) {
  const user = await createUser(context.ownerDb, { role: 'system_admin' });
  return signIn(context.app, user.email);
}

describe('POST /auth/logout without a body', () => {
  it.each([
    ['no content type', {}],
    ['an empty JSON body', { 'content-type': 'application/json' }],
  ])('with %s answers 200 and ends the sign-in the bearer token names', async (_label, headers) => {
    const session = await newSession(ctx);
    const answer = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { ...bearer(session.accessToken), ...headers },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ success: true, data: { loggedOut: true } });
    expect((await profile(ctx, session.accessToken)).statusCode).toBe(401);
    expect((await refresh(ctx, session.refreshToken)).statusCode).toBe(401);
  });

  it('ends the sign-in an expired access token names', async () => {
    const short = await createTestContext({ ACCESS_TOKEN_TTL: '1s' });
    try {
      const session = await newSession(short);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await profile(short, session.accessToken)).json().error).toBe('token_expired');
      const answer = await short.app.inject({
        method: 'POST',
        url: '/api/v1/auth/logout',
        headers: bearer(session.accessToken),
      });
      expect(answer.statusCode).toBe(200);
      expect((await refresh(short, session.refreshToken)).statusCode).toBe(401);
    } finally {
      await short.close();
    }
  });

  it('leaves other sign-ins alone, and a forged token ends nothing', async () => {
    const mine = await newSession(ctx);
    const other = await newSession(ctx);
    await ctx.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: bearer(mine.accessToken) });
    expect((await profile(ctx, other.accessToken)).statusCode).toBe(200);
    const [header, payload] = other.accessToken.split('.');
    const forged = `${header}.${payload}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    const answer = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: bearer(forged),
    });
    expect(answer.statusCode).toBe(200);
    expect((await profile(ctx, other.accessToken)).statusCode).toBe(200);
  });
});
