import {
  DASHBOARD_DEFAULTS,
  DASHBOARD_TEXTS,
  daysUntil,
  expiryTone,
} from '@sms/contracts/dashboard/dashboard-stats';
import { formatDate } from '../../../lib/format-date.ts';

const EXPIRY_TONES = {
  danger: 'text-red-600',
  warning: 'text-orange-600',
  normal: 'text-slate-900',
} as const;

type TBillingStatusCardProps = {
  billingStatus: string | null | undefined;
  packageName: string | null | undefined;
  packageExpiresAt: string | null | undefined;
  /** false while the figures load or after a failed load: dashes, not the defaults that look real. */
  ready?: boolean;
};

const UNKNOWN = '—';

function describeExpiry(iso: string) {
  const days = daysUntil(iso);
  const date = formatDate(iso);
  if (days < 0) return `${date} (expired)`;
  if (days === 0) return `${date} (today)`;
  return `${date} (${days} day${days === 1 ? '' : 's'} left)`;
}

export function BillingStatusCard({
  billingStatus,
  packageName,
  packageExpiresAt,
  ready = true,
}: TBillingStatusCardProps) {
  const status = billingStatus ?? DASHBOARD_DEFAULTS.billingStatus;
  const active = status === 'active';
  const tone = expiryTone(packageExpiresAt ?? null);
  return (
    <section
      aria-labelledby="billing-heading"
      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
    >
      <h2 id="billing-heading" className="text-sm font-semibold text-slate-900">
        {DASHBOARD_TEXTS.billingTitle}
      </h2>
      <dl className="mt-4 space-y-3 text-sm">
        <div className="flex items-center justify-between gap-2">
          <dt className="text-slate-600">Status</dt>
          <dd>
            {ready ? (
              <span
                className={`rounded-full px-2 py-0.5 text-xs font-medium ${
                  active ? 'bg-green-50 text-green-700' : 'bg-slate-100 text-slate-600'
                }`}
              >
                {active ? DASHBOARD_TEXTS.billingActive : DASHBOARD_TEXTS.billingInactive}
              </span>
            ) : (
              <span className="text-slate-400">{UNKNOWN}</span>
            )}
          </dd>
        </div>
        <div className="flex items-center justify-between gap-2">
          <dt className="text-slate-600">Package</dt>
          <dd className="font-medium text-slate-900">
            {ready ? (packageName ?? DASHBOARD_DEFAULTS.packageName) : UNKNOWN}
          </dd>
        </div>
        <div className="flex items-center justify-between gap-2">
          <dt className="text-slate-600">Expires</dt>
          <dd className={`font-medium ${EXPIRY_TONES[tone]}`} data-testid="package-expiry" data-tone={tone}>
            {ready ? (packageExpiresAt ? describeExpiry(packageExpiresAt) : 'No expiry set') : UNKNOWN}
          </dd>
        </div>
      </dl>
    </section>
  );
}
