import { PROVIDER_MESSAGES } from '@sms/contracts/admin/company-provider';
import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import type { TRole } from '@sms/contracts/auth/roles';
import { ID_PARAM_MESSAGE } from '@sms/contracts/common/envelope';
import { SERVICE_MESSAGES } from '@sms/contracts/services/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createService, kenyanNumber, subscribeNumbers } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
let other: Awaited<ReturnType<typeof createTenantWithStaff>>;
beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  other = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  // These tests add thousands of subscribers and dozens of services: a plan with room for them (plan-limits.test.ts covers the limits).
  await ctx.ownerDb.updateTable('companies').set({ plan: 'enterprise' }).execute();
});
afterAll(() => ctx.close());

const as = (role: TRole, who = tenant) => bearer(who.staff[role].token);
const call = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  role: TRole,
  payload?: object,
  who = tenant,
) => ctx.app.inject({ method, url: `/api/v1${url}`, headers: as(role, who), payload });

let seq = 0;
const form = (overrides: Record<string, unknown> = {}) => {
  seq++;
  return {
    name: `News ${seq}`,
    shortcode: `s${seq}x`,
    keyword: `kw${seq}${Date.now().toString(36)}`,
    description: 'Daily headlines',
    ...overrides,
  };
};

describe('POST /services', () => {
  it('creates a service in the admin’s own company, upper-cases the short code, applies the defaults and audits', async () => {
    const response = await call('POST', '/services', 'company_admin', form({ companyId: other.company.id }));
    expect(response.statusCode).toBe(201);
    const { service } = response.json().data;
    expect(service).toMatchObject({
      companyId: tenant.company.id,
      company: { name: tenant.company.name },
      billingType: 'on_demand',
      status: 'active',
      subscriber_count: 0,
      messageCount: 0,
      lastActivity: null,
    });
    expect(service.shortcode).toMatch(/^S\d+X$/);
    expect(service.shortCode).toBe(service.shortcode);
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .selectAll()
      .where('entity', '=', 'SERVICE')
      .where('entity_id', '=', String(service.id))
      .execute();
    expect(audit.map((entry) => entry.action)).toEqual(['CREATE']);
    expect(audit[0].user_id).toBe(tenant.staff.company_admin.id);
  });

  it('requires a company from system_admin, and creates it there when given', async () => {
    const missing = await call('POST', '/services', 'system_admin', form());
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe(SERVICE_MESSAGES.companyRequired);
    const unknown = await call('POST', '/services', 'system_admin', form({ companyId: 999999 }));
    expect(unknown.statusCode).toBe(400);
    const created = await call('POST', '/services', 'system_admin', form({ companyId: other.company.id }));
    expect(created.statusCode).toBe(201);
    expect(created.json().data.service.companyId).toBe(other.company.id);
  });

  it('refuses content managers with the spec’s text and viewers with 403', async () => {
    const cm = await call('POST', '/services', 'content_manager', form());
    expect(cm.statusCode).toBe(403);
    expect(cm.json().message).toBe(SERVICE_MESSAGES.contentManagerEdit);
    const viewer = await call('POST', '/services', 'viewer', form());
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json().message).toBe(AUTH_MESSAGES.forbidden);
    const anonymous = await ctx.app.inject({ method: 'POST', url: '/api/v1/services', payload: form() });
    expect(anonymous.statusCode).toBe(401);
  });

  it.each([
    [{ name: '' }, SERVICE_MESSAGES.nameRequired],
    [{ name: '   ' }, SERVICE_MESSAGES.nameRequired],
    [{ shortcode: '' }, SERVICE_MESSAGES.shortcodeRequired],
    [{ keyword: undefined }, SERVICE_MESSAGES.keywordRequired],
    [{ keyword: 'two words' }, SERVICE_MESSAGES.keywordFormat],
    [{ keyword: 'stop' }, SERVICE_MESSAGES.keywordReserved],
    [{ shortcode: '22-550' }, SERVICE_MESSAGES.shortcodeFormat],
    [{ shortcode: 'ACMEBANKING1' }, PROVIDER_MESSAGES.senderTooLong],
    [{ billingType: 'monthly' }, 'Billing type must be on_demand or package'],
    [{ status: 'paused' }, 'Status must be active, inactive or maintenance'],
  ])('refuses %o with 400 "%s"', async (overrides, message) => {
    const response = await call('POST', '/services', 'company_admin', form(overrides));
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(message);
  });

  it('keeps a short code + keyword pair unique across the platform, whatever the case (409)', async () => {
    const first = await call(
      'POST',
      '/services',
      'company_admin',
      form({ shortcode: '77001', keyword: 'Jokes' }),
    );
    expect(first.statusCode).toBe(201);
    const clash = await call(
      'POST',
      '/services',
      'company_admin',
      form({ shortcode: '77001', keyword: 'JOKES' }),
      other,
    );
    expect(clash.statusCode).toBe(409);
    expect(clash.json().message).toBe(SERVICE_MESSAGES.duplicate('77001', 'JOKES'));
    const sameCodeOtherKeyword = await call(
      'POST',
      '/services',
      'company_admin',
      form({ shortcode: '77001', keyword: 'Riddles' }),
    );
    expect(sameCodeOtherKeyword.statusCode).toBe(201);
  });
});

describe('GET /services and /services/{id}', () => {
  it('lists only the tenant’s services with real counters; system_admin sees every company', async () => {
    const mine = await createService(ctx.ownerDb, tenant.company.id);
    const theirs = await createService(ctx.ownerDb, other.company.id);
    await subscribeNumbers(ctx.ownerDb, mine, [
      kenyanNumber(11, 1),
      kenyanNumber(11, 2),
      kenyanNumber(11, 3),
    ]);
    await ctx.ownerDb
      .insertInto('messages')
      .values({
        company_id: tenant.company.id,
        service_id: mine.id,
        service_ids: [mine.id],
        content: 'Hi',
        status: 'sent',
      })
      .execute();

    for (const role of ['company_admin', 'content_manager'] as const) {
      const response = await call('GET', '/services', role);
      expect(response.statusCode).toBe(200);
      const ids = response.json().data.services.map((service: { id: number }) => service.id);
      expect(ids).toContain(mine.id);
      expect(ids).not.toContain(theirs.id);
      const listed = response.json().data.services.find((service: { id: number }) => service.id === mine.id);
      expect(listed).toMatchObject({ subscriber_count: 3, messageCount: 1 });
      expect(listed.lastActivity).not.toBeNull();
    }
    const viewer = await call('GET', '/services', 'viewer');
    expect(viewer.statusCode).toBe(403);

    const all = await call('GET', '/services', 'system_admin');
    const allIds = all.json().data.services.map((service: { id: number }) => service.id);
    expect(allIds).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    // Each service says its company's status: Create Message holds back a suspended company's.
    await ctx.ownerDb
      .updateTable('companies')
      .set({ status: 'suspended' })
      .where('id', '=', other.company.id)
      .execute();
    const held = (await call('GET', '/services', 'system_admin'))
      .json()
      .data.services.find((service: { id: number }) => service.id === theirs.id);
    expect(held.company).toEqual({ name: other.company.name, status: 'suspended' });
    await ctx.ownerDb
      .updateTable('companies')
      .set({ status: 'active' })
      .where('id', '=', other.company.id)
      .execute();
    const oneCompany = await call('GET', `/services?companyId=${other.company.id}`, 'system_admin');
    expect(
      oneCompany.json().data.services.every((s: { companyId: number }) => s.companyId === other.company.id),
    ).toBe(true);

    // companyId in the query is ignored for a company-scoped user.
    const sneaky = await call('GET', `/services?companyId=${other.company.id}`, 'company_admin');
    expect(sneaky.json().data.services.map((s: { id: number }) => s.id)).not.toContain(theirs.id);
  });

  it('answers 404 for another tenant’s id and 400 for a bad id', async () => {
    const theirs = await createService(ctx.ownerDb, other.company.id);
    expect((await call('GET', `/services/${theirs.id}`, 'company_admin')).statusCode).toBe(404);
    expect((await call('GET', `/services/${theirs.id}`, 'company_admin', undefined, other)).statusCode).toBe(
      200,
    );
    expect((await call('GET', `/services/${theirs.id}`, 'system_admin')).statusCode).toBe(200);
    for (const id of ['abc', '0', '1.5']) {
      const refused = await call('GET', `/services/${id}`, 'company_admin');
      expect(refused.statusCode, id).toBe(400);
      expect(refused.json().message, id).toBe(ID_PARAM_MESSAGE);
    }
  });

  it('filters by status and search', async () => {
    await createService(ctx.ownerDb, tenant.company.id, { name: 'Zebra Facts', status: 'maintenance' });
    const found = await call('GET', '/services?search=zebra', 'company_admin');
    expect(found.json().data.services.map((s: { name: string }) => s.name)).toEqual(['Zebra Facts']);
    const byStatus = await call('GET', '/services?status=maintenance', 'company_admin');
    expect(byStatus.json().data.services.every((s: { status: string }) => s.status === 'maintenance')).toBe(
      true,
    );
    expect((await call('GET', '/services?status=bogus', 'company_admin')).statusCode).toBe(400);
  });

  it('GET /admin/services is for system_admin only', async () => {
    expect((await call('GET', '/admin/services', 'system_admin')).statusCode).toBe(200);
    for (const role of ['company_admin', 'content_manager', 'viewer'] as const)
      expect((await call('GET', '/admin/services', role)).statusCode).toBe(403);
  });
});

describe('PUT /services/{id}', () => {
  it('updates the fields, keeps the company for company admins, audits the changes', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const response = await call(
      'PUT',
      `/services/${service.id}`,
      'company_admin',
      form({
        name: 'Renamed',
        shortcode: 'abc12',
        billingType: 'package',
        status: 'inactive',
        companyId: other.company.id,
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().data.service).toMatchObject({
      name: 'Renamed',
      shortcode: 'ABC12',
      billingType: 'package',
      status: 'inactive',
      companyId: tenant.company.id,
    });
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .selectAll()
      .where('entity_id', '=', String(service.id))
      .where('action', '=', 'UPDATE')
      .executeTakeFirstOrThrow();
    expect(audit.details).toMatchObject({
      changes: { name: { to: 'Renamed' }, status: { from: 'active', to: 'inactive' } },
    });
  });

  it('refuses content managers, viewers and other tenants; 409 on a taken pair', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const taken = await createService(ctx.ownerDb, other.company.id);
    const cm = await call('PUT', `/services/${service.id}`, 'content_manager', form());
    expect(cm.statusCode).toBe(403);
    expect(cm.json().message).toBe(SERVICE_MESSAGES.contentManagerEdit);
    expect((await call('PUT', `/services/${service.id}`, 'viewer', form())).statusCode).toBe(403);
    expect((await call('PUT', `/services/${taken.id}`, 'company_admin', form())).statusCode).toBe(404);
    const clash = await call(
      'PUT',
      `/services/${service.id}`,
      'company_admin',
      form({ shortcode: taken.shortcode, keyword: taken.keyword.toLowerCase() }),
    );
    expect(clash.statusCode).toBe(409);
    // Saving a service with its own pair is not a clash.
    const same = await call(
      'PUT',
      `/services/${service.id}`,
      'company_admin',
      form({ shortcode: service.shortcode, keyword: service.keyword }),
    );
    expect(same.statusCode).toBe(200);
  });

  it('lets system_admin move a service without subscribers, not one with', async () => {
    const empty = await createService(ctx.ownerDb, tenant.company.id);
    const moved = await call(
      'PUT',
      `/services/${empty.id}`,
      'system_admin',
      form({ companyId: other.company.id }),
    );
    expect(moved.json().data.service.companyId).toBe(other.company.id);
    const busy = await createService(ctx.ownerDb, tenant.company.id);
    await subscribeNumbers(ctx.ownerDb, busy, [kenyanNumber(12, 1)]);
    const refused = await call(
      'PUT',
      `/services/${busy.id}`,
      'system_admin',
      form({ companyId: other.company.id }),
    );
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(SERVICE_MESSAGES.cannotMove);
  });

  // Found by the hostile-input fuzz (issue 36): a message's service key includes its company, so
  // moving a service with messages broke that key and answered 500.
  it('does not move a service with messages (409), and leaves it where it was', async () => {
    const withHistory = await createService(ctx.ownerDb, tenant.company.id);
    await ctx.ownerDb
      .insertInto('messages')
      .values({
        company_id: tenant.company.id,
        service_id: withHistory.id,
        service_ids: [withHistory.id],
        content: 'Sent last week',
        status: 'sent',
        direction: 'outbound',
      })
      .execute();
    const refused = await call(
      'PUT',
      `/services/${withHistory.id}`,
      'system_admin',
      form({ companyId: other.company.id }),
    );
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(SERVICE_MESSAGES.cannotMove);
    const stored = await ctx.ownerDb
      .selectFrom('services')
      .select('company_id')
      .where('id', '=', withHistory.id)
      .executeTakeFirstOrThrow();
    expect(stored.company_id).toBe(tenant.company.id);
  });
});

describe('DELETE /services/{id}', () => {
  it('deletes a service without history at once', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const response = await call('DELETE', `/services/${service.id}`, 'company_admin');
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({
      id: service.id,
      deleted: true,
      subscriptionsEnded: 0,
      messagesKept: 0,
    });
    expect((await call('GET', `/services/${service.id}`, 'company_admin')).statusCode).toBe(404);
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select('action')
      .where('entity_id', '=', String(service.id))
      .execute();
    expect(audit.map((entry) => entry.action)).toContain('DELETE');
  });

  it('asks for force when there are subscribers or messages, then ends subscriptions and keeps messages', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const keep = await createService(ctx.ownerDb, tenant.company.id);
    await subscribeNumbers(ctx.ownerDb, service, [kenyanNumber(13, 1), kenyanNumber(13, 2)]);
    await subscribeNumbers(ctx.ownerDb, keep, [kenyanNumber(13, 2)]);
    await ctx.ownerDb
      .insertInto('messages')
      .values({
        company_id: tenant.company.id,
        service_id: service.id,
        service_ids: [service.id],
        content: 'Hi',
        status: 'sent',
      })
      .execute();
    const refused = await call('DELETE', `/services/${service.id}`, 'company_admin');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(SERVICE_MESSAGES.deleteNeedsForce(2, 1));
    const forced = await call('DELETE', `/services/${service.id}?force=true`, 'company_admin');
    expect(forced.json().data).toMatchObject({ subscriptionsEnded: 2, messagesKept: 1 });
    const subscribers = await ctx.ownerDb
      .selectFrom('subscribers')
      .select(['msisdn', 'status'])
      .where('msisdn', 'in', [kenyanNumber(13, 1), kenyanNumber(13, 2)])
      .orderBy('msisdn')
      .execute();
    // The one still on another service stays active.
    expect(subscribers).toEqual([
      { msisdn: kenyanNumber(13, 1), status: 'unsubscribed' },
      { msisdn: kenyanNumber(13, 2), status: 'active' },
    ]);
    const messages = await ctx.ownerDb
      .selectFrom('messages')
      .select('service_id')
      .where('content', '=', 'Hi')
      .where('company_id', '=', tenant.company.id)
      .execute();
    expect(messages.some((message) => message.service_id === null)).toBe(true);
  });

  it('refuses content managers with the spec’s text, viewers, and other tenants', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const cm = await call('DELETE', `/services/${service.id}`, 'content_manager');
    expect(cm.statusCode).toBe(403);
    expect(cm.json().message).toBe(SERVICE_MESSAGES.contentManagerDelete);
    expect((await call('DELETE', `/services/${service.id}`, 'viewer')).statusCode).toBe(403);
    expect(
      (await call('DELETE', `/services/${service.id}`, 'company_admin', undefined, other)).statusCode,
    ).toBe(404);
    expect((await call('GET', `/services/${service.id}`, 'company_admin')).statusCode).toBe(200);
  });
});

describe('role matrix', () => {
  const expected: Record<string, Record<TRole, number>> = {
    'GET /services': { system_admin: 200, company_admin: 200, content_manager: 200, viewer: 403 },
    'GET /services/:id': { system_admin: 200, company_admin: 200, content_manager: 200, viewer: 403 },
    'POST /services': { system_admin: 201, company_admin: 201, content_manager: 403, viewer: 403 },
    'PUT /services/:id': { system_admin: 200, company_admin: 200, content_manager: 403, viewer: 403 },
    'DELETE /services/:id': { system_admin: 200, company_admin: 200, content_manager: 403, viewer: 403 },
    'GET /admin/services': { system_admin: 200, company_admin: 403, content_manager: 403, viewer: 403 },
  };
  for (const [route, byRole] of Object.entries(expected)) {
    for (const [role, status] of Object.entries(byRole) as [TRole, number][]) {
      it(`${route} as ${role} -> ${status}`, async () => {
        const [method, path] = route.split(' ') as ['GET' | 'POST' | 'PUT' | 'DELETE', string];
        const service = await createService(ctx.ownerDb, tenant.company.id);
        const payload =
          method === 'POST' || method === 'PUT' ? form({ companyId: tenant.company.id }) : undefined;
        const response = await call(method, path.replace(':id', String(service.id)), role, payload);
        expect(response.statusCode).toBe(status);
      });
    }
  }
});
