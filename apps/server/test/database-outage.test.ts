import net from 'node:net';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type App, buildApp } from '../src/app.ts';
import { connectDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { createMessaging } from '../src/messaging/messaging.ts';
import { regenerateCallbackTokens } from '../src/modules/callbacks/callback-tokens.ts';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../src/plugins/database-unavailable.ts';
import { bearer, createCompany, createUser, signIn, TEST_PASSWORD } from './support/factories.ts';
import { ENCRYPTION_KEY, signInSystemAdmin } from './support/messaging-factories.ts';
import { createTestContext, TEST_ENCRYPTION_KEY, type TestContext } from './support/test-app.ts';

// The real app on a database that refuses every connection (a port nobody listens on): what a
// client sees while the database is down or restarting.

let ctx: TestContext;
let down: { app: App; handle: DatabaseHandle; close: () => Promise<void> };

/** A local port with nothing listening on it. */
async function closedPort() {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  ctx = await createTestContext();
  const url = new URL(ctx.config.databaseAppUrl!);
  url.port = String(await closedPort());
  const handle = connectDatabase(url.toString(), 2);
  const messaging = createMessaging({
    db: handle.db,
    pool: handle.pool,
    config: ctx.config,
    encryptionKey: Buffer.from(TEST_ENCRYPTION_KEY, 'hex'),
    log: () => {},
  });
  const app = await buildApp(
    { ...ctx.deps, db: handle.db, messaging },
    {
      serveConsole: false,
      // The error handler's warning is written (and dropped), as in a real process.
      logger: { level: 'warn', stream: { write: () => {} } },
    },
  );
  await app.ready();
  down = {
    app,
    handle,
    close: async () => {
      await app.close();
      await messaging.close();
      await handle.close();
    },
  };
});
afterAll(async () => {
  await down?.close();
  await ctx?.close();
});

it('while the database refuses connections, every kind of request answers 503 with Retry-After and no internal detail', async () => {
  const company = await createCompany(ctx.ownerDb);
  const admin = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
  const signedIn = await signIn(ctx.app, admin.email);
  const systemAdmin = await signInSystemAdmin(ctx);
  const tokens = await regenerateCallbackTokens(ctx.ownerDb, company.id, ENCRYPTION_KEY);
  const headers = bearer(signedIn.accessToken);
  const requests = [
    { method: 'GET', url: '/api/v1/health' },
    { method: 'POST', url: '/api/v1/auth/login', payload: { email: admin.email, password: TEST_PASSWORD } },
    { method: 'POST', url: '/api/v1/auth/refresh', payload: { refreshToken: signedIn.refreshToken } },
    { method: 'GET', url: '/api/v1/auth/profile', headers },
    { method: 'POST', url: '/api/v1/auth/logout', headers, payload: { refreshToken: signedIn.refreshToken } },
    { method: 'GET', url: '/api/v1/dashboard/stats', headers },
    { method: 'GET', url: '/api/v1/reports', headers },
    { method: 'GET', url: '/api/v1/search?q=abc', headers },
    { method: 'GET', url: '/api/v1/services', headers },
    { method: 'GET', url: '/api/v1/callbacks/my-company', headers },
    { method: 'GET', url: '/api/v1/subscriptions/subscribers/export', headers },
    {
      method: 'POST',
      url: '/api/v1/services/1/subscribers/import',
      headers,
      payload: { phoneNumbers: ['+254711000001'] },
    },
    { method: 'GET', url: '/api/v1/messages/1/details', headers },
    { method: 'GET', url: '/api/v1/admin/companies', headers: systemAdmin },
    { method: 'GET', url: '/api/v1/admin/users', headers: systemAdmin },
    { method: 'GET', url: '/api/v1/admin/audit-logs', headers: systemAdmin },
    {
      method: 'POST',
      url: '/api/v1/services/1/subscribers/import',
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: 'phone\n+254711000001\n',
    },
    {
      method: 'POST',
      url: '/api/v1/services/1/subscribers/import',
      headers: { ...headers, 'content-type': 'multipart/form-data; boundary=XX' },
      payload:
        '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nphone\n+254711000001\n\r\n--XX--\r\n',
    },
    {
      method: 'POST',
      url: `/api/v1/callbacks/dlr/${company.id}/${tokens.dlr}`,
      payload: { id: 'x', status: 'Success' },
    },
    {
      method: 'POST',
      url: `/api/v1/callbacks/subscription/${company.id}/${tokens.subscription}`,
      payload: { phoneNumber: '+254711000001' },
    },
    { method: 'GET', url: `/api/v1/callbacks/validate/dlr/${company.id}/${tokens.dlr}` },
    {
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers,
      payload: { serviceIds: [1], message: 'x' },
    },
    { method: 'GET', url: '/api/v1/messages?page=1&limit=10', headers },
    { method: 'GET', url: '/api/v1/subscriptions/subscribers?page=1&limit=10', headers },
    {
      method: 'POST',
      url: '/api/v1/services/1/subscribe',
      headers,
      payload: { phoneNumber: '+254711000001' },
    },
  ] as const;
  for (const request of requests) {
    const response = await down.app.inject(request as never);
    const what = `${request.method} ${request.url}: ${response.body}`;
    expect(response.statusCode, what).toBe(503);
    expect(response.headers['retry-after'], what).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    expect(response.json(), what).toEqual({
      success: false,
      message: REQUEST_LIMIT_MESSAGES.serviceUnavailable,
      error: 'unavailable',
    });
  }
});
