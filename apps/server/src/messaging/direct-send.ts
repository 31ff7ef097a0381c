import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { enqueueBatches } from './send-jobs.ts';
import { recordSendProgress } from './send-progress.ts';

/** Recipients per hand-over job of a direct send (the API does not know the provider's batch size). */
export const DIRECT_SEND_BATCH_SIZE = 500;

/** A transactional text waits behind the batches already running, not behind a bulk send's queue. */
export const DIRECT_SEND_PRIORITY = 10;

export type DirectSend = {
  companyId: number;
  messageId: number;
  serviceId: number;
  parts: number;
  /** YYYY-MM-01: the month holding the send's reservation. */
  usageMonth: string;
  recipients: { msisdn: string; subscriberId: number | null }[];
};

/**
 * A send whose recipients are known when it is accepted (a transactional send), in the caller's
 * transaction: no send-start and no fan-out, its recipients written pending and its batches
 * enqueued at once, which then hand it over like any fanned-out send.
 */
export async function startDirectSend(trx: Executor, queue: JobQueue, send: DirectSend) {
  const { companyId, messageId, serviceId, parts, recipients } = send;
  await sql`select ensure_delivery_report_partition(now())`.execute(trx);
  const { rows } = await sql<{ recipients_at: Date }>`
    insert into message_sends as s (company_id, message_id, state, recipients_at, started_at, recipients,
                                     reserved_units, usage_month, fanout_finished_at)
    values (${companyId}, ${messageId}, 'dispatch', date_trunc('milliseconds', now()), now(), ${recipients.length},
            ${recipients.length * parts}, ${send.usageMonth}::date, now())
    returning recipients_at`.execute(trx);
  const recipientsAt = rows[0].recipients_at;
  const { rows: written } = await sql<{ first_id: string; last_id: string }>`
    with written as (
      insert into delivery_reports (company_id, created_at, message_id, service_id, subscriber_id, recipient_phone, parts)
      select ${companyId}, ${recipientsAt}::timestamptz, ${messageId}, ${serviceId}, r.subscriber_id, r.msisdn, ${parts}
        from unnest(${recipients.map((r) => r.msisdn)}::text[], ${recipients.map((r) => r.subscriberId)}::bigint[])
             with ordinality as r(msisdn, subscriber_id, n)
       order by r.n
      returning id
    )
    select min(id)::text as first_id, max(id)::text as last_id
      from (select id, (row_number() over (order by id) - 1) / ${DIRECT_SEND_BATCH_SIZE} as batch from written) b
     group by batch
     order by batch`.execute(trx);
  await recordSendProgress(trx, companyId, [
    { messageId, from: null, to: 'pending', count: recipients.length },
  ]);
  await enqueueBatches(trx, queue, { companyId, messageId, priority: DIRECT_SEND_PRIORITY }, written);
}
