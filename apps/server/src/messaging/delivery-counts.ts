import type { TDeliveryStatus } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

/**
 * Counter shards per message: each database session writes its own (pid modulo this), so
 * concurrent batches of one send rarely wait on the same counter row; readers sum them.
 */
export const COUNT_SHARDS = 8;

/** n recipients of a message moved from one status to another (from null: new recipients). */
export type CountChange = {
  messageId: number;
  from: TDeliveryStatus | null;
  to: TDeliveryStatus;
  count: number;
};

/**
 * The counts upsert over a relation of (message_id, status, delta) rows, as SQL: one statement
 * per batch, one row per message and shard, messages in id order (no deadlocks between batches).
 */
export const upsertCountDeltas = (companyId: number, deltas: ReturnType<typeof sql>) => sql`
  insert into message_delivery_counts as c
         (company_id, message_id, shard, pending, submitted, sent, delivered, failed, rejected, expired)
  select ${companyId}::bigint, x.message_id, (pg_backend_pid() % ${COUNT_SHARDS})::smallint,
         coalesce(sum(x.delta) filter (where x.status = 'pending'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'submitted'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'sent'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'delivered'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'failed'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'rejected'), 0),
         coalesce(sum(x.delta) filter (where x.status = 'expired'), 0)
    from (${deltas}) as x(message_id, status, delta)
   group by x.message_id
   order by x.message_id
  on conflict (company_id, message_id, shard) do update set
    pending = c.pending + excluded.pending,
    submitted = c.submitted + excluded.submitted,
    sent = c.sent + excluded.sent,
    delivered = c.delivered + excluded.delivered,
    failed = c.failed + excluded.failed,
    rejected = c.rejected + excluded.rejected,
    expired = c.expired + excluded.expired`;

/** Records status moves counted in the application (hand-over outcomes, fan-out inserts). */
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
  await upsertCountDeltas(
    companyId,
    sql`select * from unnest(${messageIds}::bigint[], ${statuses}::text[], ${deltas}::int[])`,
  ).execute(trx);
}
