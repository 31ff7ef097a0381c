import type { TRole } from '@sms/contracts/auth/roles';
import {
  DASHBOARD_TEXTS,
  isNearLimit,
  type TUsageStats,
  usagePercent,
} from '@sms/contracts/dashboard/dashboard-stats';

type TGauge = { label: string; used: number; limit: number };

/** The gauge's place while the figures load or could not be read: a dash, never a number. */
function GaugePlaceholder({ label, loading }: { label: string; loading: boolean }) {
  return (
    <div data-testid={`gauge-${label.toLowerCase()}`}>
      <div className="flex items-center justify-between gap-2 text-sm">
        <span className="font-medium text-slate-700">{label}</span>
        <span className="tabular-nums text-slate-400">
          {loading ? <span className="sr-only">Loading</span> : null}
          <span aria-hidden={loading}>— / —</span>
        </span>
      </div>
      <div
        aria-hidden="true"
        className={`mt-2 h-2 rounded-full bg-slate-100 ${loading ? 'animate-pulse' : ''}`}
      />
    </div>
  );
}

function Gauge({ label, used, limit }: TGauge) {
  const percent = usagePercent(used, limit);
  const near = isNearLimit(used, limit);
  return (
    <div data-testid={`gauge-${label.toLowerCase()}`}>
      <div className="flex items-center justify-between gap-2 text-sm">
        <span className="font-medium text-slate-700">{label}</span>
        <span className="flex items-center gap-2">
          {near ? (
            <span className="rounded-full bg-red-50 px-2 py-0.5 text-xs font-medium text-red-700">
              {DASHBOARD_TEXTS.nearLimit}
            </span>
          ) : null}
          <span className="tabular-nums text-slate-600">
            {used.toLocaleString()} / {limit.toLocaleString()}
          </span>
        </span>
      </div>
      <meter
        className="sr-only"
        aria-label={`${label} used`}
        min={0}
        max={Math.max(limit, 1)}
        value={Math.min(used, Math.max(limit, 1))}
      >
        {`${used.toLocaleString()} of ${limit.toLocaleString()} (${Math.round(percent)}%)`}
      </meter>
      <div aria-hidden="true" className="mt-2 h-2 overflow-hidden rounded-full bg-slate-100">
        <div
          className={`h-full rounded-full ${near ? 'bg-red-500' : percent > 60 ? 'bg-amber-500' : 'bg-indigo-500'}`}
          style={{ width: `${percent}%` }}
        />
      </div>
    </div>
  );
}

type TUsageLimitsProps = {
  role: TRole;
  /** undefined while loading or after a failed load: the gauges show dashes. */
  usage: TUsageStats | undefined;
  loading?: boolean;
  readOnly: boolean;
};

/** Spec: gauges for messages, subscribers (not for content managers, only when counted) and services. */
export function UsageLimits({ role, usage, loading = false, readOnly }: TUsageLimitsProps) {
  const showSubscribers =
    role !== 'content_manager' &&
    (usage === undefined || (usage.subscribersUsed !== null && usage.subscribersLimit !== null));
  return (
    <section
      aria-labelledby="usage-heading"
      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
    >
      <div className="flex items-center justify-between gap-2">
        <h2 id="usage-heading" className="text-sm font-semibold text-slate-900">
          {DASHBOARD_TEXTS.usageTitle}
        </h2>
        {readOnly ? (
          <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-600">
            {DASHBOARD_TEXTS.readOnlyView}
          </span>
        ) : null}
      </div>
      <div className="mt-4 space-y-4">
        {usage === undefined ? (
          <>
            <GaugePlaceholder label="Messages" loading={loading} />
            {showSubscribers ? <GaugePlaceholder label="Subscribers" loading={loading} /> : null}
            <GaugePlaceholder label="Services" loading={loading} />
          </>
        ) : (
          <>
            <Gauge label="Messages" used={usage.messagesUsed} limit={usage.messagesLimit} />
            {showSubscribers ? (
              <Gauge
                label="Subscribers"
                used={usage.subscribersUsed ?? 0}
                limit={usage.subscribersLimit ?? 0}
              />
            ) : null}
            <Gauge label="Services" used={usage.servicesUsed} limit={usage.servicesLimit} />
          </>
        )}
      </div>
      <p className="mt-4 text-xs text-slate-500">
        Messages: this calendar month (UTC), each recipient counted once per SMS part.
      </p>
    </section>
  );
}
