import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../src/app.ts';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createService, subscriptionCallbackToken } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let app: App;
let lines: string[] = [];
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
let callbackToken: string;

beforeAll(async () => {
  ctx = await createTestContext();
  // The app as main.ts builds it: with a logger, here writing into `lines`.
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  app = await buildApp(ctx.deps, { logger: { level: 'info', stream }, serveConsole: false });
  await app.ready();
  tenant = await createTenantWithStaff(app, ctx.ownerDb);
  callbackToken = await subscriptionCallbackToken(ctx.ownerDb, tenant.company.id);
  await createService(ctx.ownerDb, tenant.company.id, { shortcode: '30300', keyword: 'LOGS' });
});
afterAll(async () => {
  await app.close();
  await ctx.close();
});

const logged = () => lines.join('\n');

describe('logs carry no phone numbers, message texts or callback secrets', () => {
  it('masks query values (a subscriber search is a phone number)', async () => {
    lines = [];
    const answer = await app.inject({
      method: 'GET',
      url: '/api/v1/subscriptions/subscribers?search=0712345678&page=1',
      headers: bearer(tenant.staff.company_admin.token),
    });
    expect(answer.statusCode).toBe(200);
    expect(logged()).toContain('/api/v1/subscriptions/subscribers?search=[redacted]&page=[redacted]');
    expect(logged()).not.toMatch(/712345678/);
  });

  it('logs an unknown-service notification by its fields, without the number or the token', async () => {
    lines = [];
    const answer = await app.inject({
      method: 'POST',
      url: `/api/v1/callbacks/subscription/${tenant.company.id}/${callbackToken}`,
      payload: { phoneNumber: '+254712999888', shortCode: '30300', keyword: 'NOPE', updateType: 'addition' },
    });
    expect(answer.json().data.outcome).toBe('unknown_service');
    const warning = lines.map((line) => JSON.parse(line)).find((entry) => entry.level === 40);
    expect(warning).toMatchObject({
      companyId: tenant.company.id,
      fields: ['keyword', 'phoneNumber', 'shortCode', 'updateType'],
      shortCode: '30300',
      keyword: 'NOPE',
    });
    expect(logged()).not.toContain('712999888');
    expect(logged()).not.toContain(callbackToken);
  });

  it('keeps inbound message texts and senders out of the logs', async () => {
    lines = [];
    await app.inject({
      method: 'POST',
      url: `/api/v1/callbacks/subscription/${tenant.company.id}/${callbackToken}`,
      payload: { from: '+254712777666', to: '30300', text: 'my very private words', id: 'log-test-1' },
    });
    expect(logged()).not.toContain('712777666');
    expect(logged()).not.toContain('private words');
  });

  it('censors bodies, numbers, texts and database details wherever a log call nests them', () => {
    lines = [];
    app.log.info({ body: { phoneNumber: '+254712555444' } }, 'a body');
    app.log.info({ request: { msisdn: '+254712555443', text: 'secret text' } }, 'nested');
    const duplicate = Object.assign(new Error('duplicate key value violates unique constraint'), {
      detail: 'Key (company_id, msisdn)=(1, +254712555442) already exists.',
    });
    app.log.error({ err: duplicate }, 'unhandled error');
    expect(lines).toHaveLength(3);
    expect(logged()).not.toMatch(/71255544\d|secret text/);
  });
});
