import { type Executor, namedStatement } from '../../db/database.ts';
import { RESET_PLANS, runPlannedOnce } from '../../lib/planned-once.ts';

/** null: every company (the platform scope); otherwise one company. */
export type Scope = number | null;

const isoDay = (at: Date) => at.toISOString().slice(0, 10);

export type MonthWindow = { thisMonth: Date; lastMonth: Date; lastMonthSameSpanEnd: Date };

export type AuditRow = {
  id: number;
  action: string;
  entity: string;
  entity_id: string | null;
  user_name: string | null;
  /** Written by platform staff (migration 0048): a company's users do not see their name. */
  by_platform_staff: boolean;
  details: Record<string, unknown>;
  created_at: Date;
};

export type RecentMessageRow = {
  id: number;
  direction: string;
  status: string;
  content: string;
  msisdn: string | null;
  recipient_count: number | null;
  service_name: string | null;
  created_at: Date;
  updated_at: Date;
};

export type CompanyBillingRow = {
  name: string;
  plan: string;
  billing_status: string;
  package_name: string | null;
  package_expires_at: Date | null;
  messages_limit: number | null;
  subscribers_limit: number | null;
  services_limit: number | null;
  messages_used: number;
};

type Json<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

type FiguresJson = {
  services_total: number;
  services_active: number;
  active_subscribers: number;
  messages_sent: number;
  month: {
    services_since: number;
    active_services_since: number;
    active_subscribers_since: number;
    sent_this_month: number;
    sent_last_month_days: number;
  };
  sent_last_month_hours: number;
  audit: Json<AuditRow>[];
  messages: Json<RecentMessageRow>[];
  /** One company's billing, limits and this month's usage (null for every company). */
  company?: Json<Omit<CompanyBillingRow, 'messages_used'>> & { messages_used: number | null };
  /** Every company per plan and status (the platform scope only). */
  companies?: { plan: string; status: string; companies: number }[];
};

// Rolled-up figures, counters and the newest rows, by the company's keys: one statement planned
// once per connection (lib/planned-once.ts). Planned for its values it cost 1.2 ms of PostgreSQL's
// CPU to plan and a third of that to run.
// The month's figures from the daily rollup; `where` narrows it to a company (or not). $2: the first
// day of this month, $3: of last month, $4: the day last month's same span ends.
const monthFigures = (where: string) => `
  select coalesce(sum(services_delta) filter (where day >= $2::date), 0) as services_since,
         coalesce(sum(active_services_delta) filter (where day >= $2::date), 0) as active_services_since,
         coalesce(sum(active_subscribers_delta) filter (where day >= $2::date), 0) as active_subscribers_since,
         coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                    filter (where day >= $2::date), 0) as sent_this_month,
         coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                    filter (where day < $4::date), 0) as sent_last_month_days
    from company_daily_activity where ${where} day >= $3::date`;
const HANDED_OVER = 'submitted + sent + delivered + failed + rejected + expired';
const AUDIT_SHOWN = `action <> all(array['LOGIN', 'LOGOUT']) and entity <> 'MESSAGE'`;
const AUDIT_COLUMNS = 'id, action, entity, entity_id, user_name, by_platform_staff, details, created_at';
const RECENT_MESSAGE_COLUMNS = `m.id, m.direction, m.status, m.content, m.msisdn, m.recipient_count,
  s.name as service_name, m.created_at, m.updated_at`;

const COMPANY_FIGURES = namedStatement(
  'dashboard_company',
  `select ${RESET_PLANS}, json_build_object(
     'services_total', sv.total, 'services_active', sv.active,
     'active_subscribers', (select coalesce(sum(subscriber_count), 0) from company_subscriber_counts
                             where company_id = $1::bigint and status = 'active'),
     'messages_sent', (select coalesce(sum(${HANDED_OVER}), 0) from company_monthly_activity where company_id = $1::bigint),
     'month', month,
     'sent_last_month_hours', (select coalesce(sum(${HANDED_OVER}), 0) from company_hourly_activity
                                where company_id = $1::bigint and hour >= ($4::date::timestamp at time zone 'UTC')
                                  and hour < $5::timestamptz),
     'audit', (select coalesce(json_agg(a order by a.created_at desc, a.id desc), '[]')
                 from (select ${AUDIT_COLUMNS} from audit_logs
                        where company_id = $1::bigint and ${AUDIT_SHOWN}
                        order by created_at desc, id desc limit $6::int) a),
     'messages', (select coalesce(json_agg(r order by r.created_at desc, r.id desc), '[]')
                    from (select ${RECENT_MESSAGE_COLUMNS}
                            from (select * from messages where company_id = $1::bigint
                                   order by created_at desc, id desc limit $6::int) m
                            left join services s on s.company_id = m.company_id and s.id = m.service_id) r),
     'company', (select row_to_json(c)
                   from (select name, plan, billing_status, package_name, package_expires_at,
                                messages_limit, subscribers_limit, services_limit,
                                (select messages_used from company_monthly_usage u
                                  where u.company_id = $1::bigint and u.month = $2::date) as messages_used
                           from companies where id = $1::bigint) c)) as figures
     from (select count(*)::int as total, count(*) filter (where status = 'active')::int as active
             from services where company_id = $1::bigint) sv,
          (${monthFigures('company_id = $1::bigint and')}) month`,
);

// Every company: the same figures summed, and the companies per plan and status. $1, the company,
// is null (named so that both statements take the same values).
const PLATFORM_FIGURES = namedStatement(
  'dashboard_platform',
  `select ${RESET_PLANS}, json_build_object(
     'services_total', sv.total, 'services_active', sv.active,
     'active_subscribers', (select coalesce(sum(subscriber_count), 0) from company_subscriber_counts
                             where status = 'active'),
     'messages_sent', (select coalesce(sum(${HANDED_OVER}), 0) from company_monthly_activity),
     'month', month,
     'sent_last_month_hours', (select coalesce(sum(${HANDED_OVER}), 0) from company_hourly_activity
                                where hour >= ($4::date::timestamp at time zone 'UTC') and hour < $5::timestamptz),
     'audit', (select coalesce(json_agg(a order by a.created_at desc, a.id desc), '[]')
                 from (select ${AUDIT_COLUMNS} from audit_logs where ${AUDIT_SHOWN}
                        order by created_at desc, id desc limit $6::int) a),
     'messages', (select coalesce(json_agg(r order by r.created_at desc, r.id desc), '[]')
                    from (select ${RECENT_MESSAGE_COLUMNS}
                            from (select * from messages order by created_at desc, id desc limit $6::int) m
                            left join services s on s.company_id = m.company_id and s.id = m.service_id) r),
     'companies', (select coalesce(json_agg(c), '[]')
                     from (select plan, status, count(*)::int as companies from companies group by plan, status) c)) as figures
     from (select count(*)::int as total, count(*) filter (where status = 'active')::int as active from services) sv,
          (${monthFigures('')}) month
    where $1::bigint is null`,
);

/**
 * Everything the dashboard reads, in one statement planned once per connection: services and
 * active ones (few rows per company), active subscribers (per-status counters), all-time recipients
 * handed over (monthly rollup), this month against last (the stock figures' net change since this
 * month began, and messages handed over this month so far and in the same span of last month: whole
 * days from the daily rollup, the part-day where last month's span ends from the hourly one), the
 * newest audit entries and messages, and either the company's billing, limits and usage or every
 * company per plan and status.
 */
export async function findDashboardFigures(
  db: Executor,
  companyId: Scope,
  window: MonthWindow,
  recent: number,
) {
  const rows = await runPlannedOnce<{ figures: FiguresJson }>(
    db,
    companyId === null ? PLATFORM_FIGURES : COMPANY_FIGURES,
    [
      companyId,
      isoDay(window.thisMonth),
      isoDay(window.lastMonth),
      isoDay(window.lastMonthSameSpanEnd),
      window.lastMonthSameSpanEnd,
      recent,
    ],
  );
  const figures = rows[0].figures;
  const { month } = figures;
  const company = figures.company;
  return {
    services: { total: figures.services_total, active: figures.services_active },
    activeSubscribers: Number(figures.active_subscribers),
    messagesSent: Number(figures.messages_sent),
    month: {
      servicesSince: Number(month.services_since),
      activeServicesSince: Number(month.active_services_since),
      activeSubscribersSince: Number(month.active_subscribers_since),
      sentThisMonth: Number(month.sent_this_month),
      sentLastMonth: Number(month.sent_last_month_days) + Number(figures.sent_last_month_hours),
    },
    audit: figures.audit.map((row): AuditRow => ({ ...row, created_at: new Date(row.created_at) })),
    messages: figures.messages.map(
      (row): RecentMessageRow => ({
        ...row,
        created_at: new Date(row.created_at),
        updated_at: new Date(row.updated_at),
      }),
    ),
    company: company
      ? ({
          ...company,
          package_expires_at: company.package_expires_at ? new Date(company.package_expires_at) : null,
          messages_used: Number(company.messages_used ?? 0),
        } satisfies CompanyBillingRow)
      : null,
    companies: figures.companies ?? [],
  };
}
