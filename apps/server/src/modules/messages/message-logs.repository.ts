import { MESSAGE_COUNT_CAP } from '@sms/contracts/messages/list-messages';
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

/** The filter's conditions on messages m, other than the company and the search. */
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
  return parts;
}

/**
 * How many of a search's newest matches a count, or a page narrowed by another filter too, looks
 * at: one more than the list's count cap.
 */
const SEARCH_WINDOW = MESSAGE_COUNT_CAP + 1;

/**
 * The newest matches of a search, at most `limit`, as (company_id, message_id, created_at) rows s:
 * found by migration 0018's search_message_ids on its own trigram index (a LIKE on messages
 * cannot use one under row-level security), scoped by the transaction's binding as the policies
 * are. Only ids: whatever reads the rows joins messages, under row-level security.
 */
const searchMatches = (filter: MessageFilter & { search: string }, limit: number, few = false) =>
  sql`search_message_ids(${filter.companyId}::bigint, ${likePattern(filter.search)}::text, ${limit}::int, ${few}::boolean) s`;

/** The search's matches that pass the filter's other conditions, as rows s joined to messages m. */
const searchedMessages = (filter: MessageFilter & { search: string }, limit: number, few: boolean) => sql`
  ${searchMatches(filter, limit, few)}
  join messages m on m.company_id = s.company_id and m.id = s.message_id
  where ${whereAll(conditions(filter))}`;

export const hasSearch = (filter: MessageFilter): filter is MessageFilter & { search: string } =>
  !!filter.search;

const whereAll = (parts: RawBuilder<unknown>[]) =>
  parts.length === 0 ? sql`true` : sql.join(parts, sql` and `);

/**
 * Across every company with a status filter, each company's newest matches come from its own
 * (company_id, status, created_at) index and are merged: one status index scan per company
 * instead of walking all messages for a rare status.
 */
const mergesPerCompany = (filter: MessageFilter) =>
  filter.companyId === null && filter.statuses !== null && !filter.search;

/**
 * The keys of one page, newest first (the company with the id: messages are keyed by both). few: a
 * search's matches were all counted (an exact total), so they are looked up by trigram and sorted
 * rather than found by walking the newest messages (search_message_ids, migration 0027).
 */
function pageKeys(filter: MessageFilter, offset: number, limit: number, few: boolean) {
  if (hasSearch(filter)) {
    // Narrowed by another filter too, the page is read from the search's newest matches.
    const candidates = Math.max(offset + limit, conditions(filter).length > 0 ? SEARCH_WINDOW : 0);
    return sql`
      select s.company_id, s.message_id as id, s.created_at from ${searchedMessages(filter, candidates, few)}
       order by s.created_at desc, s.message_id desc
       offset ${offset} limit ${limit}`;
  }
  const where = whereAll(conditions(filter));
  if (filter.companyId !== null)
    return sql`
      select m.company_id, m.id, m.created_at from messages m
       where m.company_id = ${filter.companyId} and ${where}
       order by m.created_at desc, m.id desc
       offset ${offset} limit ${limit}`;
  if (mergesPerCompany(filter))
    return sql`
      select c.id as company_id, p.id, p.created_at from companies c
       cross join lateral (
         select m.id, m.created_at from messages m
          where m.company_id = c.id and ${where}
          order by m.created_at desc, m.id desc
          limit ${offset + limit}) p
       order by p.created_at desc, p.id desc
       offset ${offset} limit ${limit}`;
  return sql`
    select m.company_id, m.id, m.created_at from messages m where ${where}
     order by m.created_at desc, m.id desc
     offset ${offset} limit ${limit}`;
}

const MESSAGE_COLUMNS = sql`
  m.id, m.company_id, c.name as company_name, m.service_id, s.name as service_name,
  m.service_ids::int[] as service_ids, m.direction, m.content, m.msisdn, m.status, m.scheduled_at,
  m.sent_at, m.created_at, m.recipient_count, m.queue_job_id, m.encoding, m.parts`;

/**
 * One page of messages, newest first, with their company's and service's names: the page's keys
 * are found first (on an index, nothing else read) and only its rows are then joined, in one
 * statement.
 */
export async function listMessagePage(
  db: Executor,
  filter: MessageFilter,
  offset: number,
  limit: number,
  few = false,
) {
  const { rows } = await sql<MessageRow>`
    select ${MESSAGE_COLUMNS}
      from (${pageKeys(filter, offset, limit, few)}) p
      join messages m on m.company_id = p.company_id and m.id = p.id
      join companies c on c.id = m.company_id
      left join services s on s.company_id = m.company_id and s.id = m.service_id
     order by p.created_at desc, p.id desc`.execute(db);
  return rows;
}

type Json<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

/** A page row as migration 0030's message_list_page writes it (times as ISO text). */
const messageRowOf = (row: Json<MessageRow>): MessageRow => ({
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
  const { rows } = await sql<
    MessageRow & {
      send_state: string | null;
      recipients_at: Date | null;
      recipients: number | null;
      started_at: Date | null;
      fanout_finished_at: Date | null;
      handed_over_at: Date | null;
      send_updated_at: Date | null;
    } & DeliveryCounts
  >`select * from message_with_state(${id}::bigint, ${companyId}::bigint)`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const {
    send_state,
    recipients_at,
    recipients,
    started_at,
    fanout_finished_at,
    handed_over_at,
    send_updated_at,
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
        };
  const counts: DeliveryCounts = { pending, submitted, sent, delivered, failed, rejected, expired };
  return { message: message as MessageRow, send, counts };
}

/**
 * A search's matches counted as (n, more): n counted up to cap + 1 of its newest matches; more
 * when that window was full, so that matches older than it were not looked at (only then can
 * n <= cap be short of the total).
 */
function searchCountColumns(filter: MessageFilter & { search: string }, cap: number) {
  // The function's ids are the caller's already: only other conditions need the messages. With
  // none, any cap + 1 matches count as well as the newest: counted unordered (migration 0020), and
  // no further than the cap needs.
  if (conditions(filter).length === 0)
    return sql`select c.n, c.n > ${cap} as more
                 from count_message_matches(${filter.companyId}::bigint, ${likePattern(filter.search)}::text, ${cap + 1}::int) c(n)`;
  // Narrowed by another filter too, the count and the page come from the same newest matches.
  const window = Math.max(cap + 1, SEARCH_WINDOW);
  // Every match joined to its message: one that fails the other conditions is not counted.
  return sql`select count(m.id)::int as n, count(*) >= ${window} as more
               from ${searchMatches(filter, window)}
               left join messages m on m.company_id = s.company_id and m.id = s.message_id
                and ${whereAll(conditions(filter))}`;
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

export type MessageCounts = { byStatus: StatusCount[]; searched: CappedCount | null };

/**
 * The messages of a company (null: every company the binding sees) per direction and status,
 * exact, from migration 0020's counters: a few rows, whatever the number of messages. With a
 * search, its own count too (capped, see searchCountColumns), in the same statement.
 */
export async function countMessages(
  db: Executor,
  companyId: number | null,
  search: { filter: MessageFilter & { search: string }; cap: number } | null,
): Promise<MessageCounts> {
  const ofCompany = companyId === null ? sql`true` : sql`company_id = ${companyId}`;
  const byStatus = sql`
    select direction, status, sum(messages)::bigint as n, null::boolean as more
      from message_status_counts where ${ofCompany}
     group by direction, status having sum(messages) <> 0`;
  const { rows } = await sql<{
    direction: string | null;
    status: string | null;
    n: string | number;
    more: boolean | null;
  }>`
    ${byStatus}
    ${search ? sql`union all select null, null, s.n, s.more from (${searchCountColumns(search.filter, search.cap)}) s` : sql``}`.execute(
    db,
  );
  const byStatusRows = rows.flatMap((row) =>
    row.direction !== null && row.status !== null
      ? [{ direction: row.direction, status: row.status, messages: Number(row.n) }]
      : [],
  );
  const searchRow = rows.find((row) => row.direction === null);
  return {
    byStatus: byStatusRows,
    searched: search && searchRow ? cappedCount(searchRow, search.cap) : null,
  };
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
 * A page of a message's recipients in the order they were resolved. All rows of a message share
 * one created_at (recipientsAt), so the read touches one partition, by its primary key.
 */
export async function listDeliveryReports(
  db: Executor,
  where: { companyId: number; messageId: number; recipientsAt: Date; status?: string; fromId?: number },
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
       ${where.fromId ? sql`and d.id >= ${where.fromId}` : sql``}
     order by d.id
     offset ${offset} limit ${limit}`.execute(db);
  return rows;
}
