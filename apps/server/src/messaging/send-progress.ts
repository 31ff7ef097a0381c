import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
import { adjustUsage } from './monthly-usage.ts';

/**
 * Moves sends and their messages forward from the recipient counts: a send whose fan-out is done
 * and that has no pending recipient is handed over (done); its message is then sent while any
 * recipient waits for its delivery report, delivered once all are final and any was delivered,
 * failed when all failed. Run after any batch that may have been a send's last; idempotent.
 * Returns the messages whose status changed. The statement is the database function settle_sends
 * (migration 0017), planned once per session rather than on every batch; since 0021 it reads its
 * rule first and updates only when a send or message moves (no empty trigger runs per batch).
 */
export async function settleSends(trx: Executor, companyId: number, messageIds: readonly number[]) {
  if (messageIds.length === 0) return [];
  const { rows } = await sql<{ id: number; status: string }>`
    select id, status from settle_sends(${companyId}::bigint, ${messageIds}::bigint[])`.execute(trx);
  return rows;
}

/**
 * Ends a send failed for `reason` (Message Details shows it) without handing any more of it over:
 * its recipients not handed over stay pending (no per-recipient write), and what they had reserved
 * of the month is given back. Only from the state `from`, so two workers cannot both end it (and
 * give back twice). Returns whether this call ended it.
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
