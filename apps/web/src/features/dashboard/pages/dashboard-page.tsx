import type { TRole } from '@sms/contracts/auth/roles';
import { effectiveRole } from '@sms/contracts/auth/roles';
import { useAuth } from '../../auth/components/auth-provider.tsx';
import { QuickActions } from '../components/quick-actions.tsx';

const SUBTITLES: Record<TRole, (companyName: string) => string> = {
  system_admin: () => "Here's what's happening across the platform today.",
  company_admin: (company) => `Here's an overview of messaging at ${company}.`,
  content_manager: (company) => `Here's the latest on ${company}'s services and messages.`,
  viewer: (company) => `Here's a read-only overview of ${company}'s messaging performance.`,
};

export default function DashboardPage() {
  const { user } = useAuth();
  if (!user) return null;

  const role = effectiveRole(user.role);
  const companyName = user.company?.name ?? 'your company';

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">{`Welcome back, ${user.firstName}!`}</h1>
          <p className="mt-1 text-sm text-slate-600">{SUBTITLES[role](companyName)}</p>
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
            <span>Read-Only Access</span>
          </div>
        ) : null}
      </div>
      <QuickActions role={role} />
    </div>
  );
}
