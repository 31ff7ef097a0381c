import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** null: every company (the platform scope); otherwise one company. */
export type Scope = number | null;

const forCompany = (column: string, companyId: Scope) =>
  companyId === null ? sql`true` : sql`${sql.ref(column)} = ${companyId}`;

/** Recipients handed to the provider: every status but pending. */
const HANDED_OVER = sql`(submitted + sent + delivered + failed + rejected + expired)`;

const isoDay = (at: Date) => at.toISOString().slice(0, 10);

export type MonthWindow = { thisMonth: Date; lastMonth: Date; lastMonthSameSpanEnd: Date };

/**
 * The dashboard's headline figures in one statement (one round trip instead of four): services
 * and active ones (few rows per company), active subscribers (per-status counters), all-time
 * recipients handed over (monthly rollup), and this month against last: the stock figures' net
 * change since this month began, and messages handed over this month so far and in the same span
 * of last month. Whole days come from the daily rollup; the part-day where last month's span ends
 * from the hourly one.
 */
export async function findHeadlineFigures(db: Executor, companyId: Scope, window: MonthWindow) {
  const spanEndDay = new Date(`${isoDay(window.lastMonthSameSpanEnd)}T00:00:00Z`);
  const thisMonth = isoDay(window.thisMonth);
  const { rows } = await sql<{
    services_total: number;
    services_active: number;
    active_subscribers: number;
    messages_sent: number;
    services_since: number;
    active_services_since: number;
    active_subscribers_since: number;
    sent_this_month: number;
    sent_last_month_days: number;
    sent_last_month_hours: number;
  }>`
    select sv.total as services_total, sv.active as services_active, sb.active as active_subscribers,
           sent.total as messages_sent, month.*
      from (select count(*)::int as total, count(*) filter (where status = 'active')::int as active
              from services where ${forCompany('company_id', companyId)}) sv,
           (select coalesce(sum(subscriber_count), 0)::bigint as active
              from company_subscriber_counts
             where status = 'active' and ${forCompany('company_id', companyId)}) sb,
           (select coalesce(sum(${HANDED_OVER}), 0)::bigint as total
              from company_monthly_activity where ${forCompany('company_id', companyId)}) sent,
           (select coalesce(sum(services_delta) filter (where day >= ${thisMonth}::date), 0)::bigint as services_since,
                   coalesce(sum(active_services_delta) filter (where day >= ${thisMonth}::date), 0)::bigint as active_services_since,
                   coalesce(sum(active_subscribers_delta) filter (where day >= ${thisMonth}::date), 0)::bigint as active_subscribers_since,
                   coalesce(sum(${HANDED_OVER}) filter (where day >= ${thisMonth}::date), 0)::bigint as sent_this_month,
                   coalesce(sum(${HANDED_OVER}) filter (where day < ${isoDay(spanEndDay)}::date), 0)::bigint as sent_last_month_days,
                   (select coalesce(sum(${HANDED_OVER}), 0)::bigint from company_hourly_activity
                     where ${forCompany('company_id', companyId)}
                       and hour >= ${spanEndDay} and hour < ${window.lastMonthSameSpanEnd}) as sent_last_month_hours
              from company_daily_activity
             where ${forCompany('company_id', companyId)} and day >= ${isoDay(window.lastMonth)}::date) month`.execute(
    db,
  );
  const row = rows[0];
  return {
    services: { total: row.services_total, active: row.services_active },
    activeSubscribers: Number(row.active_subscribers),
    messagesSent: Number(row.messages_sent),
    month: {
      servicesSince: Number(row.services_since),
      activeServicesSince: Number(row.active_services_since),
      activeSubscribersSince: Number(row.active_subscribers_since),
      sentThisMonth: Number(row.sent_this_month),
      sentLastMonth: Number(row.sent_last_month_days) + Number(row.sent_last_month_hours),
    },
  };
}

export function findCompanyBilling(db: Executor, companyId: number) {
  return db
    .selectFrom('companies')
    .select(['name', 'plan', 'billing_status', 'package_name', 'package_expires_at'])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

/** Companies per plan and status: the platform overview and its revenue. */
export async function countCompaniesByPlanAndStatus(db: Executor) {
  const { rows } = await sql<{ plan: string; status: string; companies: number }>`
    select plan, status, count(*)::int as companies from companies group by plan, status`.execute(db);
  return rows;
}

/** Sign-ins and sign-outs are not news on a dashboard; message events come from the messages themselves. */
const QUIET_ACTIONS = ['LOGIN', 'LOGOUT'];

export async function findRecentAudit(db: Executor, companyId: Scope, limit: number) {
  const { rows } = await sql<{
    id: number;
    action: string;
    entity: string;
    entity_id: string | null;
    user_name: string | null;
    details: Record<string, unknown>;
    created_at: Date;
  }>`
    select id, action, entity, entity_id, user_name, details, created_at
      from audit_logs
     where ${forCompany('company_id', companyId)}
       and action <> all(${QUIET_ACTIONS}::text[]) and entity <> 'MESSAGE'
     order by created_at desc, id desc
     limit ${limit}`.execute(db);
  return rows;
}

export async function findRecentMessages(db: Executor, companyId: Scope, limit: number) {
  const { rows } = await sql<{
    id: number;
    direction: string;
    status: string;
    content: string;
    msisdn: string | null;
    recipient_count: number | null;
    service_name: string | null;
    created_at: Date;
    updated_at: Date;
  }>`
    select m.id, m.direction, m.status, m.content, m.msisdn, m.recipient_count, s.name as service_name,
           m.created_at, m.updated_at
      from (select * from messages
             where ${forCompany('company_id', companyId)}
             order by created_at desc, id desc
             limit ${limit}) m
      left join services s on s.company_id = m.company_id and s.id = m.service_id
                          and ${forCompany('s.company_id', companyId)}
     order by m.created_at desc, m.id desc`.execute(db);
  return rows;
}
