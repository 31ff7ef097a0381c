import { PLAN_CATALOGUE, PLAN_LIMIT_MESSAGES } from '@sms/contracts/plans/plan-catalogue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import {
  createService,
  kenyanNumber,
  subscribeNumbers,
  subscriptionCallbackToken,
  subscriptionOf,
} from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
type Tenant = Awaited<ReturnType<typeof createTenantWithStaff>>;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

async function tenantWithLimits(limits: { services?: number; subscribers?: number; messages?: number }) {
  const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  await ctx.ownerDb
    .updateTable('companies')
    .set({
      services_limit: limits.services ?? null,
      subscribers_limit: limits.subscribers ?? null,
      messages_limit: limits.messages ?? null,
    })
    .where('id', '=', tenant.company.id)
    .execute();
  return tenant;
}

const post = (
  tenant: Tenant,
  url: string,
  payload: object,
  role: 'company_admin' | 'system_admin' = 'company_admin',
) =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/v1${url}`,
    headers: bearer(tenant.staff[role].token),
    payload,
  });

const usage = async (tenant: Tenant) =>
  (
    await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/dashboard/stats',
      headers: bearer(tenant.staff.viewer.token),
    })
  ).json().data.usageStats;

let seq = 0;
const serviceForm = () => ({ name: `Plan ${++seq}`, shortcode: `${40_000 + seq}`, keyword: `PLAN${seq}` });

describe('services limit', () => {
  it('refuses a service past the limit with a message naming it, for company and platform admins alike', async () => {
    const tenant = await tenantWithLimits({ services: 2 });
    expect((await post(tenant, '/services', serviceForm())).statusCode).toBe(201);
    expect((await post(tenant, '/services', serviceForm())).statusCode).toBe(201);
    const refused = await post(tenant, '/services', serviceForm());
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      message: PLAN_LIMIT_MESSAGES.servicesLimitReached(2),
      details: ['servicesLimit: 2'],
    });
    const byAdmin = await post(
      tenant,
      '/services',
      { ...serviceForm(), companyId: tenant.company.id },
      'system_admin',
    );
    expect(byAdmin.statusCode).toBe(403);
    expect(await usage(tenant)).toMatchObject({ servicesUsed: 2, servicesLimit: 2 });
  });

  it('follows the plan when the company has no limit of its own', async () => {
    const tenant = await tenantWithLimits({});
    for (let i = 0; i < PLAN_CATALOGUE.basic.servicesLimit; i++)
      await createService(ctx.ownerDb, tenant.company.id);
    const refused = await post(tenant, '/services', serviceForm());
    expect(refused.json().message).toBe(
      PLAN_LIMIT_MESSAGES.servicesLimitReached(PLAN_CATALOGUE.basic.servicesLimit),
    );
    await ctx.ownerDb
      .updateTable('companies')
      .set({ plan: 'premium' })
      .where('id', '=', tenant.company.id)
      .execute();
    expect((await post(tenant, '/services', serviceForm())).statusCode).toBe(201);
    expect(await usage(tenant)).toMatchObject({
      servicesUsed: PLAN_CATALOGUE.basic.servicesLimit + 1,
      servicesLimit: PLAN_CATALOGUE.premium.servicesLimit,
    });
  });

  it('refuses moving a service into a company that is full', async () => {
    const full = await tenantWithLimits({ services: 1 });
    await createService(ctx.ownerDb, full.company.id);
    const elsewhere = await tenantWithLimits({});
    const service = await createService(ctx.ownerDb, elsewhere.company.id);
    const moved = await ctx.app.inject({
      method: 'PUT',
      url: `/api/v1/services/${service.id}`,
      headers: bearer(elsewhere.staff.system_admin.token),
      payload: {
        name: service.name,
        shortcode: service.shortcode,
        keyword: service.keyword,
        companyId: full.company.id,
      },
    });
    expect(moved.statusCode).toBe(403);
    expect(moved.json().message).toBe(PLAN_LIMIT_MESSAGES.servicesLimitReached(1));
  });
});

describe('subscribers limit', () => {
  it('refuses a new active subscriber past the limit; numbers already active still join other services', async () => {
    const tenant = await tenantWithLimits({ subscribers: 3 });
    const news = await createService(ctx.ownerDb, tenant.company.id);
    const sports = await createService(ctx.ownerDb, tenant.company.id);
    await subscribeNumbers(ctx.ownerDb, news, [kenyanNumber(61, 1), kenyanNumber(61, 2)]);

    expect(
      (await post(tenant, `/services/${news.id}/subscribe`, { phoneNumber: kenyanNumber(61, 3) })).statusCode,
    ).toBe(200);
    const refused = await post(tenant, `/services/${news.id}/subscribe`, {
      phoneNumber: kenyanNumber(61, 4),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      message: PLAN_LIMIT_MESSAGES.subscribersLimitReached(3),
      details: ['subscribersLimit: 3'],
    });
    // Already active: joining another service takes no new room.
    expect(
      (await post(tenant, `/services/${sports.id}/subscribe`, { phoneNumber: kenyanNumber(61, 1) }))
        .statusCode,
    ).toBe(200);
    expect(await usage(tenant)).toMatchObject({ subscribersUsed: 3, subscribersLimit: 3 });

    // One leaves: there is room again.
    await ctx.app.inject({
      method: 'DELETE',
      url: `/api/v1/services/${news.id}/unsubscribe`,
      headers: bearer(tenant.staff.company_admin.token),
      payload: { phoneNumber: kenyanNumber(61, 2) },
    });
    expect(
      (await post(tenant, `/services/${news.id}/subscribe`, { phoneNumber: kenyanNumber(61, 4) })).statusCode,
    ).toBe(200);
  });

  it('lets only one of three concurrent subscribes take the last place', async () => {
    const tenant = await tenantWithLimits({ subscribers: 1 });
    const news = await createService(ctx.ownerDb, tenant.company.id);
    const answers = await Promise.all(
      [1, 2, 3].map((i) =>
        post(tenant, `/services/${news.id}/subscribe`, { phoneNumber: kenyanNumber(62, i) }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 403, 403]);
    expect(await usage(tenant)).toMatchObject({ subscribersUsed: 1 });
  });

  it('counts keyword opt-ins too: past the limit an SMS keyword or a provider notification subscribes no one, the refusal is audited and the message kept', async () => {
    const tenant = await tenantWithLimits({ subscribers: 2 });
    const shortcode = `6${40_000 + ++seq}`;
    const news = await createService(ctx.ownerDb, tenant.company.id, { shortcode, keyword: `NEWS${seq}` });
    const sports = await createService(ctx.ownerDb, tenant.company.id, { shortcode, keyword: `SPORT${seq}` });
    const token = await subscriptionCallbackToken(ctx.ownerDb, tenant.company.id);
    const callback = (fields: Record<string, string>) =>
      ctx.app.inject({
        method: 'POST',
        url: `/api/v1/callbacks/subscription/${tenant.company.id}/${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(fields).toString(),
      });
    const texted = (from: string, text: string) =>
      callback({ from, to: shortcode, text, id: `limit-${from}-${text}`, date: '2026-01-01 10:00:00' });
    const [first, second, third, fourth] = [1, 2, 3, 4].map((index) => kenyanNumber(62, index));

    expect((await texted(first, news.keyword)).json().data.outcome).toBe('subscribed');
    expect((await texted(second, `JOIN ${news.keyword}`)).json().data.outcome).toBe('subscribed');

    // Full: a third number's keyword is refused; its message is stored all the same.
    const refused = await texted(third, news.keyword);
    expect(refused.statusCode).toBe(200);
    expect(refused.json().data).toMatchObject({ outcome: 'refused_by_limit', serviceIds: [news.id] });
    expect(await subscriptionOf(ctx.ownerDb, news.id, third)).toBeUndefined();
    const kept = await ctx.ownerDb
      .selectFrom('messages')
      .select(['direction', 'content', 'service_id'])
      .where('company_id', '=', tenant.company.id)
      .where('msisdn', '=', third)
      .execute();
    expect(kept).toEqual([{ direction: 'inbound', content: news.keyword, service_id: news.id }]);
    // The provider's own opt-in notification is held to the same limit.
    const notified = await callback({
      phoneNumber: fourth,
      shortCode: shortcode,
      keyword: news.keyword,
      updateType: 'addition',
    });
    expect(notified.json().data).toMatchObject({ outcome: 'refused_by_limit', serviceIds: [news.id] });
    expect(await subscriptionOf(ctx.ownerDb, news.id, fourth)).toBeUndefined();
    const refusals = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select(['action', 'entity', 'details'])
      .where('company_id', '=', tenant.company.id)
      .where('action', '=', 'REJECT')
      .orderBy('id')
      .execute();
    expect(refusals).toEqual([
      {
        action: 'REJECT',
        entity: 'SUBSCRIBER',
        details: {
          msisdn: third,
          serviceId: news.id,
          source: 'sms',
          reason: 'subscribersLimit',
          subscribersLimit: 2,
        },
      },
      {
        action: 'REJECT',
        entity: 'SUBSCRIBER',
        details: {
          msisdn: fourth,
          serviceId: news.id,
          source: 'provider',
          reason: 'subscribersLimit',
          subscribersLimit: 2,
        },
      },
    ]);
    expect(await usage(tenant)).toMatchObject({ subscribersUsed: 2, subscribersLimit: 2 });

    // A number already active takes no new room: it still joins another service by keyword.
    expect((await texted(first, sports.keyword)).json().data).toMatchObject({
      outcome: 'subscribed',
      serviceIds: [sports.id],
    });
  });

  it('imports up to the limit in file order and reports how many rows the limit refused', async () => {
    const tenant = await tenantWithLimits({ subscribers: 5 });
    const news = await createService(ctx.ownerDb, tenant.company.id);
    const other = await createService(ctx.ownerDb, tenant.company.id);
    await subscribeNumbers(ctx.ownerDb, other, [kenyanNumber(63, 1), kenyanNumber(63, 2)]);
    // 2 active of 5: room for 3 new numbers. The file: one already active, 5 new, one invalid.
    const csv = [
      'phone',
      kenyanNumber(63, 1),
      ...[10, 11, 12, 13, 14].map((i) => kenyanNumber(63, i)),
      'nope',
    ].join('\n');
    const response = await post(tenant, `/services/${news.id}/subscribers/import`, { csv });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      totalRows: 7,
      imported: 4,
      invalidRows: 1,
      refusedByLimit: 2,
      subscribersLimit: 5,
    });
    const joined = await ctx.ownerDb
      .selectFrom('subscriptions as x')
      .innerJoin('subscribers as s', 's.id', 'x.subscriber_id')
      .select('s.msisdn')
      .where('x.service_id', '=', news.id)
      .orderBy('s.msisdn')
      .execute();
    expect(joined.map((row) => row.msisdn)).toEqual([1, 10, 11, 12].map((i) => kenyanNumber(63, i)));
    expect(await usage(tenant)).toMatchObject({ subscribersUsed: 5, subscribersLimit: 5 });
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select('details')
      .where('company_id', '=', tenant.company.id)
      .where('action', '=', 'IMPORT')
      .executeTakeFirstOrThrow();
    expect(audit.details).toMatchObject({ refusedByLimit: 2 });
  });
});

describe('monthly messages limit', () => {
  it('refuses a send past the limit (the engine’s check) and the gauge shows the same limit', async () => {
    const tenant = await tenantWithLimits({ messages: 3 });
    const news = await createService(ctx.ownerDb, tenant.company.id);
    await subscribeNumbers(
      ctx.ownerDb,
      news,
      [1, 2, 3, 4].map((i) => kenyanNumber(64, i)),
    );
    const refused = await post(tenant, '/messages/bulk/send', { serviceIds: [news.id], message: 'Too many' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(/monthly message limit is 3/);
    expect(await usage(tenant)).toMatchObject({ messagesUsed: 0, messagesLimit: 3 });
  });
});
