import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { regenerateCallbackTokens } from '../src/modules/callbacks/callback-tokens.ts';
import { createCompany, createUser, TEST_PASSWORD } from './support/factories.ts';
import { subscriptionCallbackToken } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({
    RATE_LIMIT_PER_MINUTE: '5',
    RATE_LIMIT_AUTH_PER_MINUTE: '2',
    RATE_LIMIT_VALIDATE_PER_MINUTE: '3',
    RATE_LIMIT_CALLBACKS_PER_SECOND: '3',
    RATE_LIMIT_CALLBACK_BAD_TOKENS_PER_MINUTE: '4',
  });
});
afterAll(() => ctx.close());

let address = 0;
/** Each test its own client address, so one test's counters never touch another's. */
const newClient = () => `10.9.0.${++address}`;

const send = (remoteAddress: string, options: InjectOptions) => ctx.app.inject({ ...options, remoteAddress });

async function statusesOf(count: number, request: () => ReturnType<typeof send>) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await request()).statusCode);
  return statuses;
}

function expectRateLimited(response: Awaited<ReturnType<typeof send>>) {
  expect(response.statusCode).toBe(429);
  expect(response.json()).toEqual({
    success: false,
    message: expect.stringMatching(/^Too many requests\. Please wait \d+ seconds? and try again\.$/),
    error: 'rate_limited',
  });
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  expect(response.headers['cache-control']).toBe('no-store');
}

describe('rate limits', () => {
  it('limits every route per client with the global default, in the standard envelope with Retry-After', async () => {
    const client = newClient();
    const health = () => send(client, { method: 'GET', url: '/api/v1/health' });
    expect(await statusesOf(5, health)).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await health());
    // Unknown URLs count against the same budget (probing for routes is throttled too).
    expectRateLimited(await send(client, { method: 'GET', url: '/api/v1/no-such-route' }));
    // Another client is not affected.
    expect((await send(newClient(), { method: 'GET', url: '/api/v1/health' })).statusCode).toBe(200);
  });

  it('tells every answer the limit, what is left of it and when the window ends', async () => {
    const client = newClient();
    const health = () => send(client, { method: 'GET', url: '/api/v1/health' });
    const limitHeaders = (response: Awaited<ReturnType<typeof send>>) => [
      response.headers['x-ratelimit-limit'],
      response.headers['x-ratelimit-remaining'],
      response.headers['x-ratelimit-reset'],
    ];
    expect(limitHeaders(await health())).toEqual(['5', '4', '60']);
    const second = await health();
    expect(second.headers['x-ratelimit-remaining']).toBe('3');
    expect(Number(second.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(59);
    await statusesOf(3, health);
    const refused = await health();
    expectRateLimited(refused);
    expect(limitHeaders(refused).slice(0, 2)).toEqual(['5', '0']);
  });

  it('counts an IPv6 client by its /64, as one client', async () => {
    const subnet = `2001:db8:${++address}:1`;
    const from = (host: string) => () => send(`${subnet}::${host}`, { method: 'GET', url: '/api/v1/health' });
    expect(await statusesOf(5, from('1'))).toEqual([200, 200, 200, 200, 200]);
    expectRateLimited(await from('2')());
    const elsewhere = await send(`2001:db8:${address}:2::1`, { method: 'GET', url: '/api/v1/health' });
    expect(elsewhere.statusCode).toBe(200);
  });

  it('counts requests whose bearer token is bad or revoked, and refuses them before their sign-in is looked up', async () => {
    const forged = newClient();
    const withForgedToken = () =>
      send(forged, {
        method: 'GET',
        url: '/api/v1/auth/profile',
        headers: { authorization: 'Bearer not-a-token' },
      });
    expect(await statusesOf(5, withForgedToken)).toEqual([401, 401, 401, 401, 401]);
    expectRateLimited(await withForgedToken());

    // A revoked token passes its signature check: refusing it takes a database lookup, which the limit saves.
    const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
    const signedIn = await send(newClient(), {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: user.email, password: TEST_PASSWORD },
    });
    const { accessToken } = signedIn.json().data;
    const authorization = `Bearer ${accessToken}`;
    expect(
      (await send(newClient(), { method: 'POST', url: '/api/v1/auth/logout', headers: { authorization } }))
        .statusCode,
    ).toBe(200);
    const revoked = newClient();
    const withRevokedToken = () =>
      send(revoked, { method: 'POST', url: '/api/v1/services', headers: { authorization }, payload: {} });
    expect(await statusesOf(5, withRevokedToken)).toEqual([401, 401, 401, 401, 401]);
    expectRateLimited(await withRevokedToken());
  });

  it('limits sign-in more strictly than the default, per client', async () => {
    const client = newClient();
    const login = () =>
      send(client, {
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'nobody@example.test', password: 'wrong-password' },
      });
    expect(await statusesOf(2, login)).toEqual([401, 401]);
    expectRateLimited(await login());
    const elsewhere = await send(newClient(), {
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'nobody@example.test', password: 'wrong-password' },
    });
    expect(elsewhere.statusCode).toBe(401);
  });

  it('limits token refresh more strictly than the default', async () => {
    const client = newClient();
    const refresh = () =>
      send(client, { method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken: 'not-a-token' } });
    expect(await statusesOf(2, refresh)).toEqual([401, 401]);
    expectRateLimited(await refresh());
  });

  it('limits the public callback-URL check', async () => {
    const client = newClient();
    const validate = () =>
      send(client, { method: 'GET', url: '/api/v1/callbacks/validate/subscription/1/some-token' });
    expect(await statusesOf(3, validate)).toEqual([200, 200, 200]);
    expectRateLimited(await validate());
  });

  it('limits provider callbacks per company named in the URL, whatever address they come from', async () => {
    const first = await createCompany(ctx.ownerDb);
    const second = await createCompany(ctx.ownerDb);
    const tokens = {
      [first.id]: await subscriptionCallbackToken(ctx.ownerDb, first.id),
      [second.id]: await subscriptionCallbackToken(ctx.ownerDb, second.id),
    };
    const notify = (companyId: number) =>
      send(newClient(), {
        method: 'POST',
        url: `/api/v1/callbacks/subscription/${companyId}/${tokens[companyId]}`,
        payload: { phoneNumber: '+254712000001', shortCode: '1', keyword: 'NONE', updateType: 'addition' },
      });
    // A window of one second: the burst below takes a fraction of it.
    expect(await statusesOf(3, () => notify(first.id))).toEqual([200, 200, 200]);
    expectRateLimited(await notify(first.id));
    expect((await notify(second.id)).statusCode).toBe(200);
  });

  it('limits delivery-report callbacks per company the same way', async () => {
    const company = await createCompany(ctx.ownerDb);
    const { dlr } = await regenerateCallbackTokens(ctx.ownerDb, company.id, ctx.deps.keys.encryption);
    const report = () =>
      send(newClient(), {
        method: 'POST',
        url: `/api/v1/callbacks/dlr/${company.id}/${dlr}`,
        payload: { id: 'x', status: 'Success', phoneNumber: '+254712000001' },
      });
    const answers = [await report(), await report(), await report()];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    // Every answer says the limit, what is left of it and when its window ends, as on every limited route.
    expect(
      answers.map((answer) => [
        answer.headers['x-ratelimit-limit'],
        answer.headers['x-ratelimit-remaining'],
        answer.headers['x-ratelimit-reset'],
      ]),
    ).toEqual([
      ['3', '2', '1'],
      ['3', '1', '1'],
      ['3', '0', '1'],
    ]);
    const refused = await report();
    expectRateLimited(refused);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it("starts a company's callback window anew after a second, and keeps each callback route's count apart", async () => {
    const company = await createCompany(ctx.ownerDb);
    const tokens = await regenerateCallbackTokens(ctx.ownerDb, company.id, ctx.deps.keys.encryption);
    const report = () =>
      send(newClient(), {
        method: 'POST',
        url: `/api/v1/callbacks/dlr/${company.id}/${tokens.dlr}`,
        payload: { id: 'x', status: 'Success', phoneNumber: '+254712000001' },
      });
    const notify = () =>
      send(newClient(), {
        method: 'POST',
        url: `/api/v1/callbacks/subscription/${company.id}/${tokens.subscription}`,
        payload: { phoneNumber: '+254712000001', shortCode: '1', keyword: 'NONE', updateType: 'addition' },
      });
    expect(await statusesOf(3, report)).toEqual([200, 200, 200]);
    expectRateLimited(await report());
    expect((await notify()).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await report()).statusCode).toBe(200);
  });

  it("counts a callback with a wrong token against its address, never against the company's rate", async () => {
    const company = await createCompany(ctx.ownerDb);
    const tokens = await regenerateCallbackTokens(ctx.ownerDb, company.id, ctx.deps.keys.encryption);
    const notification = {
      phoneNumber: '+254712000001',
      shortCode: '1',
      keyword: 'NONE',
      updateType: 'addition',
    };
    const provider = newClient();
    const prober = newClient();
    const notify = (client: string, token = tokens.subscription) =>
      send(client, {
        method: 'POST',
        url: `/api/v1/callbacks/subscription/${company.id}/${token}`,
        payload: notification,
      });
    const probe = (client: string, token: string) =>
      send(client, {
        method: 'POST',
        url: `/api/v1/callbacks/dlr/${company.id}/${token}`,
        payload: { id: 'x', status: 'Success' },
      });

    // More wrong tokens for the company than its rate allows in a second: each is a 404 and counts for
    // the address (4 a minute), not the company.
    const wrong = [1, 2, 3, 4].map((n) => `a-wrong-token-of-43-characters-${n}`.padEnd(43, 'x'));
    for (const token of wrong) {
      const answer = await probe(prober, token);
      expect(answer.statusCode).toBe(404);
      expect(answer.json().error).toBe('not_found');
    }
    // The company's own delivery reports and notifications still get through, its window untouched.
    const report = await probe(provider, tokens.dlr);
    expect(report.statusCode).toBe(200);
    expect(report.headers['x-ratelimit-remaining']).toBe('2');
    expect((await notify(provider)).statusCode).toBe(200);

    // Past its count of wrong URLs the address is refused, before any lookup (no connection is taken
    // from the pool), on either callback route…
    let connectionsTaken = 0;
    const countConnection = () => connectionsTaken++;
    ctx.pool.on('acquire', countConnection);
    try {
      expectRateLimited(await probe(prober, wrong[0]));
      expectRateLimited(await notify(prober, 'yet-another-wrong-token-of-43-characters-xx'));
      expectRateLimited(await probe(prober, 'short'));
    } finally {
      ctx.pool.off('acquire', countConnection);
    }
    expect(connectionsTaken).toBe(0);
    // …though a token found right before still passes from it, and another address is not affected.
    expect((await notify(prober)).statusCode).toBe(200);
    expect((await probe(newClient(), wrong[0])).statusCode).toBe(404);
  });

  it('forgets a token found right once it is answered 404 (regenerated): it then counts against its address', async () => {
    const company = await createCompany(ctx.ownerDb);
    const old = await regenerateCallbackTokens(ctx.ownerDb, company.id, ctx.deps.keys.encryption);
    const report = () =>
      send(newClient(), {
        method: 'POST',
        url: `/api/v1/callbacks/dlr/${company.id}/${old.dlr}`,
        payload: { id: 'x', status: 'Success' },
      });
    expect((await report()).headers['x-ratelimit-limit']).toBe('3');
    await regenerateCallbackTokens(ctx.ownerDb, company.id, ctx.deps.keys.encryption);
    // Still remembered: counted for the company, refused by the route's own check.
    const stale = await report();
    expect([stale.statusCode, stale.headers['x-ratelimit-limit']]).toEqual([404, '3']);
    // Forgotten: a wrong token like any other, counted for its address (4 a minute).
    const forgotten = await report();
    expect([forgotten.statusCode, forgotten.headers['x-ratelimit-limit']]).toEqual([404, '4']);
  });
});
