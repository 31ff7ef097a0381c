import { describe, expect, it } from 'vitest';
import { COMPANY_PLANS } from '../admin/company.ts';
import { DEFAULT_USAGE_LIMITS, monthlyPriceOf, PLAN_CATALOGUE, resolvePlanLimits } from './plan-catalogue.ts';

const none = { messagesLimit: null, subscribersLimit: null, servicesLimit: null };

describe('resolvePlanLimits', () => {
  it('gives every plan its catalogue limits when the company has none of its own', () => {
    for (const plan of COMPANY_PLANS) {
      const { messagesLimit, subscribersLimit, servicesLimit } = PLAN_CATALOGUE[plan];
      expect(resolvePlanLimits(plan, none)).toEqual({ messagesLimit, subscribersLimit, servicesLimit });
    }
  });

  it("lets each of the company's own limits win, one by one", () => {
    expect(
      resolvePlanLimits('premium', { messagesLimit: 20_000, subscribersLimit: null, servicesLimit: 0 }),
    ).toEqual({
      messagesLimit: 20_000,
      subscribersLimit: PLAN_CATALOGUE.premium.subscribersLimit,
      servicesLimit: 0,
    });
  });

  it('reads an unknown plan as basic, whose limits are the spec defaults', () => {
    expect(resolvePlanLimits('gold', none)).toEqual(DEFAULT_USAGE_LIMITS);
    expect(monthlyPriceOf('gold')).toBe(PLAN_CATALOGUE.basic.monthlyPrice);
  });
});
