import type { TDeliveryStatus } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
import { type CountChange, recordCountChanges } from './delivery-counts.ts';
import type { DeliveryUpdate } from './providers/provider.ts';
import { settleSends } from './send-progress.ts';

/**
 * What became of one delivery report: applied (the recipient moved on), unchanged (a repeat, or
 * older news than the recipient already has), unknown (no recipient has that provider id, yet:
 * kept for a while in case our own hand-over commit is still on its way).
 */
export type DeliveryOutcome = 'applied' | 'unchanged' | 'unknown';

/** Reports name recipients handed over at most this long ago (the partitions they may live in). */
const REPORT_WINDOW = '62 days';

/**
 * Applies a batch of one company's delivery reports with one statement (the database function
 * apply_delivery_reports, migration 0014, planned once per session): each provider id takes its
 * most advanced report of the batch; a recipient's status only moves forward (pending < submitted
 * < sent < final, and a final status is never replaced), so repeats and late intermediate reports
 * change nothing. The counters move in the same transaction, messages follow (settleSends).
 * Reports for ids no recipient carries are kept in unmatched_delivery_reports when `keepUnknown`
 * (the sweep re-applies them). Returns one outcome per input, in order.
 */
export async function applyDeliveryUpdates(
  trx: Executor,
  companyId: number,
  updates: readonly DeliveryUpdate[],
  options: { keepUnknown: boolean } = { keepUnknown: true },
): Promise<DeliveryOutcome[]> {
  if (updates.length === 0) return [];
  const ids = updates.map((update) => update.providerMessageId);
  // Every join goes by index from the batch's few hundred ids (no statement may read a whole
  // partition): the function carries the index-only join preferences (migration 0017, as
  // preferIndexLookups sets them). The outcomes are matched up below rather than by joins.
  const { rows } = await sql<{
    gid: string;
    message_id: number;
    old_status: TDeliveryStatus;
    new_status: TDeliveryStatus | null;
  }>`
    select gid, message_id, old_status, new_status
      from apply_delivery_reports(${companyId}::bigint, ${ids}::text[], ${updates.map((u) => u.status)}::text[],
             ${updates.map((u) => u.providerStatus)}::text[], ${updates.map((u) => u.error)}::text[],
             ${updates.map((u) => u.at)}::timestamptz[], ${REPORT_WINDOW}::interval, ${options.keepUnknown})`.execute(
    trx,
  );

  const moves = new Map<string, CountChange>();
  for (const row of rows) {
    if (row.new_status === null) continue;
    const key = `${row.message_id}:${row.old_status}:${row.new_status}`;
    const move = moves.get(key);
    if (move) move.count++;
    else moves.set(key, { messageId: row.message_id, from: row.old_status, to: row.new_status, count: 1 });
  }
  await recordCountChanges(trx, companyId, [...moves.values()]);
  await settleSends(trx, companyId, [...new Set([...moves.values()].map((move) => move.messageId))]);

  const applied = new Set(rows.filter((row) => row.new_status !== null).map((row) => row.gid));
  const known = new Set(rows.map((row) => row.gid));
  const byId = new Map<string, DeliveryOutcome>(
    ids.map((id) => [id, applied.has(id) ? 'applied' : known.has(id) ? 'unchanged' : 'unknown']),
  );
  // A provider id reported twice in one batch: the first copy carried its news, the rest are repeats.
  const seen = new Set<string>();
  return ids.map((id) => {
    const outcome = byId.get(id) ?? 'unknown';
    if (seen.has(id) && outcome === 'applied') return 'unchanged';
    seen.add(id);
    return outcome;
  });
}
