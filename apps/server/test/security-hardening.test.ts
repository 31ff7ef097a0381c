import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { TEXT_MESSAGES } from '@sms/contracts/common/text';
import { IMPORT_MAX_BYTES } from '@sms/contracts/subscribers/import-subscribers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createService, subscriptionCallbackToken, subscriptionOf } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
let callbackToken: string;
beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  callbackToken = await subscriptionCallbackToken(ctx.ownerDb, tenant.company.id);
});
afterAll(() => ctx.close());

const api = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { token?: string; payload?: unknown; headers?: Record<string, string> } = {},
) =>
  ctx.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { ...(options.token ? bearer(options.token) : {}), ...options.headers },
    payload: options.payload as object,
  });

describe('Cache-Control on API answers', () => {
  it('marks every API answer no-store: tokens, data, errors, 404s and callbacks', async () => {
    const answers = [
      await api('POST', '/auth/login', {
        payload: { email: tenant.staff.viewer.email, password: 'Password123!' },
      }),
      await api('GET', '/auth/profile', { token: tenant.staff.viewer.token }),
      await api('GET', '/auth/profile'),
      await api('GET', '/health'),
      await api('GET', '/no-such-route'),
      await api('GET', `/callbacks/my-company`, { token: tenant.staff.company_admin.token }),
      await api('POST', `/callbacks/subscription/${tenant.company.id}/${callbackToken}`, {
        payload: { phoneNumber: '+254712000001', shortCode: '1', keyword: 'NONE', updateType: 'addition' },
      }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 401, 200, 404, 200, 200]);
    for (const answer of answers) expect(answer.headers['cache-control']).toBe('no-store');
  });
});

describe('HSTS', () => {
  it('is not sent over plain HTTP', async () => {
    const answer = await api('GET', '/health');
    expect(answer.headers).not.toHaveProperty('strict-transport-security');
  });

  it('is sent when a trusted proxy says the request came over HTTPS, and only then', async () => {
    const proxied = await createTestContext({ TRUST_PROXY: '1' });
    try {
      const https = await proxied.app.inject({
        method: 'GET',
        url: '/api/v1/health',
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(https.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      const http = await proxied.app.inject({ method: 'GET', url: '/api/v1/health' });
      expect(http.headers).not.toHaveProperty('strict-transport-security');
    } finally {
      await proxied.close();
    }
    // Without TRUST_PROXY the header is the client's word, not the proxy's: ignored.
    const untrusted = await api('GET', '/health', { headers: { 'x-forwarded-proto': 'https' } });
    expect(untrusted.headers).not.toHaveProperty('strict-transport-security');
  });

  it('follows HSTS=1 (always) and HSTS=0 (never)', async () => {
    for (const [setting, expected] of [
      ['1', true],
      ['0', false],
    ] as const) {
      const configured = await createTestContext({ HSTS: setting, TRUST_PROXY: '1' });
      try {
        const answer = await configured.app.inject({
          method: 'GET',
          url: '/api/v1/health',
          headers: { 'x-forwarded-proto': expected ? 'http' : 'https' },
        });
        expect(answer.headers['strict-transport-security'] !== undefined).toBe(expected);
      } finally {
        await configured.close();
      }
    }
  });
});

describe('NUL characters', () => {
  const nul = '\u0000';
  const expectNulRefused = (answer: Awaited<ReturnType<typeof api>>) => {
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ success: false, message: TEXT_MESSAGES.nulCharacter });
  };

  it('refuses a NUL in a sign-in e-mail, a service name and a user form with 400', async () => {
    expectNulRefused(await api('POST', '/auth/login', { payload: { email: `a${nul}@b.co`, password: 'x' } }));
    expectNulRefused(
      await api('POST', '/services', {
        token: tenant.staff.company_admin.token,
        payload: { name: `News${nul}`, shortcode: 'n1', keyword: 'nulkw', description: 'x' },
      }),
    );
    expectNulRefused(
      await api('POST', '/admin/users', {
        token: tenant.staff.system_admin.token,
        payload: { name: `Eve${nul}`, email: 'eve@x.co', password: 'a-Long-pass-99', role: 'system_admin' },
      }),
    );
  });

  it('refuses a NUL in search terms and audit filters with 400', async () => {
    const admin = tenant.staff.system_admin.token;
    for (const url of [
      '/subscriptions/subscribers?search=07%00',
      '/admin/companies?searchTerm=a%00',
      '/admin/users?searchTerm=a%00',
      '/admin/audit-logs?action=%00',
      '/admin/audit-logs?from=2026-01-01%00',
    ])
      expectNulRefused(await api('GET', url, { token: admin }));
  });

  it('answers a NUL in callback URL parameters without a 5xx', async () => {
    const validate = await api('GET', `/callbacks/validate/subscription/${tenant.company.id}/abc%00def`);
    expectNulRefused(validate);
    const callback = await api('POST', `/callbacks/subscription/${tenant.company.id}/${callbackToken}%00`, {
      payload: { phoneNumber: '+254712000002', shortCode: '1', keyword: 'NONE', updateType: 'addition' },
    });
    // The NUL is dropped, as in bodies: the token then matches.
    expect(callback.statusCode).toBe(200);
  });

  it('drops NULs a provider sends in a callback body and applies the notification', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id, {
      shortcode: '40400',
      keyword: 'NULS',
    });
    const answer = await api('POST', `/callbacks/subscription/${tenant.company.id}/${callbackToken}`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        phoneNumber: `+2547120${nul}00003`,
        shortCode: '40400',
        keyword: `NULS${nul}`,
        updateType: 'addition',
      }).toString(),
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data.outcome).toBe('subscribed');
    expect(await subscriptionOf(ctx.ownerDb, service.id, '+254712000003')).toMatchObject({
      status: 'active',
    });
    const inbound = await api('POST', `/callbacks/subscription/${tenant.company.id}/${callbackToken}`, {
      payload: { from: '+254712000004', to: '40400', text: `hello${nul} there`, id: 'nul-message-1' },
    });
    expect(inbound.statusCode).toBeLessThan(500);
  });
});

describe('bodies', () => {
  it('answers a missing or empty body where one is required with a clear 400', async () => {
    const token = tenant.staff.company_admin.token;
    const headerSets: Record<string, string>[] = [{}, { 'content-type': 'application/json' }];
    for (const headers of headerSets) {
      const answer = await api('POST', '/services', { token, headers });
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toEqual({
        success: false,
        message: REQUEST_LIMIT_MESSAGES.bodyRequired,
        error: 'validation_failed',
      });
    }
  });
});

describe('upload size caps', () => {
  const boundary = '----sms-test-boundary';
  const multipart = (parts: string[]) =>
    `${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`;
  const fileField = (content: string) =>
    `Content-Disposition: form-data; name="file"; filename="numbers.csv"\r\nContent-Type: text/csv\r\n\r\n${content}`;
  const importFile = (body: string | Buffer, headers: Record<string, string> = {}) =>
    ctx.app.inject({
      method: 'POST',
      url: `/api/v1/services/${importService.id}/subscribers/import`,
      headers: {
        ...bearer(tenant.staff.company_admin.token),
        'content-type': `multipart/form-data; boundary=${boundary}`,
        ...headers,
      },
      payload: body,
    });
  let importService: Awaited<ReturnType<typeof createService>>;
  beforeAll(async () => {
    importService = await createService(ctx.ownerDb, tenant.company.id);
  });

  const expectTooLarge = (answer: Awaited<ReturnType<typeof importFile>>) => {
    expect(answer.statusCode).toBe(413);
    expect(answer.json()).toMatchObject({
      success: false,
      // The file's cap, or the whole request's (the file plus 64 KB of framing).
      message: expect.stringMatching(
        new RegExp(
          `^The request is too large: at most ${IMPORT_MAX_BYTES / 1024 / 1024}(\\.1)? MB may be sent$`,
        ),
      ),
    });
  };

  it('refuses a multipart request that declares more than the cap, before reading it', async () => {
    const answer = await importFile(multipart([fileField('+254712000001')]), {
      'content-length': String(200 * 1024 * 1024),
    });
    expectTooLarge(answer);
  });

  it('refuses a file over the import size and a request of many fields', async () => {
    // Long lines: the file passes the size cap long before it reaches the row cap.
    const line = `+254712000001,${'x'.repeat(4_000)}\n`;
    const big = line.repeat(Math.ceil((IMPORT_MAX_BYTES + 1024 * 1024) / line.length));
    expectTooLarge(await importFile(multipart([fileField(big)])));
    const fields = Array.from(
      { length: 200 },
      (_, i) => `Content-Disposition: form-data; name="padding${i}"\r\n\r\n${'x'.repeat(10_000)}`,
    );
    const manyFields = await importFile(multipart([...fields, fileField('+254712000001')]));
    expect(manyFields.statusCode).toBe(413);
    expect(manyFields.json()).toEqual({
      success: false,
      message: REQUEST_LIMIT_MESSAGES.tooManyParts,
      error: 'bad_request',
    });
  });
});

describe('audit date filter', () => {
  it('refuses impossible calendar dates with 400', async () => {
    const admin = tenant.staff.system_admin.token;
    for (const date of [
      '2026-02-30',
      '2025-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-02-30T10:00:00Z',
    ])
      expect((await api('GET', `/admin/audit-logs?from=${date}`, { token: admin })).statusCode).toBe(400);
    for (const date of ['2024-02-29', '2026-12-31', '2026-02-28T23:59:59Z'])
      expect((await api('GET', `/admin/audit-logs?to=${date}`, { token: admin })).statusCode).toBe(200);
  });
});

describe('answers made before routing', () => {
  const envelopeOf = (message: string) => ({ success: false, message, error: 'bad_request' });

  it('answers a path parameter over the router’s length (414) and an invalid percent-encoding (400) in the envelope', async () => {
    const tooLong = await api('GET', `/services/${'1'.repeat(101)}`, {
      token: tenant.staff.company_admin.token,
    });
    expect(tooLong.statusCode).toBe(414);
    expect(tooLong.json()).toEqual(envelopeOf(REQUEST_LIMIT_MESSAGES.urlPartTooLong(100)));
    expect(tooLong.headers['cache-control']).toBe('no-store');
    const badEncoding = await api('GET', '/services/%E0%A4%A', { token: tenant.staff.company_admin.token });
    expect(badEncoding.statusCode).toBe(400);
    expect(badEncoding.json()).toEqual(envelopeOf(REQUEST_LIMIT_MESSAGES.unreadableUrl));
  });

  it('answers headers over Node’s size (431) and a request that is not HTTP (400) in the envelope', async () => {
    const listening = await createTestContext();
    try {
      await listening.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = listening.app.server.address() as AddressInfo;
      const oversized = parseRawAnswer(
        await sendRaw(
          port,
          `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(http.maxHeaderSize)}\r\n\r\n`,
        ),
      );
      expect(oversized.status).toBe(431);
      expect(oversized.body).toEqual(envelopeOf(REQUEST_LIMIT_MESSAGES.headersTooLarge(http.maxHeaderSize)));
      expect(oversized.headers['content-type']).toBe('application/json; charset=utf-8');
      const garbled = parseRawAnswer(await sendRaw(port, 'NOT HTTP AT ALL\r\n\r\n'));
      expect(garbled.status).toBe(400);
      expect(garbled.body).toEqual(envelopeOf(REQUEST_LIMIT_MESSAGES.unreadableRequest));
    } finally {
      await listening.close();
    }
  });
});

/** Writes bytes to the server as they are (inject cannot send what Node's parser refuses) and reads until it closes. */
function sendRaw(port: number, text: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    socket.on('close', () => resolve(answer));
  });
}

function parseRawAnswer(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}
