import type { TDeliveryStatus } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
import { adjustUsage } from './monthly-usage.ts';

/** n recipients of a message moved from one status to another (from null: new recipients). */
export type CountChange = {
  messageId: number;
  from: TDeliveryStatus | null;
  to: TDeliveryStatus;
  count: number;
};

/**
 * Records status moves in the messages' counters, then settles the sends of `settle`, through
 * record_send_progress, the one rule delivery reports go through too. Returns the messages whose
 * status changed.
 */
export async function recordSendProgress(
  trx: Executor,
  companyId: number,
  changes: readonly CountChange[],
  settle: readonly number[] = [],
) {
  const moves = changes
    .filter((change) => change.count !== 0 && change.from !== change.to)
    .flatMap(({ messageId, from, to, count }) => [
      ...(from === null ? [] : [{ messageId, status: from, delta: -count }]),
      { messageId, status: to, delta: count },
    ]);
  if (moves.length === 0 && settle.length === 0) return [];
  const { rows } = await sql<{ id: number; status: string }>`
    select id, status from record_send_progress(${companyId}::bigint, ${moves.map((m) => m.messageId)}::bigint[],
             ${moves.map((m) => m.status)}::text[], ${moves.map((m) => m.delta)}::int[], ${settle}::bigint[])`.execute(
    trx,
  );
  return rows;
}

/** Moves sends and their messages forward from the recipient counts; run after any batch that may have been a send's last. */
export const settleSends = (trx: Executor, companyId: number, messageIds: readonly number[]) =>
  recordSendProgress(trx, companyId, [], messageIds);

/**
 * Ends a send failed for `reason`: its recipients not handed over stay pending (no per-recipient
 * write), and what they reserved of the month is given back. Only from the state `from`, so two
 * workers cannot both end it and give back twice.
 */
export async function failSend(
  trx: Executor,
  companyId: number,
  messageId: number,
  from: 'dispatch' | 'held',
  reason: string,
) {
  const { rows } = await sql<{ usage_month: string | null }>`
    update message_sends set state = 'failed', failed_reason = ${reason}, updated_at = now()
     where company_id = ${companyId} and message_id = ${messageId} and state = ${from}
    returning to_char(usage_month, 'YYYY-MM-DD') as usage_month`.execute(trx);
  if (!rows[0]) return false;
  // Read after the state change: lanes take no new batch of a send that is not in its hand-over.
  const { rows: unsent } = await sql<{ units: number }>`
    select coalesce(sum(t.pending), 0)::int * greatest(coalesce(max(m.parts), 1), 1) as units
      from messages m
      left join message_delivery_totals t on t.company_id = m.company_id and t.message_id = m.id
     where m.company_id = ${companyId} and m.id = ${messageId}`.execute(trx);
  const units = unsent[0]?.units ?? 0;
  await sql`update message_sends set reserved_units = greatest(reserved_units - ${units}, 0)
             where company_id = ${companyId} and message_id = ${messageId}`.execute(trx);
  await sql`update messages set status = 'failed', updated_at = now()
             where company_id = ${companyId} and id = ${messageId}`.execute(trx);
  if (rows[0].usage_month) await adjustUsage(trx, companyId, rows[0].usage_month, -units);
  return true;
}
