import type { Executor } from '../../db/database.ts';
import {
  type DeliveryReportRow,
  findMessageWithState,
  listDeliveryReports,
} from './message-logs.repository.ts';

/** Where a page of the send's whole list starts, for the fan-out time its anchors were read at. */
export type RecipientStart = { recipientsAt: Date; anchorId: number; skip: number };

/**
 * A message the caller may see, with its send state, delivery counts and a page of its recipients
 * in the order they were resolved (status: only those). `start` (or null: from the top) is used
 * only when the send is still the one it was read for, fanned out, and there is no status;
 * otherwise the page walks `offset` rows. Recipients are read once the send has a fan-out time.
 * undefined: no such message for the caller.
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
  const found = await findMessageWithState(db, id, companyId);
  if (!found) return undefined;
  const { message, send } = found;
  let reports: DeliveryReportRow[] = [];
  if (send?.recipients_at) {
    const anchored =
      status === null &&
      (send.state === 'dispatch' || send.state === 'done') &&
      start !== null &&
      start.recipientsAt.getTime() === send.recipients_at.getTime();
    reports = await listDeliveryReports(
      db,
      {
        companyId: message.company_id,
        messageId: message.id,
        recipientsAt: send.recipients_at,
        status: status ?? undefined,
        fromId: anchored ? start.anchorId : 0,
      },
      anchored ? start.skip : offset,
      limit,
    );
  }
  return { ...found, reports };
}
