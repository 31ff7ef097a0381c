import { CALLBACK_MESSAGES } from '@sms/contracts/callbacks/callback-urls';
import { describe, expect, it } from 'vitest';
import { regenerateCallbackTokens } from '../src/modules/callbacks/callback-tokens.ts';
import { bearer } from './support/factories.ts';
import {
  createService,
  kenyanNumber,
  subscribeNumbers,
  subscriptionOf,
} from './support/services-factories.ts';
import { TEST_ENCRYPTION_KEY } from './support/test-app.ts';
import { createTwoTenantContext } from './support/two-tenants.ts';

// The holes a review found in tenant isolation, each pinned by a test that goes red when the
// check guarding it is removed.

const { ctx, home: a, other: b } = await createTwoTenantContext();

const asAdminOf = (tenant: typeof a, method: 'POST' | 'DELETE', url: string, payload?: object) =>
  ctx.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: bearer(tenant.staff.company_admin.token),
    payload,
  });

const activeCount = async (serviceId: number) =>
  (
    await ctx.ownerDb
      .selectFrom('services')
      .select('subscriber_count')
      .where('id', '=', serviceId)
      .executeTakeFirstOrThrow()
  ).subscriber_count;

describe("another company's subscribers cannot be unsubscribed", () => {
  it('DELETE /services/{their service}/unsubscribe is a 404 and changes nothing', async () => {
    const theirs = await createService(ctx.ownerDb, a.company.id);
    const msisdn = kenyanNumber(81, 1);
    await subscribeNumbers(ctx.ownerDb, theirs, [msisdn]);

    const response = await asAdminOf(b, 'DELETE', `/services/${theirs.id}/unsubscribe`, {
      phoneNumber: msisdn,
    });
    expect(response.statusCode).toBe(404);
    expect(await subscriptionOf(ctx.ownerDb, theirs.id, msisdn)).toMatchObject({
      status: 'active',
      subscriber_status: 'active',
    });
    expect(await activeCount(theirs.id)).toBe(1);
  });

  it('their number through my own service reaches only my company', async () => {
    const theirs = await createService(ctx.ownerDb, a.company.id);
    const mine = await createService(ctx.ownerDb, b.company.id);
    const msisdn = kenyanNumber(81, 2);
    await subscribeNumbers(ctx.ownerDb, theirs, [msisdn]);

    const response = await asAdminOf(b, 'DELETE', `/services/${mine.id}/unsubscribe`, {
      phoneNumber: msisdn,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data.changed).toBe(false);
    expect(await subscriptionOf(ctx.ownerDb, theirs.id, msisdn)).toMatchObject({ status: 'active' });
  });

  it('deleting their service with force (which ends its subscriptions) is a 404 and changes nothing', async () => {
    const theirs = await createService(ctx.ownerDb, a.company.id);
    const msisdn = kenyanNumber(81, 3);
    await subscribeNumbers(ctx.ownerDb, theirs, [msisdn]);

    const response = await asAdminOf(b, 'DELETE', `/services/${theirs.id}?force=true`);
    expect(response.statusCode).toBe(404);
    expect(await subscriptionOf(ctx.ownerDb, theirs.id, msisdn)).toMatchObject({ status: 'active' });
  });
});

describe('provider callback URLs name one company and one kind of callback', () => {
  const key = Buffer.from(TEST_ENCRYPTION_KEY, 'hex');
  const notFoundBody = { success: false, message: CALLBACK_MESSAGES.invalidCallback, error: 'not_found' };
  const postSubscription = (companyId: number, token: string, fields: Record<string, string>) =>
    ctx.app.inject({
      method: 'POST',
      url: `/api/v1/callbacks/subscription/${companyId}/${token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const validate = async (type: 'subscription' | 'dlr', companyId: number, token: string) =>
    (
      await ctx.app.inject({ method: 'GET', url: `/api/v1/callbacks/validate/${type}/${companyId}/${token}` })
    ).json().data.valid;

  it('a delivery-report token is refused where a subscription token is required, and the reverse', async () => {
    const tokens = await regenerateCallbackTokens(ctx.ownerDb, a.company.id, key);
    const service = await createService(ctx.ownerDb, a.company.id);
    const msisdn = kenyanNumber(82, 1);

    const response = await postSubscription(a.company.id, tokens.dlr, {
      phoneNumber: msisdn,
      shortCode: service.shortcode,
      keyword: service.keyword,
      updateType: 'addition',
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual(notFoundBody);
    expect(await subscriptionOf(ctx.ownerDb, service.id, msisdn)).toBeUndefined();

    // The check every provider callback shares (the validate endpoint is its public face).
    expect(await validate('subscription', a.company.id, tokens.dlr)).toBe(false);
    expect(await validate('dlr', a.company.id, tokens.subscription)).toBe(false);
    expect(await validate('subscription', a.company.id, tokens.subscription)).toBe(true);
    expect(await validate('dlr', a.company.id, tokens.dlr)).toBe(true);
  });

  it("company A's valid token with company B's id is refused and changes nothing in B", async () => {
    const tokensOfA = await regenerateCallbackTokens(ctx.ownerDb, a.company.id, key);
    await regenerateCallbackTokens(ctx.ownerDb, b.company.id, key);
    const serviceOfB = await createService(ctx.ownerDb, b.company.id);
    const msisdn = kenyanNumber(82, 2);
    await subscribeNumbers(ctx.ownerDb, serviceOfB, [msisdn]);

    for (const updateType of ['addition', 'deletion']) {
      const response = await postSubscription(b.company.id, tokensOfA.subscription, {
        phoneNumber: kenyanNumber(82, updateType === 'addition' ? 3 : 2),
        shortCode: serviceOfB.shortcode,
        keyword: serviceOfB.keyword,
        updateType,
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(notFoundBody);
    }
    const optOut = await postSubscription(b.company.id, tokensOfA.subscription, {
      senderId: serviceOfB.shortcode,
      phoneNumber: msisdn,
    });
    expect(optOut.statusCode).toBe(404);
    expect(await subscriptionOf(ctx.ownerDb, serviceOfB.id, msisdn)).toMatchObject({ status: 'active' });
    expect(await subscriptionOf(ctx.ownerDb, serviceOfB.id, kenyanNumber(82, 3))).toBeUndefined();
    expect(await validate('subscription', b.company.id, tokensOfA.subscription)).toBe(false);
    expect(await validate('dlr', b.company.id, tokensOfA.dlr)).toBe(false);
  });

  it('the delivery-report callback refuses a subscription token, and another company’s dlr token', async () => {
    const tokensOfA = await regenerateCallbackTokens(ctx.ownerDb, a.company.id, key);
    await regenerateCallbackTokens(ctx.ownerDb, b.company.id, key);
    const report = new URLSearchParams({
      id: 'ATXid_wall',
      status: 'Success',
      phoneNumber: kenyanNumber(82, 4),
    });
    const postReport = (companyId: number, token: string) =>
      ctx.app.inject({
        method: 'POST',
        url: `/api/v1/callbacks/dlr/${companyId}/${token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: report.toString(),
      });
    for (const [companyId, token] of [
      [a.company.id, tokensOfA.subscription],
      [b.company.id, tokensOfA.dlr],
    ] as const) {
      const response = await postReport(companyId, token);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(notFoundBody);
    }
    // The right token is accepted (an unknown provider id changes nothing).
    expect((await postReport(a.company.id, tokensOfA.dlr)).statusCode).toBe(200);
  });
});
