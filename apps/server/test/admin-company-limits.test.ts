import { COMPANY_LIMIT_MAX, COMPANY_MESSAGES } from '@sms/contracts/admin/company';
import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { PLAN_CATALOGUE, PLAN_LIMIT_MESSAGES } from '@sms/contracts/plans/plan-catalogue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, call, companyForm } from './support/admin-factories.ts';
import { createUser, signIn } from './support/factories.ts';
import { createSendingCompany, numbers, subscribe } from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * A system admin gives a company its own message, subscriber and service limits in the company
 * form (a big sender's deal), and takes them back (blank: the plan's); what the company is shown
 * and what the server enforces are the same limits.
 */
let ctx: TestContext;
let adminToken: string;
beforeAll(async () => {
  ctx = await createTestContext();
  const admin = await createUser(ctx.ownerDb, { role: 'system_admin' });
  adminToken = (await signIn(ctx.app, admin.email)).accessToken;
});
afterAll(() => ctx.close());

const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  call(ctx.app, adminToken, method, url, payload);

const premium = PLAN_CATALOGUE.premium;
const columnsOf = (id: number) =>
  ctx.ownerDb
    .selectFrom('companies')
    .select(['messages_limit', 'subscribers_limit', 'services_limit'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('a company’s own limits in the company form', () => {
  it('sets them, shows them as the limits in force, keeps them when left out, and gives them back to the plan on null', async () => {
    const created = (await api('POST', '/admin/companies', companyForm({ messagesLimit: 2_000_000 }))).json()
      .data.company;
    expect(created).toMatchObject({
      limits: {
        messagesLimit: 2_000_000,
        subscribersLimit: premium.subscribersLimit,
        servicesLimit: premium.servicesLimit,
      },
      ownLimits: { messagesLimit: 2_000_000, subscribersLimit: null, servicesLimit: null },
    });

    const form = companyForm({ name: created.name, email: created.email });
    const saved = await api('PUT', `/admin/companies/${created.id}`, {
      ...form,
      subscribersLimit: 900_000,
      servicesLimit: 0,
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data.company.limits).toEqual({
      messagesLimit: 2_000_000,
      subscribersLimit: 900_000,
      servicesLimit: 0,
    });
    const listed = (
      await api('GET', `/admin/companies?searchTerm=${encodeURIComponent(created.email)}`)
    ).json().data.companies;
    expect(listed).toHaveLength(1);
    expect(listed[0].limits).toEqual(saved.json().data.company.limits);

    // A save that leaves the limits out (an older client) keeps them.
    await api('PUT', `/admin/companies/${created.id}`, form);
    expect(await columnsOf(created.id)).toEqual({
      messages_limit: 2_000_000,
      subscribers_limit: 900_000,
      services_limit: 0,
    });

    const back = await api('PUT', `/admin/companies/${created.id}`, {
      ...form,
      messagesLimit: null,
      subscribersLimit: null,
      servicesLimit: null,
    });
    expect(back.json().data.company).toMatchObject({
      limits: {
        messagesLimit: premium.messagesLimit,
        subscribersLimit: premium.subscribersLimit,
        servicesLimit: premium.servicesLimit,
      },
      ownLimits: { messagesLimit: null, subscribersLimit: null, servicesLimit: null },
    });

    const updates = await auditEntries(ctx.ownerDb, {
      action: 'UPDATE',
      entity: 'COMPANY',
      entityId: created.id,
    });
    // Newest first.
    expect(updates.map((entry) => (entry.details as { limitChanges?: unknown }).limitChanges)).toEqual([
      {
        messagesLimit: { from: 2_000_000, to: null },
        subscribersLimit: { from: 900_000, to: null },
        servicesLimit: { from: 0, to: null },
      },
      undefined,
      {
        subscribersLimit: { from: null, to: 900_000 },
        servicesLimit: { from: null, to: 0 },
      },
    ]);
  });

  it.each([
    ['messagesLimit', -1, 'Monthly message limit'],
    ['subscribersLimit', 2.5, 'Subscriber limit'],
    ['servicesLimit', 'many', 'Service limit'],
    ['messagesLimit', COMPANY_LIMIT_MAX + 1, 'Monthly message limit'],
  ])('refuses %s = %j with 400 and its message, changing nothing', async (field, value, label) => {
    const created = (await api('POST', '/admin/companies', companyForm())).json().data.company;
    const refused = await api('PUT', `/admin/companies/${created.id}`, {
      ...companyForm({ name: 'Not saved' }),
      [field]: value,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain(COMPANY_MESSAGES.limitInvalid(label));
    expect(await columnsOf(created.id)).toEqual({
      messages_limit: null,
      subscribers_limit: null,
      services_limit: null,
    });
    const unchanged = await ctx.ownerDb
      .selectFrom('companies')
      .select('name')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(unchanged.name).toBe(created.name);
  });

  it('the limits set in the form are the ones sends and new services are held to', async () => {
    const tenant = await createSendingCompany(ctx);
    const service = await tenant.service();
    await subscribe(ctx.ownerDb, service, numbers(71, 0, 3));
    const saved = await api('PUT', `/admin/companies/${tenant.company.id}`, {
      ...companyForm({ name: tenant.company.name, email: tenant.company.email, plan: 'enterprise' }),
      messagesLimit: 2,
      servicesLimit: 1,
    });
    expect(saved.statusCode, saved.body).toBe(200);

    const send = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers: tenant.admin,
      payload: { serviceIds: [service.id], message: 'Over the limit' },
    });
    expect(send.statusCode).toBe(403);
    expect(send.json().message).toBe(MESSAGE_MESSAGES.monthlyLimitReached(2, 0, 3));

    const anotherService = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/services',
      headers: tenant.admin,
      payload: { name: 'Second', shortcode: '40999', keyword: 'SECOND' },
    });
    expect(anotherService.statusCode).toBe(403);
    expect(anotherService.json().message).toBe(PLAN_LIMIT_MESSAGES.servicesLimitReached(1));
  });
});
