import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import {
  deliveryReportsOf,
  type Json,
  type MessageWithStateRow,
  messageRowOf,
  type RecipientColumns,
  splitMessageWithState,
} from './message-logs.repository.ts';

/** Where a page of the send's whole list starts, for the fan-out time its anchors were read at. */
export type RecipientStart = { recipientsAt: Date; anchorId: number; skip: number };

/** recipients null: the send has no fan-out time yet (no page read). */
type DetailsAnswer = { message: Json<MessageWithStateRow>; recipients: RecipientColumns | null } | null;

const dateOrNull = (text: string | null) => (text === null ? null : new Date(text));

/**
 * A message the caller may see, with its send state, delivery counts and a page of its recipients
 * in the order they were resolved (status: only those), in one call (migration 0037's
 * message_details_page, planned once per connection), which took the place of two calls of before.
 * `start` (or null: from the top) is used only when the send is still the one it was read
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
  const row = answer.message;
  const { message, send, counts } = splitMessageWithState({
    ...row,
    ...messageRowOf(row),
    recipients_at: dateOrNull(row.recipients_at),
    started_at: dateOrNull(row.started_at),
    fanout_finished_at: dateOrNull(row.fanout_finished_at),
    handed_over_at: dateOrNull(row.handed_over_at),
    send_updated_at: dateOrNull(row.send_updated_at),
  });
  const reports = answer.recipients ? deliveryReportsOf(answer.recipients) : [];
  return { message, send, counts, reports };
}
