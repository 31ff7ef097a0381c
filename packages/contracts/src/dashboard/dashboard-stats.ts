import { z } from 'zod';
import type { TRole } from '../auth/roles.ts';
import { ZTrend } from '../common/trend.ts';
import { DEFAULT_USAGE_LIMITS } from '../plans/plan-catalogue.ts';

/** Spec sections 2, 8 and 9, word for word. */
export const DASHBOARD_TEXTS = {
  greeting: (name: string) => `Welcome back, ${name}!`,
  readOnlyAccess: 'Read-Only Access',
  viewOnly: 'View Only - No Edit Access',
  usageTitle: 'Usage & Limits',
  readOnlyView: 'Read-Only View',
  nearLimit: 'Near Limit',
  platformTitle: 'Platform Overview',
  recentActivityTitle: 'Recent Activity',
  noRecentActivity: 'No recent activity',
  loadFailed: 'Failed to load dashboard data',
  activityUnavailable: 'Unable to load recent activity',
  billingTitle: 'Billing Status',
  billingActive: 'Active',
  billingInactive: 'Inactive',
} as const;

/** Role subtitles under the greeting (the spec leaves their words to us). */
export const DASHBOARD_SUBTITLES: Record<TRole, (companyName: string) => string> = {
  system_admin: () => "Here's what's happening across the platform today.",
  company_admin: (company) => `Here's an overview of messaging at ${company}.`,
  content_manager: (company) => `Here's the latest on ${company}'s services and messages.`,
  viewer: (company) => `Here's a read-only overview of ${company}'s messaging performance.`,
};

/** Spec section 9: a gauge warns above this share of its limit. */
export const USAGE_WARN_ABOVE_PERCENT = 80;
/** Spec section 9: package expiry turns red at this many days or fewer, orange at the second. */
export const EXPIRY_DANGER_DAYS = 7;
export const EXPIRY_WARNING_DAYS = 30;
export const RECENT_ACTIVITY_SKELETON_ROWS = 4;
export const RECENT_ACTIVITY_LIMIT = 10;

/**
 * Who an activity entry names when not a user by name: work of no user, and, for a company's own
 * users, anything platform staff did (their names are the platform's, not the company's to see).
 */
export const ACTIVITY_ACTORS = {
  system: 'System',
  platformStaff: 'A platform administrator',
} as const;

/** Spec section 3's defaults, shown before the data loads. */
export const DASHBOARD_DEFAULTS = {
  billingStatus: 'active',
  packageName: 'Professional',
  usageStats: {
    messagesUsed: 0,
    messagesLimit: DEFAULT_USAGE_LIMITS.messagesLimit,
    subscribersUsed: 0,
    subscribersLimit: DEFAULT_USAGE_LIMITS.subscribersLimit,
    servicesUsed: 0,
    servicesLimit: DEFAULT_USAGE_LIMITS.servicesLimit,
  },
} as const;

export const ACTIVITY_TYPES = ['service', 'subscriber', 'message', 'other'] as const;
export type TActivityType = (typeof ACTIVITY_TYPES)[number];

export const ZRecentActivity = z.object({
  id: z.string(),
  type: z.enum(ACTIVITY_TYPES),
  message: z.string(),
  /** ISO time of the event. */
  time: z.string(),
});
export type TRecentActivity = z.infer<typeof ZRecentActivity>;

/**
 * What the limits are measured against: SMS this calendar month (UTC), each recipient once per
 * part, as the engine reserves them (company_monthly_usage); active subscribers now; services now.
 * Subscriber figures are null for content managers (no access).
 */
export const ZUsageStats = z.object({
  messagesUsed: z.number().int(),
  messagesLimit: z.number().int(),
  subscribersUsed: z.number().int().nullable(),
  subscribersLimit: z.number().int().nullable(),
  servicesUsed: z.number().int(),
  servicesLimit: z.number().int(),
});
export type TUsageStats = z.infer<typeof ZUsageStats>;

export const ZPlatformStats = z.object({
  totalCompanies: z.number().int(),
  activeCompanies: z.number().int(),
  pendingApprovals: z.number().int(),
  /** Monthly: the plan catalogue's price of every active company's plan. */
  totalRevenue: z.number(),
});
export type TPlatformStats = z.infer<typeof ZPlatformStats>;

/**
 * Spec section 3's dashboard data. Totals are the caller's company's (system_admin: the
 * platform's). Each card's trend compares this month with last: for the stock figures (services,
 * active services, active subscribers) the value now against the value when this month began;
 * for messages, the ones sent this month so far against the same span of last month.
 */
export const ZDashboardStats = z.object({
  totalServices: z.number().int(),
  activeServices: z.number().int(),
  /** Active subscribers; null for content managers. */
  totalSubscribers: z.number().int().nullable(),
  /** Outbound messages handed to the provider, one per recipient. */
  totalMessages: z.number().int(),
  trends: z.object({
    totalServices: ZTrend,
    activeServices: ZTrend,
    totalSubscribers: ZTrend.nullable(),
    totalMessages: ZTrend,
  }),
  usageStats: ZUsageStats.nullable(),
  readOnly: z.boolean(),
  platformStats: ZPlatformStats.nullable(),
  recentActivity: z.array(ZRecentActivity),
  billingStatus: z.string().nullable(),
  packageName: z.string().nullable(),
  packageExpiresAt: z.string().nullable(),
});
export type TDashboardStats = z.infer<typeof ZDashboardStats>;

/** Share of the limit in use, 0-100 (a limit of 0 with nothing used is 0%, with use 100%). */
export function usagePercent(used: number, limit: number) {
  if (limit <= 0) return used > 0 ? 100 : 0;
  return Math.min(100, (used / limit) * 100);
}

export function isNearLimit(used: number, limit: number) {
  return usagePercent(used, limit) > USAGE_WARN_ABOVE_PERCENT;
}

export type TExpiryTone = 'danger' | 'warning' | 'normal';

/** Whole days left until the package expires (negative once it has); red at 7 or fewer, orange at 30. */
export function expiryTone(expiresAt: string | null, now = new Date()): TExpiryTone {
  if (!expiresAt) return 'normal';
  const days = daysUntil(expiresAt, now);
  if (days <= EXPIRY_DANGER_DAYS) return 'danger';
  if (days <= EXPIRY_WARNING_DAYS) return 'warning';
  return 'normal';
}

export function daysUntil(iso: string, now = new Date()) {
  return Math.ceil((new Date(iso).getTime() - now.getTime()) / 86_400_000);
}
