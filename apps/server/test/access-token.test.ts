import { randomBytes } from 'node:crypto';
import { afterEach, expect, it, vi } from 'vitest';
import { signAccessToken, verifyAccessToken } from '../src/modules/auth/access-token.ts';

const claims = { userId: 7, sessionId: '2f1b9a52-6c1e-4d8e-9a53-1f0e6f6b8e11' };

afterEach(() => {
  vi.useRealTimers();
});

it('refuses a token once it has expired, even one checked before', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const key = randomBytes(32);
  const token = await signAccessToken(claims, key, 60);
  expect(await verifyAccessToken(token, key)).toEqual(claims);
  expect(await verifyAccessToken(token, key)).toEqual(claims);

  vi.setSystemTime(Date.now() + 61_000);
  await expect(verifyAccessToken(token, key)).rejects.toMatchObject({ code: 'token_expired' });
});

it('remembers a checked token for the key that checked it only', async () => {
  const key = randomBytes(32);
  const other = randomBytes(32);
  const token = await signAccessToken(claims, key, 60);
  expect(await verifyAccessToken(token, key)).toEqual(claims);
  await expect(verifyAccessToken(token, other)).rejects.toMatchObject({ code: 'unauthorized' });
});
