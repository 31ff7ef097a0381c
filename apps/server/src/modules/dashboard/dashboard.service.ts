import { isRoleAllowed, ROUTE_ROLES } from '@sms/contracts/auth/roles';
import { computeTrend } from '@sms/contracts/common/trend';
import { RECENT_ACTIVITY_LIMIT, type TDashboardStats } from '@sms/contracts/dashboard/dashboard-stats';
import { monthlyPriceOf } from '@sms/contracts/plans/plan-catalogue';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { Executor } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { findMessagesUsedInMonth } from '../plans/plan-limits.repository.ts';
import { findCompanyLimits } from '../plans/plan-limits.ts';
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

async function platformStatsOf(trx: Executor) {
  const rows = await repo.countCompaniesByPlanAndStatus(trx);
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

  return inActorTransaction(deps.db, ctx, async (trx) => {
    const { services, activeSubscribers, messagesSent, month } = await repo.findHeadlineFigures(
      trx,
      companyId,
      window,
    );
    const recentActivity = presentRecentActivity(
      await repo.findRecentAudit(trx, companyId, RECENT_ACTIVITY_LIMIT),
      await repo.findRecentMessages(trx, companyId, RECENT_ACTIVITY_LIMIT),
      seesNumbers,
    );
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
        platformStats: await platformStatsOf(trx),
        billingStatus: null,
        packageName: null,
        packageExpiresAt: null,
      };

    const company = await repo.findCompanyBilling(trx, companyId);
    if (!company) throw notFound('Company');
    const limits = await findCompanyLimits(trx, companyId);
    return {
      ...stats,
      usageStats: {
        messagesUsed: await findMessagesUsedInMonth(trx, companyId, window.thisMonth),
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
  });
}
