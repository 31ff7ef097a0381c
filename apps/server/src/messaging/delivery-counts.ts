import type { TDeliveryStatus } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

/** n recipients of a message moved from one status to another (from null: new recipients). */
export type CountChange = {
  messageId: number;
  from: TDeliveryStatus | null;
  to: TDeliveryStatus;
  count: number;
};

/**
 * The counters' upsert over a relation of (message_id, status, delta) rows, as one SQL statement
 * (it may follow a data-modifying CTE): the rows go to record_count_changes, the one rule.
 */
export const upsertCountDeltas = (companyId: number, deltas: ReturnType<typeof sql>) => sql`
  select record_count_changes(${companyId}::bigint, array_agg(x.message_id)::bigint[], array_agg(x.status)::text[],
                              array_agg(x.delta)::int[])
    from (${deltas}) as x(message_id, status, delta)`;

/**
 * Records status moves counted in the application (hand-over outcomes, fan-out inserts) through
 * the counters' one rule, the database function record_count_changes (migration 0021): one upsert
 * per batch into this session's counter shard of each message, messages in id order. Delivery-report
 * batches call the same function from take_delivery_reports.
 */
export async function recordCountChanges(trx: Executor, companyId: number, changes: CountChange[]) {
  const messageIds: number[] = [];
  const statuses: string[] = [];
  const deltas: number[] = [];
  for (const change of changes) {
    if (change.count === 0 || change.from === change.to) continue;
    if (change.from !== null) {
      messageIds.push(change.messageId);
      statuses.push(change.from);
      deltas.push(-change.count);
    }
    messageIds.push(change.messageId);
    statuses.push(change.to);
    deltas.push(change.count);
  }
  if (messageIds.length === 0) return;
  await sql`
    select record_count_changes(${companyId}::bigint, ${messageIds}::bigint[], ${statuses}::text[], ${deltas}::int[])`.execute(
    trx,
  );
}
