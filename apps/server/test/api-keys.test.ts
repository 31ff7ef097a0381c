import { API_KEY_MESSAGES, API_KEY_PATTERN } from '@sms/contracts/api-keys/api-key';
import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, call } from './support/admin-factories.ts';
import { createTenantWithStaff } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

const KEY_LIMIT = 10;
let ctx: TestContext;
let home: Awaited<ReturnType<typeof createTenantWithStaff>>;
let other: Awaited<ReturnType<typeof createTenantWithStaff>>;
let homeService: { id: number };
let otherService: { id: number };
beforeAll(async () => {
  ctx = await createTestContext({ RATE_LIMIT_API_KEY_PER_MINUTE: String(KEY_LIMIT) });
  home = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  other = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  homeService = await createService(ctx.ownerDb, home.company.id);
  otherService = await createService(ctx.ownerDb, other.company.id);
});
afterAll(() => ctx.close());

let names = 0;
async function createKey(tenant: typeof home, scopes: string[], name = `Key ${names++}`) {
  const response = await call(ctx.app, tenant.staff.company_admin.token, 'POST', '/api-keys', {
    name,
    scopes,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data as { key: string; apiKey: { id: number; prefix: string; name: string } };
}

const draft = (serviceId: number) => ({ serviceIds: [serviceId], message: 'Hello from an API key' });

describe('API keys in the console', () => {
  it('creates a key shown once, stored hashed, listed with its prefix and scopes; revokes it', async () => {
    const owner = home.staff.company_admin.token;
    const created = await createKey(home, ['messages:send', 'messages:read'], 'Billing system');
    expect(created.key).toMatch(API_KEY_PATTERN);
    expect(created.key.startsWith(`${created.apiKey.prefix}_`)).toBe(true);
    expect(created.apiKey).toMatchObject({
      name: 'Billing system',
      scopes: ['messages:send', 'messages:read'],
      lastUsedAt: null,
      revokedAt: null,
    });

    // Stored as its hash: the secret appears nowhere in the row.
    const rows = await sql<
      Record<string, unknown>
    >`select * from api_keys where id = ${created.apiKey.id}`.execute(ctx.ownerDb);
    expect(JSON.stringify(rows.rows)).not.toContain(created.key.slice(created.apiKey.prefix.length + 1));

    // Listed without the secret.
    const listed = await call(ctx.app, owner, 'GET', '/api-keys');
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(created.key);
    expect(listed.json().data.apiKeys.map((key: { id: number }) => key.id)).toContain(created.apiKey.id);

    // The same name twice among live keys: 409.
    const twice = await call(ctx.app, owner, 'POST', '/api-keys', {
      name: 'billing SYSTEM',
      scopes: ['messages:read'],
    });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().message).toBe(API_KEY_MESSAGES.nameTaken);

    const revoked = await call(ctx.app, owner, 'POST', `/api-keys/${created.apiKey.id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data.apiKey.revokedAt).not.toBeNull();

    expect(await auditEntries(ctx.ownerDb, { entity: 'API_KEY', entityId: created.apiKey.id })).toEqual([
      expect.objectContaining({ action: 'REVOKE', user_id: home.staff.company_admin.id }),
      expect.objectContaining({ action: 'CREATE', user_id: home.staff.company_admin.id }),
    ]);
  });

  it('refuses bad input with the envelope and creates nothing', async () => {
    const owner = home.staff.company_admin.token;
    const before = await call(ctx.app, owner, 'GET', '/api-keys');
    for (const [body, message] of [
      [{ name: '  ', scopes: ['messages:read'] }, API_KEY_MESSAGES.nameRequired],
      [{ name: 'No scopes', scopes: [] }, API_KEY_MESSAGES.scopesRequired],
      [{ name: 'Bad scope', scopes: ['admin:everything'] }, null],
      [{ name: 'x'.repeat(101), scopes: ['messages:read'] }, API_KEY_MESSAGES.nameTooLong],
    ] as const) {
      const response = await call(ctx.app, owner, 'POST', '/api-keys', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().success).toBe(false);
      if (message) expect(response.body).toContain(message);
    }
    expect((await call(ctx.app, owner, 'GET', '/api-keys')).body).toBe(before.body);
  });

  it('is a company admin’s own: other roles are refused, another company’s key is 404', async () => {
    for (const role of ['content_manager', 'viewer', 'system_admin'] as const)
      expect((await call(ctx.app, home.staff[role].token, 'GET', '/api-keys')).statusCode).toBe(403);
    const theirs = await createKey(other, ['messages:read']);
    const response = await call(
      ctx.app,
      home.staff.company_admin.token,
      'POST',
      `/api-keys/${theirs.apiKey.id}/revoke`,
    );
    expect(response.statusCode).toBe(404);
    const rows = await sql<{
      revoked_at: Date | null;
    }>`select revoked_at from api_keys where id = ${theirs.apiKey.id}`.execute(ctx.ownerDb);
    expect(rows.rows[0]?.revoked_at).toBeNull();
  });
});

describe('requests made with an API key', () => {
  it('are admitted on the routes their scopes open and refused (403) elsewhere', async () => {
    const reader = (await createKey(home, ['messages:read'])).key;
    expect((await call(ctx.app, reader, 'GET', '/messages')).statusCode).toBe(200);
    expect((await call(ctx.app, reader, 'GET', '/reports')).statusCode).toBe(200);
    expect((await call(ctx.app, reader, 'GET', '/services')).statusCode).toBe(200);
    const send = await call(ctx.app, reader, 'POST', '/messages', draft(homeService.id));
    expect(send.statusCode).toBe(403);
    expect(send.json()).toMatchObject({
      success: false,
      error: 'forbidden',
      message: API_KEY_MESSAGES.scopeMissing('Send messages'),
    });
    expect((await call(ctx.app, reader, 'GET', '/subscriptions/subscribers')).statusCode).toBe(403);

    const sender = (await createKey(home, ['messages:send'])).key;
    expect((await call(ctx.app, sender, 'POST', '/messages', draft(homeService.id))).statusCode).toBe(201);
    expect((await call(ctx.app, sender, 'GET', '/messages')).statusCode).toBe(403);

    const manager = (await createKey(home, ['subscribers:manage'])).key;
    expect((await call(ctx.app, manager, 'GET', '/subscriptions/subscribers')).statusCode).toBe(200);
    expect((await call(ctx.app, manager, 'GET', '/reports')).statusCode).toBe(403);

    // The console's own routes refuse every key, whatever its scopes.
    const all = (await createKey(home, ['messages:send', 'messages:read', 'subscribers:manage'])).key;
    for (const [method, url] of [
      ['GET', '/api-keys'],
      ['POST', '/api-keys'],
      ['GET', '/auth/profile'],
      ['GET', '/dashboard/stats'],
      ['GET', '/callbacks/my-company'],
      ['POST', '/services'],
      ['GET', '/admin/users'],
    ] as const) {
      const response = await call(ctx.app, all, method, url, method === 'POST' ? {} : undefined);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().message).toBe(API_KEY_MESSAGES.consoleOnly);
    }
  });

  it('refuses an unknown or malformed key with 401', async () => {
    const real = (await createKey(home, ['messages:read'])).key;
    const forged =
      `${real.slice(0, -4)}AAAA` === real ? `${real.slice(0, -4)}BBBB` : `${real.slice(0, -4)}AAAA`;
    for (const key of [forged, 'smsk_live_short', `${real}x`]) {
      const response = await call(ctx.app, key, 'GET', '/messages');
      expect(response.statusCode, key).toBe(401);
      expect(response.json().message).toBe(API_KEY_MESSAGES.invalidKey);
    }
  });

  it('refuses a revoked key from the next request on', async () => {
    const { key, apiKey } = await createKey(home, ['messages:read']);
    expect((await call(ctx.app, key, 'GET', '/messages')).statusCode).toBe(200);
    await call(ctx.app, home.staff.company_admin.token, 'POST', `/api-keys/${apiKey.id}/revoke`);
    const after = await call(ctx.app, key, 'GET', '/messages');
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toBe(API_KEY_MESSAGES.revokedKey);
  });

  it('refuses the keys of a suspended company, and admits them again once it is active', async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const { key } = await createKey(tenant, ['messages:read']);
    expect((await call(ctx.app, key, 'GET', '/messages')).statusCode).toBe(200);
    await ctx.ownerDb
      .updateTable('companies')
      .set({ status: 'suspended' })
      .where('id', '=', tenant.company.id)
      .execute();
    const refused = await call(ctx.app, key, 'GET', '/messages');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toBe(AUTH_MESSAGES.companySuspended);
    await ctx.ownerDb
      .updateTable('companies')
      .set({ status: 'active' })
      .where('id', '=', tenant.company.id)
      .execute();
    expect((await call(ctx.app, key, 'GET', '/messages')).statusCode).toBe(200);
  });

  it('see only their own company: another company’s rows are missing', async () => {
    const { key } = await createKey(home, ['messages:read', 'subscribers:manage', 'messages:send']);
    const theirs = await call(
      ctx.app,
      other.staff.company_admin.token,
      'POST',
      '/messages',
      draft(otherService.id),
    );
    expect(theirs.statusCode).toBe(201);
    const theirId = theirs.json().data.message.id;
    expect((await call(ctx.app, key, 'GET', `/messages/${theirId}/details`)).statusCode).toBe(404);
    expect((await call(ctx.app, key, 'GET', `/services/${otherService.id}/subscribers`)).statusCode).toBe(
      404,
    );
    const listed = (await call(ctx.app, key, 'GET', '/messages')).json().data.messages as { id: number }[];
    expect(listed.map((message) => message.id)).not.toContain(theirId);
    const services = (await call(ctx.app, key, 'GET', '/services')).json().data.services as { id: number }[];
    expect(services.map((service) => service.id)).toEqual([homeService.id]);
    // Sending to another company's service: refused, nothing created for them.
    expect(
      (await call(ctx.app, key, 'POST', '/messages', draft(otherService.id))).statusCode,
    ).toBeGreaterThanOrEqual(400);
  });

  it('audits mutations with the key’s name, and records when the key was last used', async () => {
    const { key, apiKey } = await createKey(home, ['subscribers:manage'], 'CRM sync');
    const subscribed = await call(ctx.app, key, 'POST', `/services/${homeService.id}/subscribe`, {
      phoneNumber: '+254712000111',
    });
    expect(subscribed.statusCode, subscribed.body).toBeLessThan(300);
    const [entry] = await auditEntries(ctx.ownerDb, { entity: 'SUBSCRIBER' });
    expect(entry).toMatchObject({ user_name: "API key 'CRM sync'", company_id: home.company.id });

    const listed = (await call(ctx.app, home.staff.company_admin.token, 'GET', '/api-keys')).json().data
      .apiKeys;
    const used = listed.find((row: { id: number }) => row.id === apiKey.id);
    expect(used.lastUsedAt).not.toBeNull();
    // Used again within the minute: the stored time stays (not written on every request).
    await call(ctx.app, key, 'GET', '/subscriptions/subscribers');
    const again = (await call(ctx.app, home.staff.company_admin.token, 'GET', '/api-keys')).json().data
      .apiKeys;
    expect(again.find((row: { id: number }) => row.id === apiKey.id).lastUsedAt).toBe(used.lastUsedAt);
  });

  it('are limited per key: one key past its limit gets 429, another key of the company does not', async () => {
    const busy = (await createKey(home, ['messages:read'])).key;
    const quiet = (await createKey(home, ['messages:read'])).key;
    for (let request = 0; request < KEY_LIMIT; request++) {
      const response = await call(ctx.app, busy, 'GET', '/reports');
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBe(String(KEY_LIMIT));
    }
    const over = await call(ctx.app, busy, 'GET', '/reports');
    expect(over.statusCode).toBe(429);
    expect(over.headers['retry-after']).toBeDefined();
    expect(over.json().success).toBe(false);
    expect((await call(ctx.app, quiet, 'GET', '/reports')).statusCode).toBe(200);
  });

  it('documents the scheme in OpenAPI, with the scopes on the routes keys may call', async () => {
    const spec = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    expect(spec.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const send = spec.paths['/api/v1/messages/bulk/send'].post;
    expect(send.security).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
    expect(send.description).toContain('messages:send');
    expect(spec.paths['/api/v1/api-keys'].get.security ?? spec.security).toEqual([{ bearerAuth: [] }]);
  });
});
