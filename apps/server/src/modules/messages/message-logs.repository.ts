import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/**
 * Which messages a list or count reads. companyId null is every company (system_admin).
 * statuses null is any status; an empty list matches nothing (a chip and a status that exclude
 * each other).
 */
export type MessageFilter = {
  companyId: number | null;
  direction?: string;
  statuses: readonly string[] | null;
  /** Lower-cased text to find anywhere in the content (or the msisdn when it has a digit). */
  search?: string;
};

export type MessageRow = {
  id: number;
  company_id: number;
  company_name: string;
  service_id: number | null;
  service_name: string | null;
  service_ids: number[];
  direction: string;
  content: string;
  msisdn: string | null;
  status: string;
  scheduled_at: Date | null;
  sent_at: Date | null;
  created_at: Date;
  recipient_count: number | null;
  queue_job_id: string | null;
  encoding: string | null;
  parts: number | null;
};

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** The filter's conditions on messages m, other than the company. */
function conditions(filter: MessageFilter): RawBuilder<unknown>[] {
  const parts: RawBuilder<unknown>[] = [];
  if (filter.direction === 'inbound') {
    // Inbound messages are always stored as received: saying so lets the planner use the
    // (company_id, status, created_at) index instead of walking every outbound message.
    parts.push(sql`m.direction = 'inbound' and m.status = 'received'`);
  } else if (filter.direction) parts.push(sql`m.direction = ${filter.direction}`);
  if (filter.statuses !== null) {
    // One status as plain equality: the (company_id, status, created_at) index then yields the
    // newest first without a sort.
    parts.push(
      filter.statuses.length === 0
        ? sql`false`
        : filter.statuses.length === 1
          ? sql`m.status = ${filter.statuses[0]}`
          : sql`m.status = any(${[...filter.statuses]}::text[])`,
    );
  }
  if (filter.search) {
    const pattern = likePattern(filter.search);
    // lower(content) is what the trigram index holds; a phone number has digits, so a search
    // without any cannot match one and stays on that index alone.
    parts.push(
      /\d/.test(filter.search)
        ? sql`(lower(m.content) like ${pattern} or m.msisdn like ${pattern})`
        : sql`lower(m.content) like ${pattern}`,
    );
  }
  return parts;
}

const whereAll = (parts: RawBuilder<unknown>[]) =>
  parts.length === 0 ? sql`true` : sql.join(parts, sql` and `);

/**
 * Across every company with a status filter, each company's newest matches come from its own
 * (company_id, status, created_at) index and are merged: one status index scan per company
 * instead of walking all messages for a rare status.
 */
const mergesPerCompany = (filter: MessageFilter) =>
  filter.companyId === null && filter.statuses !== null && !filter.search;

/** The ids of one page, newest first. */
export async function listMessageIds(db: Executor, filter: MessageFilter, offset: number, limit: number) {
  const where = whereAll(conditions(filter));
  if (filter.companyId !== null) {
    const { rows } = await sql<{ id: number }>`
      select m.id from messages m
       where m.company_id = ${filter.companyId} and ${where}
       order by m.created_at desc, m.id desc
       offset ${offset} limit ${limit}`.execute(db);
    return rows.map((row) => row.id);
  }
  if (mergesPerCompany(filter)) {
    const { rows } = await sql<{ id: number }>`
      select p.id from companies c
       cross join lateral (
         select m.id, m.created_at from messages m
          where m.company_id = c.id and ${where}
          order by m.created_at desc, m.id desc
          limit ${offset + limit}) p
       order by p.created_at desc, p.id desc
       offset ${offset} limit ${limit}`.execute(db);
    return rows.map((row) => row.id);
  }
  const { rows } = await sql<{ id: number }>`
    select m.id from messages m where ${where}
     order by m.created_at desc, m.id desc
     offset ${offset} limit ${limit}`.execute(db);
  return rows.map((row) => row.id);
}

const MESSAGE_COLUMNS = sql`
  m.id, m.company_id, c.name as company_name, m.service_id, s.name as service_name,
  m.service_ids::int[] as service_ids, m.direction, m.content, m.msisdn, m.status, m.scheduled_at,
  m.sent_at, m.created_at, m.recipient_count, m.queue_job_id, m.encoding, m.parts`;

/** The messages of a page (in the page's order), with their company's and service's names. */
export async function findMessagesByIds(db: Executor, ids: number[]) {
  if (ids.length === 0) return [];
  const { rows } = await sql<MessageRow>`
    select ${MESSAGE_COLUMNS}
      from unnest(${ids}::bigint[]) with ordinality as p(id, position)
      join messages m on m.id = p.id
      join companies c on c.id = m.company_id
      left join services s on s.id = m.service_id
     order by p.position`.execute(db);
  return rows;
}

/** One message, if the company (null: any) owns it. */
export async function findMessage(db: Executor, id: number, companyId: number | null) {
  const { rows } = await sql<MessageRow>`
    select ${MESSAGE_COLUMNS}
      from messages m
      join companies c on c.id = m.company_id
      left join services s on s.id = m.service_id
     where m.id = ${id} ${companyId === null ? sql`` : sql`and m.company_id = ${companyId}`}`.execute(db);
  return rows[0];
}

/**
 * How many messages match, counting no further than cap + 1: exact below the cap, "at least cap"
 * above it. Across every company the count walks company by company and stops as soon as it has
 * seen enough.
 */
export async function countMessagesUpTo(db: Executor, filter: MessageFilter, cap: number) {
  const where = whereAll(conditions(filter));
  const matches =
    filter.companyId !== null
      ? sql`select 1 from messages m where m.company_id = ${filter.companyId} and ${where} limit ${cap + 1}`
      : filter.search
        ? sql`select 1 from messages m where ${where} limit ${cap + 1}`
        : sql`select 1 from companies c
               cross join lateral (select 1 from messages m where m.company_id = c.id and ${where} limit ${cap + 1}) x
               limit ${cap + 1}`;
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from (${matches}) counted`.execute(db);
  const n = rows[0]?.n ?? 0;
  return n > cap ? { total: cap, exact: false } : { total: n, exact: true };
}

export type MessageSendRow = {
  state: string;
  recipients_at: Date | null;
  recipients: number;
  started_at: Date | null;
  fanout_finished_at: Date | null;
  handed_over_at: Date | null;
  updated_at: Date;
};

/** The engine's per-message send state (migration 0006), if the message was ever queued. */
export async function findMessageSend(db: Executor, companyId: number, messageId: number) {
  const { rows } = await sql<MessageSendRow>`
    select state, recipients_at, recipients, started_at, fanout_finished_at, handed_over_at, updated_at
      from message_sends where company_id = ${companyId} and message_id = ${messageId}`.execute(db);
  return rows[0];
}

export type DeliveryCounts = Record<
  'pending' | 'submitted' | 'sent' | 'delivered' | 'failed' | 'rejected' | 'expired',
  number
>;

/** Recipients per status, from the per-message counters (a few shard rows), never from the recipients. */
export async function findDeliveryCounts(db: Executor, companyId: number, messageId: number) {
  const { rows } = await sql<DeliveryCounts>`
    select coalesce(sum(pending), 0)::int as pending, coalesce(sum(submitted), 0)::int as submitted,
           coalesce(sum(sent), 0)::int as sent, coalesce(sum(delivered), 0)::int as delivered,
           coalesce(sum(failed), 0)::int as failed, coalesce(sum(rejected), 0)::int as rejected,
           coalesce(sum(expired), 0)::int as expired
      from message_delivery_counts
     where company_id = ${companyId} and message_id = ${messageId}`.execute(db);
  return rows[0]!;
}

export type DeliveryReportRow = {
  id: number;
  recipient_phone: string;
  status: string;
  gateway_message_id: string | null;
  delivered_at: Date | null;
  error_message: string | null;
  attempts: number;
  updated_at: Date;
};

/**
 * A page of a message's recipients in the order they were resolved. All rows of a message share
 * one created_at (recipientsAt), so the read touches one partition, by its primary key.
 */
export async function listDeliveryReports(
  db: Executor,
  where: { companyId: number; messageId: number; recipientsAt: Date; status?: string },
  offset: number,
  limit: number,
) {
  const { rows } = await sql<DeliveryReportRow>`
    select d.id, d.recipient_phone, d.status, d.gateway_message_id, d.delivered_at, d.error_message,
           d.attempts::int as attempts, d.updated_at
      from delivery_reports d
     where d.company_id = ${where.companyId} and d.message_id = ${where.messageId}
       and d.created_at = ${where.recipientsAt}
       ${where.status ? sql`and d.status = ${where.status}` : sql``}
     order by d.id
     offset ${offset} limit ${limit}`.execute(db);
  return rows;
}
