import { COMPANY_PLANS, type TCompanyPlan } from '../admin/company.ts';

export type TPlanLimits = {
  /** Outbound SMS per calendar month (UTC): each recipient counts once per SMS part. */
  messagesLimit: number;
  /** Active subscribers of the company at any one time. */
  subscribersLimit: number;
  /** Services of the company, whatever their status. */
  servicesLimit: number;
};

export type TPlan = TPlanLimits & {
  label: string;
  /** What an active company on this plan pays each month, in PLAN_CURRENCY. */
  monthlyPrice: number;
};

export const PLAN_CURRENCY = 'KES';

/**
 * The plans a company can be on. basic carries the spec's defaults (section 9: 10000 messages,
 * 5000 subscribers, 20 services); the others grow from it. The platform's revenue on the
 * dashboard is the sum of these prices over active companies.
 */
export const PLAN_CATALOGUE = {
  basic: {
    label: 'Basic',
    monthlyPrice: 9_000,
    messagesLimit: 10_000,
    subscribersLimit: 5_000,
    servicesLimit: 20,
  },
  premium: {
    label: 'Premium',
    monthlyPrice: 25_000,
    messagesLimit: 50_000,
    subscribersLimit: 20_000,
    servicesLimit: 50,
  },
  professional: {
    label: 'Professional',
    monthlyPrice: 48_000,
    messagesLimit: 100_000,
    subscribersLimit: 50_000,
    servicesLimit: 100,
  },
  enterprise: {
    label: 'Enterprise',
    monthlyPrice: 125_000,
    messagesLimit: 500_000,
    subscribersLimit: 250_000,
    servicesLimit: 500,
  },
} as const satisfies Record<TCompanyPlan, TPlan>;

/** Spec section 9: what the dashboard's gauges show before the data loads. */
export const DEFAULT_USAGE_LIMITS: TPlanLimits = {
  messagesLimit: 10_000,
  subscribersLimit: 5_000,
  servicesLimit: 20,
};

/** A company's own limits (companies.messages_limit, ...): null means "the plan's". */
export type TCompanyLimitOverrides = {
  messagesLimit: number | null;
  subscribersLimit: number | null;
  servicesLimit: number | null;
};

export function isPlan(plan: string): plan is TCompanyPlan {
  return (COMPANY_PLANS as readonly string[]).includes(plan);
}

/**
 * The limits a company works under, the one rule both the server's checks and the dashboard's
 * gauges use: each limit is the company's own when it has one (a negotiated deal), otherwise its
 * plan's. An unknown plan reads as basic, so a limit always exists.
 */
export function resolvePlanLimits(plan: string, own: TCompanyLimitOverrides): TPlanLimits {
  const catalogue = PLAN_CATALOGUE[isPlan(plan) ? plan : 'basic'];
  return {
    messagesLimit: own.messagesLimit ?? catalogue.messagesLimit,
    subscribersLimit: own.subscribersLimit ?? catalogue.subscribersLimit,
    servicesLimit: own.servicesLimit ?? catalogue.servicesLimit,
  };
}

export function monthlyPriceOf(plan: string) {
  return PLAN_CATALOGUE[isPlan(plan) ? plan : 'basic'].monthlyPrice;
}

/** The refusals name the limit, so the person knows what to change or whom to ask. */
export const PLAN_LIMIT_MESSAGES = {
  servicesLimitReached: (limit: number) =>
    `Your plan allows ${limit} service(s) and all of them are in use: delete a service or ask for a higher services limit`,
  subscribersLimitReached: (limit: number) =>
    `Your plan allows ${limit} active subscriber(s) and all of them are in use: this number cannot be subscribed`,
  importRowsRefused: (refused: number, limit: number) =>
    `${refused} row(s) were refused: the plan's limit of ${limit} active subscriber(s) was reached`,
} as const;
