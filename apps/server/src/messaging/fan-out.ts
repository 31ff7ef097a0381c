import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import { recordCountChanges } from './delivery-counts.ts';
import { refreshRecipientStatistics } from './index-plans.ts';
import { adjustUsage, usageMonthOf } from './monthly-usage.ts';
import { settleSends } from './send-progress.ts';

export type FanOutResult = 'busy' | 'progress' | 'finished';

/** Recipient counts at which the partition's statistics are refreshed (see refreshRecipientStatistics). */
const STATISTICS_AT = [1000, 10_000, 100_000, 1_000_000];

/**
 * One checkpointed fan-out step of a send: the next `batchSize` subscribers after the checkpoint
 * that are actively subscribed to any of the message's (still active) services, deduplicated
 * across services (one recipient per subscriber, hence per phone number), inserted as pending
 * recipients in one INSERT ... SELECT DISTINCT ON ...; the checkpoint moves in the same
 * transaction, so a batch is written once (no unique index needs to check it again). The send row is locked with SKIP LOCKED: one fan-out per send at a
 * time, and a crashed worker's lock is gone with its connection.
 */
export async function fanOutBatch(
  db: Database,
  companyId: number,
  messageId: number,
  batchSize: number,
): Promise<FanOutResult> {
  const step = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows: sends } = await sql<{
      fanout_cursor: number;
      recipients_at: Date;
      recipients: number;
      reserved_units: number;
      usage_month: string | null;
      service_ids: number[];
      parts: number | null;
    }>`
      select s.fanout_cursor, s.recipients_at, s.recipients, s.reserved_units,
             to_char(s.usage_month, 'YYYY-MM-DD') as usage_month, m.service_ids, m.parts
        from message_sends s
        join messages m on m.company_id = s.company_id and m.id = s.message_id
       where s.company_id = ${companyId} and s.message_id = ${messageId} and s.state = 'fanout'
       for update of s skip locked`.execute(trx);
    const send = sends[0];
    if (!send) return { result: 'busy' as const };
    const parts = Math.max(1, send.parts ?? 1);

    const { rows } = await sql<{ cursor: number | null; considered: number; inserted: number }>`
      with active_services as (
        select id from services
         where company_id = ${companyId} and id = any(${send.service_ids}::bigint[]) and status = 'active'
      ),
      candidates as (
        select distinct on (x.subscriber_id) x.subscriber_id, x.service_id
          from active_services sv
          cross join lateral (
            select s.subscriber_id, s.service_id
              from subscriptions s
             where s.service_id = sv.id and s.company_id = ${companyId} and s.status = 'active'
               and s.subscriber_id > ${send.fanout_cursor}
             -- (service_id, subscriber_id): the order of the service's index of active subscriptions.
             order by s.service_id, s.subscriber_id
             limit ${batchSize}
          ) x
         order by x.subscriber_id, x.service_id
         limit ${batchSize}
      ),
      inserted as (
        insert into delivery_reports (company_id, created_at, message_id, service_id, subscriber_id, recipient_phone, parts)
        select ${companyId}, ${send.recipients_at}::timestamptz, ${messageId}, c.service_id, sub.id, sub.msisdn, ${parts}
          from candidates c
          join subscribers sub on sub.id = c.subscriber_id
         -- The batch is a range of subscriber ids: read that range, never the whole table.
         where sub.id > ${send.fanout_cursor} and sub.id <= (select max(subscriber_id) from candidates)
           and sub.company_id = ${companyId} and sub.status = 'active'
         order by c.subscriber_id
        returning 1
      )
      select (select max(subscriber_id) from candidates) as cursor,
             (select count(*) from candidates)::int as considered,
             (select count(*) from inserted)::int as inserted`.execute(trx);
    const { cursor, considered, inserted } = rows[0];
    await recordCountChanges(trx, companyId, [{ messageId, from: null, to: 'pending', count: inserted }]);
    const recipients = send.recipients + inserted;
    const finished = considered < batchSize;
    await sql`
      update message_sends
         set fanout_cursor = ${cursor ?? send.fanout_cursor}, recipients = ${recipients}, updated_at = now(),
             state = case when ${finished} then 'dispatch' else state end,
             fanout_finished_at = case when ${finished} then now() else fanout_finished_at end,
             reserved_units = case when ${finished} then ${recipients * parts} else reserved_units end
       where company_id = ${companyId} and message_id = ${messageId}`.execute(trx);
    const done = { before: send.recipients, after: recipients, recipientsAt: send.recipients_at };
    if (!finished) return { result: 'progress' as const, ...done };
    // The fan-out knows the real number now: the message and the month's usage follow it.
    await sql`update messages set recipient_count = ${recipients}, updated_at = now()
               where company_id = ${companyId} and id = ${messageId}`.execute(trx);
    // Sends accepted by the API reserved their month; others (seeded, adopted) count now.
    const month = send.usage_month ?? usageMonthOf(send.recipients_at);
    await adjustUsage(trx, companyId, month, recipients * parts - send.reserved_units);
    if (!send.usage_month)
      await sql`update message_sends set usage_month = ${month}::date
                 where company_id = ${companyId} and message_id = ${messageId}`.execute(trx);
    await settleSends(trx, companyId, [messageId]);
    return { result: 'finished' as const, ...done };
  });
  if (step.result !== 'busy') {
    const crossed = STATISTICS_AT.some((mark) => step.before < mark && step.after >= mark);
    if (crossed) await refreshRecipientStatistics(db, step.recipientsAt);
  }
  return step.result;
}
