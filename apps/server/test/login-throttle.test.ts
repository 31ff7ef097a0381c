import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, TEST_PASSWORD } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ LOGIN_MAX_FAILURES: '5', LOGIN_ACCOUNT_MAX_FAILURES: '3' });
});
afterAll(() => ctx.close());

let address = 0;
const newAddress = () => `10.20.${Math.floor(++address / 250)}.${address % 250}`;
const login = (email: string, password: string, remoteAddress = newAddress()) =>
  ctx.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password }, remoteAddress });

const throttleKeys = async () =>
  (await ctx.ownerDb.selectFrom('login_throttle').select('throttle_key').execute()).map(
    (row) => row.throttle_key,
  );

describe('sign-in throttling per account', () => {
  it('blocks an account sprayed from many addresses, even for the right password from a new one', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
    for (let attempt = 0; attempt < 3; attempt++)
      expect((await login(user.email, `wrong-${attempt}`)).statusCode).toBe(401);
    const blocked = await login(user.email, TEST_PASSWORD);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ message: AUTH_MESSAGES.tooManyAttempts, error: 'rate_limited' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    // Other accounts are not affected.
    const other = await createUser(ctx.ownerDb, { role: 'system_admin' });
    expect((await login(other.email, TEST_PASSWORD)).statusCode).toBe(200);
  });

  it('counts every spelling of one address as that account', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'system_admin', email: 'spray-target@acme.test' });
    for (const spelling of [
      'SPRAY-TARGET@acme.test',
      ' spray-target@ACME.test ',
      'ｓｐｒａｙ-target@acme.test',
    ])
      expect((await login(spelling, 'wrong')).statusCode).toBe(401);
    expect((await login(user.email, TEST_PASSWORD)).statusCode).toBe(429);
  });

  it('clears an account’s count when it signs in', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
    for (let attempt = 0; attempt < 2; attempt++) await login(user.email, 'wrong');
    expect((await login(user.email, TEST_PASSWORD)).statusCode).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++)
      expect((await login(user.email, 'wrong')).statusCode).toBe(401);
    expect((await login(user.email, TEST_PASSWORD)).statusCode).toBe(200);
  });
});

describe('concurrent attempts', () => {
  const answerCounts = (statuses: number[]) =>
    statuses.reduce<Record<number, number>>((counts, status) => {
      counts[status] = (counts[status] ?? 0) + 1;
      return counts;
    }, {});

  // A 401 is an attempt whose password was checked; a 429 one refused before its check.
  it('lets at most the address limit of 20 simultaneous wrong passwords from one address be checked', async () => {
    const generous = await createTestContext({ LOGIN_MAX_FAILURES: '5', LOGIN_ACCOUNT_MAX_FAILURES: '1000' });
    try {
      const user = await createUser(generous.ownerDb, { role: 'system_admin' });
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, attempt) =>
          generous.app.inject({
            method: 'POST',
            url: '/api/v1/auth/login',
            payload: { email: user.email, password: `wrong-${attempt}` },
            remoteAddress: '10.21.0.1',
          }),
        ),
      );
      expect(answerCounts(answers.map((answer) => answer.statusCode))).toEqual({ 401: 5, 429: 15 });
      expect(
        (
          await generous.app.inject({
            method: 'POST',
            url: '/api/v1/auth/login',
            payload: { email: user.email, password: TEST_PASSWORD },
            remoteAddress: '10.21.0.1',
          })
        ).statusCode,
      ).toBe(429);
    } finally {
      await generous.close();
    }
  });

  it('lets at most the account limit of 20 simultaneous wrong passwords from many addresses be checked', async () => {
    const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, attempt) => login(user.email, `wrong-${attempt}`)),
    );
    expect(answerCounts(answers.map((answer) => answer.statusCode))).toEqual({ 401: 3, 429: 17 });
  });
});

describe('throttle pruning', () => {
  it('deletes rows whose window has passed and that block nothing, when a failure is written', async () => {
    await sql`
      insert into login_throttle (throttle_key, failures, window_started_at, blocked_until) values
        ('stale|old@x.test', 2, now() - interval '1 day', null),
        ('served|old@x.test', 9, now() - interval '1 day', now() - interval '1 hour'),
        ('blocked|old@x.test', 9, now() - interval '1 day', now() + interval '1 hour'),
        ('recent|new@x.test', 1, now() - interval '1 minute', null)`.execute(ctx.ownerDb);
    await login('whoever@x.test', 'wrong');
    const keys = await throttleKeys();
    expect(keys).not.toContain('stale|old@x.test');
    expect(keys).not.toContain('served|old@x.test');
    expect(keys).toEqual(expect.arrayContaining(['blocked|old@x.test', 'recent|new@x.test']));
  });
});
