import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from './support/test-app.ts';

/** The browser-protection headers every answer carries, and the one route no browser reads. */
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});

const CSP_DIRECTIVES = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "script-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'self'",
  "object-src 'none'",
];

describe('security headers', () => {
  it.each([
    ['an answer', '/api/v1/health'],
    ['a 401', '/api/v1/auth/profile'],
    ['a 404', '/api/v1/no-such-route'],
  ])('%s carries the content security policy and the other browser protections', async (_, url) => {
    const response = await ctx.app.inject({ method: 'GET', url });
    const policy = String(response.headers['content-security-policy']).split(';');
    expect(policy).toEqual(expect.arrayContaining(CSP_DIRECTIVES));
    expect(response.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0',
    });
    expect(response.headers['x-powered-by']).toBeUndefined();
    // HSTS is sent by the response-headers hook, over TLS only.
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });

  it('a provider callback answers without them (no browser reads it)', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/callbacks/dlr/1/${'x'.repeat(43)}`,
      payload: 'id=ATPid_headers_1&status=Success',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.statusCode).toBeLessThan(500);
    expect(response.headers['content-security-policy']).toBeUndefined();
    expect(response.headers['x-frame-options']).toBeUndefined();
  });
});
