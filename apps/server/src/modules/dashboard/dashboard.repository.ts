import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

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

/**
 * Everything the dashboard reads, from migration 0027's dashboard_figures: one round trip, its
 * statements planned once per connection. Services and active ones (few rows per company), active
 * subscribers (per-status counters), all-time recipients handed over (monthly rollup), this month
 * against last (the stock figures' net change since this month began, and messages handed over this
 * month so far and in the same span of last month: whole days from the daily rollup, the part-day
 * where last month's span ends from the hourly one), the newest audit entries and messages, and
 * either the company's billing, limits and usage or every company per plan and status.
 */
export async function findDashboardFigures(
  db: Executor,
  companyId: Scope,
  window: MonthWindow,
  recent: number,
) {
  const spanEndDay = isoDay(window.lastMonthSameSpanEnd);
  const { rows } = await sql<{ figures: FiguresJson }>`
    select dashboard_figures(${companyId}::bigint, ${isoDay(window.thisMonth)}::date,
                             ${isoDay(window.lastMonth)}::date, ${spanEndDay}::date,
                             ${window.lastMonthSameSpanEnd}::timestamptz, ${recent}::int) as figures`.execute(
    db,
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
