import {
  DASHBOARD_TEXTS,
  RECENT_ACTIVITY_SKELETON_ROWS,
  type TActivityType,
  type TRecentActivity,
} from '@sms/contracts/dashboard/dashboard-stats';
import {
  AlertIcon,
  InfoIcon,
  MessagesIcon,
  ServicesIcon,
  SubscribersIcon,
} from '../../../components/icons.tsx';

const ICONS: Record<TActivityType, { icon: typeof InfoIcon; tone: string }> = {
  service: { icon: ServicesIcon, tone: 'bg-indigo-50 text-indigo-600' },
  subscriber: { icon: SubscribersIcon, tone: 'bg-sky-50 text-sky-600' },
  message: { icon: MessagesIcon, tone: 'bg-amber-50 text-amber-600' },
  other: { icon: InfoIcon, tone: 'bg-slate-100 text-slate-600' },
};

const relativeTime = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function formatRelative(iso: string, now = Date.now()) {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relativeTime.format(seconds, 'second');
  if (abs < 3600) return relativeTime.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relativeTime.format(Math.round(seconds / 3600), 'hour');
  return relativeTime.format(Math.round(seconds / 86_400), 'day');
}

type TRecentActivityProps = { items: TRecentActivity[] | undefined; isLoading: boolean; isError: boolean };

export function RecentActivity({ items, isLoading, isError }: TRecentActivityProps) {
  return (
    <section
      aria-labelledby="activity-heading"
      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm"
    >
      <h2 id="activity-heading" className="text-sm font-semibold text-slate-900">
        {DASHBOARD_TEXTS.recentActivityTitle}
      </h2>
      <ActivityBody items={items} isLoading={isLoading} isError={isError} />
    </section>
  );
}

function ActivityBody({ items, isLoading, isError }: TRecentActivityProps) {
  if (isLoading)
    return (
      <ul className="mt-4 space-y-4" aria-busy="true" aria-label="Loading recent activity">
        {Array.from({ length: RECENT_ACTIVITY_SKELETON_ROWS }, (_, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have nothing else to key on
          <li key={index} className="flex animate-pulse items-center gap-3" data-testid="activity-skeleton">
            <span className="size-8 rounded-lg bg-slate-200" />
            <span className="flex-1 space-y-2">
              <span className="block h-3 w-3/4 rounded bg-slate-200" />
              <span className="block h-2 w-1/3 rounded bg-slate-100" />
            </span>
          </li>
        ))}
      </ul>
    );
  if (isError)
    return (
      <ul className="mt-4">
        <li className="flex items-center gap-3 text-sm text-slate-700">
          <span className="rounded-lg bg-red-50 p-2 text-red-600">
            <AlertIcon className="size-4" />
          </span>
          {DASHBOARD_TEXTS.activityUnavailable}
        </li>
      </ul>
    );
  if (!items || items.length === 0)
    return <p className="mt-4 text-sm text-slate-500">{DASHBOARD_TEXTS.noRecentActivity}</p>;
  return (
    <ul className="mt-4 space-y-4">
      {items.map((item) => {
        const { icon: Icon, tone } = ICONS[item.type];
        return (
          <li key={item.id} className="flex items-start gap-3">
            <span className={`rounded-lg p-2 ${tone}`}>
              <Icon className="size-4" />
            </span>
            <span className="min-w-0 flex-1">
              <span className="line-clamp-2 break-words text-sm text-slate-800" title={item.message}>
                {item.message}
              </span>
              <time
                dateTime={item.time}
                title={new Date(item.time).toLocaleString()}
                className="text-xs text-slate-500"
              >
                {formatRelative(item.time)}
              </time>
            </span>
          </li>
        );
      })}
    </ul>
  );
}
