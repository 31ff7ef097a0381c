import { isRoleAllowed, ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { computeTrend } from '@sms/contracts/common/trend';
import { RECENT_ACTIVITY_LIMIT, type TDashboardStats } from '@sms/contracts/dashboard/dashboard-stats';
import { monthlyPriceOf, resolvePlanLimits } from '@sms/contracts/plans/plan-catalogue';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import { notFound } from '../../errors.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import * as repo from './dashboard.repository.ts';
import { presentRecentActivity } from './present-activity.ts';

/** Month starts (UTC) and the end of last month's span as long as this month's so far. */
export function monthWindow(now: Date) {
  const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  const elapsed = now.getTime() - thisMonth.getTime();
  // A 31st compared with a 30-day month stops at that month's end.
  const lastMonthSameSpanEnd = new Date(Math.min(lastMonth.getTime() + elapsed, thisMonth.getTime()));
  return { thisMonth, lastMonth, lastMonthSameSpanEnd };
}

function platformStatsOf(rows: { plan: string; status: string; companies: number }[]) {
  const sum = (filter: (row: (typeof rows)[number]) => boolean) =>
    rows.filter(filter).reduce((total, row) => total + row.companies, 0);
  return {
    totalCompanies: sum(() => true),
    activeCompanies: sum((row) => row.status === 'active'),
    pendingApprovals: sum((row) => row.status === 'pending'),
    totalRevenue: rows
      .filter((row) => row.status === 'active')
      .reduce((total, row) => total + row.companies * monthlyPriceOf(row.plan), 0),
  };
}

/**
 * Spec section 3's dashboard data for the signed-in user: their company's figures (system_admin:
 * the platform's), each read from a counter or a rollup, never a count over a big table.
 */
export async function getDashboardStats(
  deps: AppDeps,
  ctx: RequestContext,
  now = new Date(),
): Promise<TDashboardStats> {
  const companyId = tenantOf(ctx.actor);
  const role = ctx.actor.role;
  // Spec: every role but content_manager sees the subscriber card and gauge; only roles that may
  // open subscribers see their phone numbers in the activity.
  const seesSubscribers = role !== 'content_manager';
  const seesNumbers = isRoleAllowed(role, ROUTE_ROLES.subscribers);
  const window = monthWindow(now);

  const figures = await inActorTransaction(deps.db, ctx, (trx) =>
    repo.findDashboardFigures(trx, companyId, window, RECENT_ACTIVITY_LIMIT),
  );
  const { services, activeSubscribers, messagesSent, month } = figures;
  // Platform staff's names are for the platform's own eyes: every company user reads "A platform administrator".
  const recentActivity = presentRecentActivity(figures.audit, figures.messages, {
    showNumbers: seesNumbers,
    showStaffNames: companyId === null,
  });
  const stats = {
    totalServices: services.total,
    activeServices: services.active,
    totalSubscribers: seesSubscribers ? activeSubscribers : null,
    totalMessages: messagesSent,
    trends: {
      totalServices: computeTrend(services.total, services.total - month.servicesSince),
      activeServices: computeTrend(services.active, services.active - month.activeServicesSince),
      totalSubscribers: seesSubscribers
        ? computeTrend(activeSubscribers, activeSubscribers - month.activeSubscribersSince)
        : null,
      totalMessages: computeTrend(month.sentThisMonth, month.sentLastMonth),
    },
    readOnly: role === 'viewer',
    recentActivity,
  };

  if (companyId === null)
    return {
      ...stats,
      usageStats: null,
      platformStats: platformStatsOf(figures.companies),
      billingStatus: null,
      packageName: null,
      packageExpiresAt: null,
    };

  const { company } = figures;
  if (!company) throw notFound('Company');
  // The limits the company works under (its own, else its plan's), as the server enforces them.
  const limits = resolvePlanLimits(company.plan, {
    messagesLimit: company.messages_limit,
    subscribersLimit: company.subscribers_limit,
    servicesLimit: company.services_limit,
  });
  return {
    ...stats,
    usageStats: {
      messagesUsed: company.messages_used,
      messagesLimit: limits.messagesLimit,
      subscribersUsed: seesSubscribers ? activeSubscribers : null,
      subscribersLimit: seesSubscribers ? limits.subscribersLimit : null,
      servicesUsed: services.total,
      servicesLimit: limits.servicesLimit,
    },
    platformStats: null,
    billingStatus: company.billing_status,
    packageName: company.package_name,
    packageExpiresAt: company.package_expires_at?.toISOString() ?? null,
  };
}
