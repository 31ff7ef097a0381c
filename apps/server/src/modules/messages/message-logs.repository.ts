import { sql } from 'kysely';
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

const MESSAGE_COLUMNS = sql`
  m.id, m.company_id, c.name as company_name, m.service_id, s.name as service_name,
  m.service_ids::int[] as service_ids, m.direction, m.content, m.msisdn, m.status, m.scheduled_at,
  m.sent_at, m.created_at, m.recipient_count, m.queue_job_id, m.encoding, m.parts`;

export type Json<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

/** A page row as migration 0030's message_list_page writes it (times as ISO text). */
export const messageRowOf = (row: Json<MessageRow>): MessageRow => ({
  ...row,
  scheduled_at: row.scheduled_at === null ? null : new Date(row.scheduled_at),
  sent_at: row.sent_at === null ? null : new Date(row.sent_at),
  created_at: new Date(row.created_at),
});

/**
 * The statuses a filter without a search reads, as message_list_page takes them: inbound messages
 * are always stored as received, so an inbound filter is that status (the rule of `conditions` and
 * `filterCounts`).
 */
function statusesOf(filter: MessageFilter): readonly string[] | null {
  if (filter.direction !== 'inbound') return filter.statuses;
  return filter.statuses === null || filter.statuses.includes('received') ? ['received'] : [];
}

/**
 * A list without a search in one call (migration 0030's message_list_page, its statements planned
 * once per connection): the counters per direction and status (as countMessages) and one page,
 * newest first, with its company's and service's names. A page past the counters' exact total of
 * the filter is not read.
 */
export async function listMessagesWithCounts(
  db: Executor,
  filter: MessageFilter,
  offset: number,
  limit: number,
): Promise<{ byStatus: StatusCount[]; rows: MessageRow[] }> {
  const statuses = statusesOf(filter);
  const { rows } = await sql<{ page: { counts: StatusCount[]; messages: Json<MessageRow>[] } }>`
    select message_list_page(${filter.companyId}::bigint, ${filter.direction ?? null}::text,
                             ${statuses === null ? null : [...statuses]}::text[], ${offset}::int, ${limit}::int) as page`.execute(
    db,
  );
  const { counts, messages } = rows[0].page;
  return {
    byStatus: counts.map((count) => ({ ...count, messages: Number(count.messages) })),
    rows: messages.map(messageRowOf),
  };
}

export const hasSearch = (filter: MessageFilter): filter is MessageFilter & { search: string } =>
  !!filter.search;

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/**
 * A searched list in one call (migration 0030's message_search_page): the counters per direction
 * and status, the search's total and one page. The total is counted up to `cap` (see
 * searchCountCap): without another filter over all matches, with one over the newest 10,001
 * matches (MESSAGE_COUNT_CAP + 1), so "not exact" past either. The matches come from 0018's side
 * table through search_message_ids (a LIKE on messages cannot use an index under row-level
 * security), and are joined to messages under row-level security.
 */
export async function searchMessagesWithCounts(
  db: Executor,
  filter: MessageFilter & { search: string },
  offset: number,
  limit: number,
  cap: number,
): Promise<{ byStatus: StatusCount[]; searched: CappedCount; rows: MessageRow[] }> {
  const statuses = statusesOf(filter);
  const { rows } = await sql<{
    page: { counts: StatusCount[]; searched: { n: number; more: boolean }; messages: Json<MessageRow>[] };
  }>`
    select message_search_page(${filter.companyId}::bigint, ${likePattern(filter.search)}::text,
                               ${filter.direction ?? null}::text, ${statuses === null ? null : [...statuses]}::text[],
                               ${offset}::int, ${limit}::int, ${cap}::int) as page`.execute(db);
  const { counts, searched, messages } = rows[0].page;
  return {
    byStatus: counts.map((count) => ({ ...count, messages: Number(count.messages) })),
    searched: cappedCount(searched, cap),
    rows: messages.map(messageRowOf),
  };
}

/** One message, if the company (null: any) owns it. */
export async function findMessage(db: Executor, id: number, companyId: number | null) {
  const { rows } = await sql<MessageRow>`
    select ${MESSAGE_COLUMNS}
      from messages m
      join companies c on c.id = m.company_id
      left join services s on s.company_id = m.company_id and s.id = m.service_id
     where m.id = ${id} ${companyId === null ? sql`` : sql`and m.company_id = ${companyId}`}`.execute(db);
  return rows[0];
}

/**
 * One message if the company (null: any) owns it, with its send state (if it was ever queued) and
 * its recipients per status from the per-message counters: migration 0027's message_with_state,
 * one round trip planned once per connection.
 */
export async function findMessageWithState(db: Executor, id: number, companyId: number | null) {
  const { rows } =
    await sql<MessageWithStateRow>`select * from message_with_state(${id}::bigint, ${companyId}::bigint)`.execute(
      db,
    );
  return rows[0] && splitMessageWithState(rows[0]);
}

/** A row of message_with_state (migration 0027), and of message_details_page's message (0037). */
export type MessageWithStateRow = MessageRow & {
  send_state: string | null;
  recipients_at: Date | null;
  recipients: number | null;
  started_at: Date | null;
  fanout_finished_at: Date | null;
  handed_over_at: Date | null;
  send_updated_at: Date | null;
  /** Since migration 0046. */
  send_failed_reason: string | null;
} & DeliveryCounts;

/** The message, its send (undefined: never queued) and its delivery counts, from one row. */
export function splitMessageWithState(row: MessageWithStateRow) {
  const {
    send_state,
    recipients_at,
    recipients,
    started_at,
    fanout_finished_at,
    handed_over_at,
    send_updated_at,
    send_failed_reason,
    pending,
    submitted,
    sent,
    delivered,
    failed,
    rejected,
    expired,
    ...message
  } = row;
  const send: MessageSendRow | undefined =
    send_state === null
      ? undefined
      : {
          state: send_state,
          recipients_at,
          recipients: recipients ?? 0,
          started_at,
          fanout_finished_at,
          handed_over_at,
          updated_at: send_updated_at as Date,
          failed_reason: send_failed_reason ?? null,
        };
  const counts: DeliveryCounts = { pending, submitted, sent, delivered, failed, rejected, expired };
  return { message: message as MessageRow, send, counts };
}

export type CappedCount = { total: number; exact: boolean };

/** How many of the caller's messages have one direction and status (exact). */
export type StatusCount = { direction: string; status: string; messages: number };

/**
 * Whether the messages counted under (direction, status) are the ones the filter's conditions
 * (other than the company and the search) select: the same rule as `conditions`, for the counters.
 */
export function filterCounts(filter: MessageFilter, count: { direction: string; status: string }) {
  if (filter.direction && count.direction !== filter.direction) return false;
  if (filter.direction === 'inbound' && count.status !== 'received') return false;
  return filter.statuses === null || filter.statuses.includes(count.status);
}

function cappedCount(row: { n: string | number; more: boolean | null }, cap: number): CappedCount {
  const n = Number(row.n);
  return n > cap ? { total: cap, exact: false } : { total: n, exact: row.more !== true };
}

export type MessageSendRow = {
  state: string;
  recipients_at: Date | null;
  recipients: number;
  started_at: Date | null;
  fanout_finished_at: Date | null;
  handed_over_at: Date | null;
  updated_at: Date;
  failed_reason: string | null;
};

export type DeliveryCounts = Record<
  'pending' | 'submitted' | 'sent' | 'delivered' | 'failed' | 'rejected' | 'expired',
  number
>;

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
 * A page of a message's recipients in the order they were resolved (migration 0037's
 * recipient_page_columns, planned once per connection). All rows of a message share one created_at
 * (recipientsAt), so the read touches one partition, by its primary key.
 */
export async function listDeliveryReports(
  db: Executor,
  where: { companyId: number; messageId: number; recipientsAt: Date; status?: string; fromId?: number },
  offset: number,
  limit: number,
): Promise<DeliveryReportRow[]> {
  const { rows } = await sql<{ page: RecipientColumns }>`
    select recipient_page_columns(${where.companyId}::bigint, ${where.messageId}::bigint, ${where.recipientsAt}::timestamptz,
                                  ${where.status ?? null}::text, ${where.fromId ?? 0}::bigint, ${offset}::int, ${limit}::int) as page`.execute(
    db,
  );
  return deliveryReportsOf(rows[0].page);
}

/** recipient_page_columns' answer (migration 0037): one array a column, times as ISO text. */
export type RecipientColumns = {
  ids: number[];
  phones: string[];
  statuses: string[];
  gateway_ids: (string | null)[];
  delivered: (string | null)[];
  errors: (string | null)[];
  attempts: number[];
  updated: string[];
};

export const deliveryReportsOf = (page: RecipientColumns): DeliveryReportRow[] =>
  page.ids.map((id, i) => ({
    id,
    recipient_phone: page.phones[i],
    status: page.statuses[i],
    gateway_message_id: page.gateway_ids[i],
    delivered_at: page.delivered[i] === null ? null : new Date(page.delivered[i] as string),
    error_message: page.errors[i],
    attempts: page.attempts[i],
    updated_at: new Date(page.updated[i]),
  }));

/** What a list row shows beyond its columns: a cancel's who and when, a send's hand-over so far. */
export type MessageExtrasRow = {
  id: number;
  cancelled_at: Date | null;
  cancelled_by_name: string | null;
  handed_over: number | null;
  recipients: number | null;
};

/**
 * The extras of a few messages of a page (those cancelled or being handed over; the caller picks
 * them, so a page of finished sends costs no read), by their keys. Until the fan-out has resolved
 * every recipient, the total is at least the count estimated when the send was requested.
 */
export async function readMessageExtras(
  db: Executor,
  keys: readonly { companyId: number; id: number }[],
): Promise<Map<number, MessageExtrasRow>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<MessageExtrasRow>`
    select m.id, m.cancelled_at, m.cancelled_by_name,
           case when m.status in ('queued', 'processing') then dc.total - dc.pending end as handed_over,
           case when m.status not in ('queued', 'processing') then null
                when ms.state in ('dispatch', 'done') then dc.total
                else greatest(dc.total, coalesce(m.recipient_count, 0)) end as recipients
      from unnest(${`{${keys.map((key) => key.companyId).join(',')}}`}::bigint[],
                  ${`{${keys.map((key) => key.id).join(',')}}`}::bigint[]) k(company_id, id)
      join messages m on m.company_id = k.company_id and m.id = k.id
      left join message_sends ms on ms.company_id = m.company_id and ms.message_id = m.id
      cross join lateral (
        select coalesce(sum(d.pending + d.submitted + d.sent + d.delivered + d.failed + d.rejected + d.expired), 0)::int as total,
               coalesce(sum(d.pending), 0)::int as pending
          from message_delivery_counts d where d.company_id = m.company_id and d.message_id = m.id) dc`.execute(
    db,
  );
  return new Map(rows.map((row) => [Number(row.id), row]));
}
