import type { Executor } from '../../db/database.ts';
import { resetPlans, runStatement } from '../../lib/planned-once.ts';
import {
  DETAILS_MESSAGE,
  DETAILS_MESSAGE_PLATFORM,
  deliveryReportsOf,
  type MessageWithStateRow,
  RECIPIENT_PAGE,
  type RecipientColumns,
  recipientPageValues,
  splitMessageWithState,
} from './message-logs.repository.ts';

/** Where a page of the send's whole list starts, for the fan-out time its anchors were read at. */
export type RecipientStart = { recipientsAt: Date; anchorId: number; skip: number };

/**
 * A message the caller may see, with its send state, delivery counts and a page of its recipients
 * in the order they were resolved (status: only those), in two statements planned once per
 * connection (lib/planned-once.ts). `start` (or null: from the top) is used only when the send is
 * still the one it was read for, fanned out, and there is no status; otherwise the page walks
 * `offset` rows. Recipients are read once the send has a fan-out time. undefined: no such message
 * for the caller.
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
  const [found] = await runStatement<MessageWithStateRow & { generic: string }>(
    db,
    companyId === null ? DETAILS_MESSAGE_PLATFORM : DETAILS_MESSAGE,
    [id, companyId],
  );
  if (!found?.recipients_at) {
    await resetPlans(db);
    if (!found) return undefined;
  }
  const { generic: _, ...row } = found;
  const { message, send, counts } = splitMessageWithState(row);
  if (!row.recipients_at) return { message, send, counts, reports: [] };
  const fromStart =
    status === null &&
    (row.send_state === 'dispatch' || row.send_state === 'done') &&
    row.recipients_at.getTime() === start?.recipientsAt.getTime();
  const [{ page }] = await runStatement<{ page: RecipientColumns }>(
    db,
    RECIPIENT_PAGE,
    recipientPageValues(
      {
        companyId: row.company_id,
        messageId: id,
        recipientsAt: row.recipients_at,
        status,
        fromId: fromStart ? start.anchorId : 0,
      },
      fromStart ? start.skip : offset,
      limit,
    ),
  );
  return { message, send, counts, reports: deliveryReportsOf(page) };
}
