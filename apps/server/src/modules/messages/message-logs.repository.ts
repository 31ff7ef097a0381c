import { sql } from 'kysely';
import { type Executor, namedStatement } from '../../db/database.ts';
import { RESET_PLANS, resetPlans, runPlannedOnce, runStatement } from '../../lib/planned-once.ts';

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
  cancelled_at: Date | null;
  cancelled_by_name: string | null;
  /** A send in progress: recipients handed over so far, of how many. */
  handover: { handedOver: number; recipients: number } | null;
};

/**
 * A message as the lists show it (`m`: messages). A cancelled one says who and when; one being sent
 * says how many of its recipients were handed over and out of how many, read only for such a row:
 * until the fan-out has resolved every recipient, the total is at least the count estimated when
 * the send was requested.
 */
export const MESSAGE_COLUMNS_TEXT = `
  m.id, m.company_id, c.name as company_name, m.service_id, s.name as service_name,
  m.service_ids::int[] as service_ids, m.direction, m.content, m.msisdn, m.status, m.scheduled_at,
  m.sent_at, m.created_at, m.recipient_count, m.queue_job_id, m.encoding, m.parts,
  m.cancelled_at, m.cancelled_by_name,
  case when m.status in ('queued', 'processing') then (
    select json_build_object('handedOver', t.total - t.pending,
                             'recipients', case when ms.state in ('dispatch', 'done') then t.total
                                                else greatest(t.total, coalesce(m.recipient_count, 0)) end)
      from (select coalesce(sum(d.pending + d.submitted + d.sent + d.delivered + d.failed + d.rejected + d.expired), 0)::int as total,
                   coalesce(sum(d.pending), 0)::int as pending
              from message_delivery_counts d where d.company_id = m.company_id and d.message_id = m.id) t
      left join message_sends ms on ms.company_id = m.company_id and ms.message_id = m.id) end as handover`;
const MESSAGE_COLUMNS = sql.raw(MESSAGE_COLUMNS_TEXT);

export type Json<T> = {
  [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K];
};

/** A page row as the list's statements write it in JSON (times as ISO text). */
export const messageRowOf = (row: Json<MessageRow>): MessageRow => ({
  ...row,
  scheduled_at: row.scheduled_at === null ? null : new Date(row.scheduled_at),
  sent_at: row.sent_at === null ? null : new Date(row.sent_at),
  created_at: new Date(row.created_at),
  cancelled_at: row.cancelled_at === null ? null : new Date(row.cancelled_at),
});

/**
 * The statuses a filter without a search reads: inbound messages are always stored as received, so
 * an inbound filter is that status (the rule of `conditions` and `filterCounts`).
 */
export function statusesOf(filter: MessageFilter): readonly string[] | null {
  if (filter.direction !== 'inbound') return filter.statuses;
  return filter.statuses === null || filter.statuses.includes('received') ? ['received'] : [];
}

// The message list's statements, planned once per connection (lib/planned-once.ts; ADR 0012, "The
// lists planned once"). Planned for their values, the page's statement took 1.8 to 2.7 ms to plan
// and 0.5 to 1 ms to run, the counters' 0.3 ms to plan and 0.05 ms to run.
//
// The counters per direction and status, exact (message_status_counts), which also turn generic
// plans on for the page's statement that follows.
const countsOf = (where: string) => `
  select set_config('plan_cache_mode', 'force_generic_plan', true) as generic,
         coalesce(json_agg(json_build_object('direction', c.direction, 'status', c.status, 'messages', c.n)), '[]') as counts
    from (select direction, status, sum(messages) as n from message_status_counts ${where}
           group by direction, status having sum(messages) <> 0) c`;
const COMPANY_COUNTS = namedStatement('message_counts', countsOf('where company_id = $1::bigint'));
const PLATFORM_COUNTS = namedStatement('message_counts_platform', countsOf(''));

// A page named by its keys (`keys`: company_id, id, created_at, newest first), with its company's
// and service's names, as JSON; the statement that selects it ends the generic plans. Each row is
// read by its key (a lateral lookup, `limit 1` keeps it one): a generic plan guesses a tenth of
// the table for `limit $n` and would hash-join the whole of messages to the page's keys.
const pageOf = (keys: string) => `
  select ${RESET_PLANS} as reset,
         (select coalesce(json_agg(r order by r.created_at desc, r.id desc), '[]')
            from (select ${MESSAGE_COLUMNS_TEXT}
                    from (${keys}) k
                    cross join lateral (select * from messages m
                                         where m.company_id = k.company_id and m.id = k.id limit 1) m
                    join companies c on c.id = m.company_id
                    left join services s on s.company_id = m.company_id and s.id = m.service_id) r) as messages`;

// The shapes whose plan is the same for any company and any status:
// - no status and no direction: the (company_id, created_at, id) index walked newest first (every
//   company: the (created_at, id) index);
// - statuses or a direction: each status's newest from the (company_id, status, created_at, id)
//   index, merged, offset + limit per status at most. The statuses are the filter's that the
//   counters say have messages (in the direction asked for), read in the same transaction. A walk of
//   the company's newest filtered by status (what a generic plan chooses for `status = any($2)`)
//   walked 49,000 rows to find 20 pending ones: its cost depends on how common the status is, this
//   merge's does not.
// $1 company (none for every company), then offset, limit, statuses, direction.
const NEWEST = namedStatement(
  'message_page',
  pageOf(`select m.company_id, m.id, m.created_at from messages m where m.company_id = $1::bigint
           order by m.created_at desc, m.id desc offset $2::int limit $3::int`),
);
const NEWEST_PLATFORM = namedStatement(
  'message_page_platform',
  pageOf(`select m.company_id, m.id, m.created_at from messages m
           order by m.created_at desc, m.id desc offset $1::int limit $2::int`),
);
const byStatus = (from: string, company: string, offset: number, direction: string) => `
  select n.company_id, n.id, n.created_at
    from ${from}
    cross join lateral (select m.company_id, m.id, m.created_at from messages m
                         where m.company_id = ${company} and m.status = st.status${direction}
                         order by m.created_at desc, m.id desc limit $${offset}::int + $${offset + 1}::int) n
   order by n.created_at desc, n.id desc offset $${offset}::int limit $${offset + 1}::int`;
const BY_STATUS = namedStatement(
  'message_page_by_status',
  pageOf(byStatus('unnest($4::text[]) st(status)', '$1::bigint', 2, '')),
);
const BY_STATUS_AND_DIRECTION = namedStatement(
  'message_page_by_status_direction',
  pageOf(byStatus('unnest($4::text[]) st(status)', '$1::bigint', 2, ' and m.direction = $5::text')),
);
const BY_STATUS_PLATFORM = namedStatement(
  'message_page_by_status_platform',
  pageOf(byStatus('companies c cross join unnest($3::text[]) st(status)', 'c.id', 1, '')),
);
const BY_STATUS_AND_DIRECTION_PLATFORM = namedStatement(
  'message_page_by_status_direction_platform',
  pageOf(
    byStatus(
      'companies c cross join unnest($3::text[]) st(status)',
      'c.id',
      1,
      ' and m.direction = $4::text',
    ),
  ),
);

/**
 * A list without a search: the counters per direction and status (as countMessages) and one page,
 * newest first, with its company's and service's names. A page past the counters' exact total of
 * the filter is not read.
 */
export async function listMessagesWithCounts(
  db: Executor,
  filter: MessageFilter,
  offset: number,
  limit: number,
): Promise<{ byStatus: StatusCount[]; rows: MessageRow[] }> {
  const { companyId, direction = null } = filter;
  const statuses = statusesOf(filter);
  const [{ counts: raw }] = await runStatement<{ counts: StatusCount[] }>(
    db,
    companyId === null ? PLATFORM_COUNTS : COMPANY_COUNTS,
    companyId === null ? [] : [companyId],
  );
  const counts = raw.map((count) => ({ ...count, messages: Number(count.messages) }));
  const wanted = counts.filter(
    (count) =>
      (direction === null || count.direction === direction) &&
      (statuses === null || statuses.includes(count.status)),
  );
  const total = wanted.reduce((sum, count) => sum + count.messages, 0);
  if (offset >= total || limit < 1) {
    await resetPlans(db);
    return { byStatus: counts, rows: [] };
  }
  const withMessages = [
    ...new Set(wanted.filter((count) => count.messages > 0).map((count) => count.status)),
  ];
  const [{ messages }] = await runStatement<{ messages: Json<MessageRow>[] }>(
    db,
    ...pageStatement(companyId, direction, statuses, withMessages, offset, limit),
  );
  return { byStatus: counts, rows: messages.map(messageRowOf) };
}

function pageStatement(
  companyId: number | null,
  direction: string | null,
  statuses: readonly string[] | null,
  withMessages: string[],
  offset: number,
  limit: number,
): [string, unknown[]] {
  if (statuses === null && direction === null) {
    return companyId === null ? [NEWEST_PLATFORM, [offset, limit]] : [NEWEST, [companyId, offset, limit]];
  }
  if (companyId === null) {
    return direction === null
      ? [BY_STATUS_PLATFORM, [offset, limit, withMessages]]
      : [BY_STATUS_AND_DIRECTION_PLATFORM, [offset, limit, withMessages, direction]];
  }
  return direction === null
    ? [BY_STATUS, [companyId, offset, limit, withMessages]]
    : [BY_STATUS_AND_DIRECTION, [companyId, offset, limit, withMessages, direction]];
}

export const hasSearch = (filter: MessageFilter): filter is MessageFilter & { search: string } =>
  !!filter.search;

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

// A message with its send state and its recipients per status from the per-message counters, by
// its key. `first`: columns before the message's (a read that goes on turns generic plans on there,
// lib/planned-once.ts).
const messageWithState = (first: string, where: string) => `
  select ${first} ${MESSAGE_COLUMNS_TEXT},
         ms.state as send_state, ms.recipients_at, ms.recipients, ms.started_at, ms.fanout_finished_at,
         ms.handed_over_at, ms.updated_at as send_updated_at, dc.pending, dc.submitted, dc.sent,
         dc.delivered, dc.failed, dc.rejected, dc.expired, ms.failed_reason as send_failed_reason
    from messages m
    join companies c on c.id = m.company_id
    left join services s on s.company_id = m.company_id and s.id = m.service_id
    left join message_sends ms on ms.company_id = m.company_id and ms.message_id = m.id
    cross join lateral (
      select coalesce(sum(d.pending), 0)::int as pending, coalesce(sum(d.submitted), 0)::int as submitted,
             coalesce(sum(d.sent), 0)::int as sent, coalesce(sum(d.delivered), 0)::int as delivered,
             coalesce(sum(d.failed), 0)::int as failed, coalesce(sum(d.rejected), 0)::int as rejected,
             coalesce(sum(d.expired), 0)::int as expired
        from message_delivery_counts d where d.company_id = m.company_id and d.message_id = m.id) dc
   where ${where}`;
const BY_COMPANY_KEY = 'm.company_id = $2::bigint and m.id = $1::bigint';
const BY_ID = 'm.id = $1::bigint and $2::bigint is null';
const MESSAGE_WITH_STATE = namedStatement('message_with_state', messageWithState('', BY_COMPANY_KEY));
const MESSAGE_WITH_STATE_PLATFORM = namedStatement(
  'message_with_state_platform',
  messageWithState('', BY_ID),
);
const GENERIC = `set_config('plan_cache_mode', 'force_generic_plan', true) as generic,`;
/** The message of a read that goes on to its recipients (generic plans on). */
export const DETAILS_MESSAGE = namedStatement('message_details', messageWithState(GENERIC, BY_COMPANY_KEY));
export const DETAILS_MESSAGE_PLATFORM = namedStatement(
  'message_details_platform',
  messageWithState(GENERIC, BY_ID),
);

/**
 * One message if the company (null: any) owns it, with its send state (if it was ever queued) and
 * its recipients per status from the per-message counters, in one statement.
 */
export async function findMessageWithState(db: Executor, id: number, companyId: number | null) {
  const rows = await runStatement<MessageWithStateRow>(
    db,
    companyId === null ? MESSAGE_WITH_STATE_PLATFORM : MESSAGE_WITH_STATE,
    [id, companyId],
  );
  return rows[0] && splitMessageWithState(rows[0]);
}

/** A message with its send state and delivery counts, as messageWithState selects it. */
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

// A page of a message's recipients in the order they were resolved, one array a column (JSON),
// planned once per connection. All rows of a message share one created_at ($3), so the read
// touches one partition, by its primary key. From the id $5; without a status ($4) a skip ($6)
// walks the key alone first, then the page is read from the row it lands on. The statement ends the
// read's generic plans.
export const RECIPIENT_PAGE = namedStatement(
  'recipient_page',
  `select ${RESET_PLANS} as reset,
          json_build_object('ids', coalesce(array_agg(k.id), '{}'), 'phones', coalesce(array_agg(k.recipient_phone), '{}'),
                            'statuses', coalesce(array_agg(k.status), '{}'),
                            'gateway_ids', coalesce(array_agg(k.gateway_message_id), '{}'),
                            'delivered', coalesce(array_agg(k.delivered_at), '{}'),
                            'errors', coalesce(array_agg(k.error_message), '{}'),
                            'attempts', coalesce(array_agg(k.attempts), '{}'),
                            'updated', coalesce(array_agg(k.updated_at), '{}')) as page
     from (select d.id, d.recipient_phone, d.status, d.gateway_message_id, d.delivered_at, d.error_message,
                  d.attempts::int as attempts, d.updated_at
             from delivery_reports d
            where d.company_id = $1::bigint and d.message_id = $2::bigint and d.created_at = $3::timestamptz
              and d.id >= case when $4::text is null and $6::int > 0
                               then (select f.id from delivery_reports f
                                      where f.company_id = $1::bigint and f.message_id = $2::bigint
                                        and f.created_at = $3::timestamptz and f.id >= $5::bigint
                                      order by f.id offset $6::int limit 1)
                               else $5::bigint end
              and ($4::text is null or d.status = $4::text)
            order by d.id
           offset case when $4::text is null then 0 else $6::int end limit $7::int) k`,
);

export const recipientPageValues = (
  where: {
    companyId: number;
    messageId: number;
    recipientsAt: Date;
    status?: string | null;
    fromId?: number;
  },
  offset: number,
  limit: number,
) => [
  where.companyId,
  where.messageId,
  where.recipientsAt,
  where.status ?? null,
  where.fromId ?? 0,
  offset,
  limit,
];

/**
 * A page of a message's recipients in the order they were resolved (RECIPIENT_PAGE).
 */
export async function listDeliveryReports(
  db: Executor,
  where: { companyId: number; messageId: number; recipientsAt: Date; status?: string; fromId?: number },
  offset: number,
  limit: number,
): Promise<DeliveryReportRow[]> {
  const [{ page }] = await runPlannedOnce<{ page: RecipientColumns }>(
    db,
    RECIPIENT_PAGE,
    recipientPageValues(where, offset, limit),
  );
  return deliveryReportsOf(page);
}

/** RECIPIENT_PAGE's answer: one array a column, times as ISO text. */
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
