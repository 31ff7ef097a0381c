import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

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
