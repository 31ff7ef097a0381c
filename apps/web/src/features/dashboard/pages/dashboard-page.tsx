import { effectiveRole } from '@sms/contracts/auth/roles';
import {
  DASHBOARD_DEFAULTS,
  DASHBOARD_SUBTITLES,
  DASHBOARD_TEXTS,
} from '@sms/contracts/dashboard/dashboard-stats';
import { useEffect } from 'react';
import { useToast } from '../../../components/toast/toast-provider.tsx';
import { useDocumentTitle } from '../../../lib/use-document-title.ts';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { DisabledWebhooksNotice } from '../../webhooks/components/disabled-webhooks-notice.tsx';
import { useDashboardStats } from '../api/get-dashboard-stats.ts';
import { BillingStatusCard } from '../components/billing-status-card.tsx';
import { PlatformOverview } from '../components/platform-overview.tsx';
import { QuickActions } from '../components/quick-actions.tsx';
import { RecentActivity } from '../components/recent-activity.tsx';
import { StatCards } from '../components/stat-cards.tsx';
import { UsageLimits } from '../components/usage-limits.tsx';

export default function DashboardPage() {
  const { user } = useAuth();
  const stats = useDashboardStats();
  const { showToast } = useToast();
  const failed = stats.isError && !stats.data;
  useDocumentTitle('Dashboard');

  useEffect(() => {
    if (failed) showToast(DASHBOARD_TEXTS.loadFailed, 'error');
  }, [failed, showToast]);

  if (!user) return null;

  const role = effectiveRole(user.role);
  const companyName = user.company?.name ?? 'your company';
  const data = stats.data;
  const isSystemAdmin = role === 'system_admin';

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">
            {DASHBOARD_TEXTS.greeting(user.firstName)}
          </h1>
          <p className="mt-1 text-sm text-slate-600">{DASHBOARD_SUBTITLES[role](companyName)}</p>
        </div>
        {role === 'viewer' ? (
          <div
            className="inline-flex items-center gap-2 self-start rounded-full border border-amber-200 bg-amber-50 px-3 py-1 text-xs font-medium text-amber-800"
            data-testid="read-only-badge"
          >
            <span>{companyName}</span>
            <span aria-hidden="true" className="text-amber-300">
              |
            </span>
            <span>{DASHBOARD_TEXTS.readOnlyAccess}</span>
          </div>
        ) : null}
      </div>

      {role === 'company_admin' ? <DisabledWebhooksNotice /> : null}

      <StatCards role={role} stats={data} isLoading={stats.isPending} />

      <div className="grid gap-6 lg:grid-cols-3">
        <div className="space-y-6 lg:col-span-2">
          {isSystemAdmin ? null : (
            <UsageLimits
              role={role}
              // Only a loaded answer without usage falls back to the defaults: while loading, dashes.
              usage={data ? (data.usageStats ?? DASHBOARD_DEFAULTS.usageStats) : undefined}
              loading={stats.isPending}
              readOnly={data?.readOnly ?? role === 'viewer'}
            />
          )}
          {isSystemAdmin && data?.platformStats && data.platformStats.totalCompanies > 0 ? (
            <PlatformOverview stats={data.platformStats} />
          ) : null}
          <QuickActions role={role} />
        </div>
        <div className="space-y-6">
          {isSystemAdmin ? null : (
            <BillingStatusCard
              billingStatus={data?.billingStatus}
              packageName={data?.packageName}
              packageExpiresAt={data?.packageExpiresAt}
              ready={data !== undefined}
            />
          )}
          <RecentActivity items={data?.recentActivity} isLoading={stats.isPending} isError={failed} />
        </div>
      </div>
    </div>
  );
}
