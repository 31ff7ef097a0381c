import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type {
  DeliveryCounts,
  DeliveryReportRow,
  MessageRow,
  MessageSendRow,
} from './message-logs.repository.ts';

/** Where a page of the send's whole list starts, for the fan-out time its anchors were read at. */
export type RecipientStart = { recipientsAt: Date; anchorId: number; skip: number };

type Text<T> = [T] extends [Date] ? string : [T] extends [Date | null] ? string | null : T;

type DetailsAnswer = {
  message: { [K in keyof MessageRow]: Text<MessageRow[K]> } & {
    send_state: string | null;
    recipients_at: string | null;
    recipients: number | null;
    started_at: string | null;
    fanout_finished_at: string | null;
    handed_over_at: string | null;
    send_updated_at: string | null;
  } & DeliveryCounts;
  ids: number[];
  phones: string[];
  statuses: string[];
  gateway_ids: (string | null)[];
  delivered: (string | null)[];
  errors: (string | null)[];
  attempts: number[];
  updated: string[];
} | null;

const dateOrNull = (text: string | null) => (text === null ? null : new Date(text));

/**
 * A message the caller may see, with its send state, delivery counts and a page of its recipients
 * in the order they were resolved (status: only those), in one call (migration 0037's
 * message_details_page, planned once per connection): the message_with_state and recipient_page of
 * before. `start` (or null: from the top) is used only when the send is still the one it was read
 * for, fanned out, and there is no status; otherwise the page walks `offset` rows. Recipients are
 * read once the send has a fan-out time. undefined: no such message for the caller.
 */
export async function readMessageDetails(
  db: Executor,
  id: number,
  companyId: number | null,
  status: string | null,
  offset: number,
  limit: number,
  start: RecipientStart | null,
) {
  const { rows } = await sql<{ page: DetailsAnswer }>`
    select message_details_page(${id}::bigint, ${companyId}::bigint, ${status}::text, ${offset}::int, ${limit}::int,
                                ${start?.recipientsAt ?? null}::timestamptz, ${start?.anchorId ?? null}::bigint,
                                ${start?.skip ?? null}::int) as page`.execute(db);
  const answer = rows[0].page;
  if (answer === null) return undefined;
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
    ...row
  } = answer.message;
  const message: MessageRow = {
    ...row,
    scheduled_at: dateOrNull(row.scheduled_at),
    sent_at: dateOrNull(row.sent_at),
    created_at: new Date(row.created_at),
  };
  const send: MessageSendRow | undefined =
    send_state === null
      ? undefined
      : {
          state: send_state,
          recipients_at: dateOrNull(recipients_at),
          recipients: recipients ?? 0,
          started_at: dateOrNull(started_at),
          fanout_finished_at: dateOrNull(fanout_finished_at),
          handed_over_at: dateOrNull(handed_over_at),
          updated_at: new Date(send_updated_at as string),
        };
  const counts: DeliveryCounts = { pending, submitted, sent, delivered, failed, rejected, expired };
  const reports: DeliveryReportRow[] = answer.ids.map((reportId, i) => ({
    id: reportId,
    recipient_phone: answer.phones[i],
    status: answer.statuses[i],
    gateway_message_id: answer.gateway_ids[i],
    delivered_at: dateOrNull(answer.delivered[i]),
    error_message: answer.errors[i],
    attempts: answer.attempts[i],
    updated_at: new Date(answer.updated[i]),
  }));
  return { message, send, counts, reports };
}
