import type { TRole } from '@sms/contracts/auth/roles';
import type { TTrend } from '@sms/contracts/common/trend';
import { DASHBOARD_TEXTS, type TDashboardStats } from '@sms/contracts/dashboard/dashboard-stats';
import { MessagesIcon, ServicesIcon, SubscribersIcon } from '../../../components/icons.tsx';
import { TrendBadge } from '../../../components/trend-badge.tsx';

type TCard = {
  key: 'totalServices' | 'activeServices' | 'totalSubscribers' | 'totalMessages';
  label: string;
  icon: typeof ServicesIcon;
  tone: string;
};

const CARDS: TCard[] = [
  { key: 'totalServices', label: 'Total Services', icon: ServicesIcon, tone: 'bg-indigo-50 text-indigo-600' },
  { key: 'activeServices', label: 'Active Services', icon: ServicesIcon, tone: 'bg-green-50 text-green-600' },
  {
    key: 'totalSubscribers',
    label: 'Total Subscribers',
    icon: SubscribersIcon,
    tone: 'bg-sky-50 text-sky-600',
  },
  { key: 'totalMessages', label: 'Messages Sent', icon: MessagesIcon, tone: 'bg-amber-50 text-amber-600' },
];

type TStatCardsProps = { role: TRole; stats: TDashboardStats | undefined; isLoading: boolean };

/** The four headline cards; content managers see no subscriber card and a view-only note on each. */
export function StatCards({ role, stats, isLoading }: TStatCardsProps) {
  const cards = CARDS.filter((card) => !(card.key === 'totalSubscribers' && role === 'content_manager'));
  return (
    <section
      aria-label="Headline figures"
      className={`grid gap-4 sm:grid-cols-2 ${cards.length === 4 ? 'xl:grid-cols-4' : 'xl:grid-cols-3'}`}
    >
      {cards.map((card) => {
        const value = stats?.[card.key];
        const trend: TTrend | null | undefined = stats?.trends[card.key];
        const Icon = card.icon;
        return (
          <article
            key={card.key}
            aria-label={card.label}
            className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
          >
            <div className="flex items-start justify-between gap-3">
              <div>
                <h2 className="text-sm font-medium text-slate-600">{card.label}</h2>
                <p className="mt-2 text-2xl font-semibold text-slate-900" data-testid="stat-value">
                  {isLoading ? (
                    <span className="inline-block h-7 w-16 animate-pulse rounded bg-slate-200" />
                  ) : (
                    (value?.toLocaleString() ?? '—')
                  )}
                </p>
              </div>
              <span className={`rounded-lg p-2 ${card.tone}`}>
                <Icon className="size-5" />
              </span>
            </div>
            <div className="mt-3 min-h-4">
              {trend ? <TrendBadge trend={trend} suffix="vs last month" /> : null}
            </div>
            {role === 'content_manager' ? (
              <p className="mt-2 text-xs font-medium text-slate-500">{DASHBOARD_TEXTS.viewOnly}</p>
            ) : null}
          </article>
        );
      })}
    </section>
  );
}
