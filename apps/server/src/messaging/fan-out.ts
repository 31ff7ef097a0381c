import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import { findCompanyLimits } from '../modules/plans/plan-limits.ts';

import { adjustUsage, lockUsage, usageMonthOf } from './monthly-usage.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { enqueueBatches, enqueueFanOutStep } from './send-jobs.ts';
import { failSend, recordSendProgress, settleSends } from './send-progress.ts';

/** Recipient counts at which the partition's statistics are refreshed if stale (refreshRecipientStatistics). */
const STATISTICS_AT = [1000, 10_000, 100_000, 1_000_000];

/** A send-fanout job: its send and the last subscriber id the previous step reached ('0' first). */
export type FanOutStep = { companyId: number; messageId: number; after: string };

/** Subscribers read per step; recipients per hand-over batch job (the company's provider batch). */
export type FanOutSizes = { stepSize: number; batchSize: number };

/**
 * One fan-out step: the next `stepSize` subscribers after the cursor actively subscribed to any of
 * the message's active services, one recipient per subscriber, written pending by one INSERT ...
 * SELECT; in the same transaction the cursor moves and the next step is enqueued. The step that
 * leaves nobody after its cursor is the last (finishFanOut): a small send's first.
 *
 * The send's row is locked and the step does nothing unless the cursor is still `after`: a step
 * retried after its commit, or run twice, finds the cursor moved on.
 */
export async function runFanOutStep(db: Database, queue: JobQueue, step: FanOutStep, sizes: FanOutSizes) {
  const { companyId, messageId, after } = step;
  const done = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows } = await sql<{
      recipients_at: Date;
      service_ids: number[];
      parts: number | null;
      cursor: string;
      recipients: number;
    }>`
      select s.recipients_at, m.service_ids, m.parts, s.fanout_cursor::text as cursor, s.recipients
        from message_sends s
        join messages m on m.company_id = s.company_id and m.id = s.message_id
       where s.company_id = ${companyId} and s.message_id = ${messageId} and s.state = 'fanout'
         for update of s`.execute(trx);
    const send = rows[0];
    if (!send || send.cursor !== after) return null;
    const parts = Math.max(1, send.parts ?? 1);

    await PREFER_MERGE_JOIN.execute(trx);
    // The cursor moves in the statement that writes the step's rows, and the rows written are the
    // statement's own count: counting a RETURNING reads every row back (a tenth of a step's CPU).
    const written = await sql`
      with candidates as (
        select distinct on (x.subscriber_id) x.subscriber_id, x.service_id
          from (${subscriptionsInOrder(companyId, send.service_ids, after, sizes.stepSize)}) x
         order by x.subscriber_id, x.service_id
         limit ${sizes.stepSize}
      ),
      batch as (select max(subscriber_id) as last from candidates),
      checkpoint as (
        update message_sends set fanout_cursor = coalesce((select last from batch), fanout_cursor)
         where company_id = ${companyId} and message_id = ${messageId}
      )
      insert into delivery_reports (company_id, created_at, message_id, service_id, subscriber_id, recipient_phone, parts)
      select ${companyId}, ${send.recipients_at}::timestamptz, ${messageId}, c.service_id, sub.id, sub.msisdn, ${parts}
        from candidates c
        join subscribers sub on sub.id = c.subscriber_id
       -- The batch is a range of subscriber ids: read that range, never the whole table.
       where sub.id > ${after}::bigint and sub.id <= (select last from batch)
         and sub.company_id = ${companyId} and sub.status = 'active'
       order by c.subscriber_id`.execute(trx);
    await RESET_JOIN_SETTINGS.execute(trx);
    const inserted = Number(written.numAffectedRows ?? 0);
    const recipients = send.recipients + inserted;
    const { rows: moved } = await sql<{ cursor: string }>`
      update message_sends set recipients = ${recipients}, updated_at = now()
       where company_id = ${companyId} and message_id = ${messageId}
      returning fanout_cursor::text as cursor`.execute(trx);
    await recordSendProgress(trx, companyId, [{ messageId, from: null, to: 'pending', count: inserted }]);
    const progress = { before: send.recipients, after: recipients, recipientsAt: send.recipients_at };
    const cursor = moved[0].cursor;
    if (cursor !== after && (await anyoneAfter(trx, companyId, send.service_ids, cursor)))
      await enqueueFanOutStep(trx, queue, companyId, messageId, cursor);
    else
      await finishFanOut(
        trx,
        queue,
        { companyId, messageId, recipients, parts, recipientsAt: send.recipients_at },
        sizes,
      );
    return progress;
  });
  if (done && STATISTICS_AT.some((mark) => done.before < mark && done.after >= mark))
    await refreshRecipientStatistics(db, done.recipientsAt, done.after);
}

/**
 * The last step: the send's real count must fit what the month has left besides its own
 * reservation, or nobody is sent to (the usage row stays locked to the commit, so concurrent sends
 * check one after the other). A send that fits gets its hand-over batches (batchWindows).
 */
async function finishFanOut(
  trx: Executor,
  queue: JobQueue,
  send: { companyId: number; messageId: number; recipients: number; parts: number; recipientsAt: Date },
  sizes: FanOutSizes,
) {
  const { companyId, messageId, recipients, parts } = send;
  const { rows } = await sql<{ reserved_units: number; usage_month: string | null }>`
    select reserved_units, to_char(usage_month, 'YYYY-MM-DD') as usage_month from message_sends
     where company_id = ${companyId} and message_id = ${messageId}`.execute(trx);
  const reservedUnits = rows[0].reserved_units;
  const month = rows[0].usage_month ?? usageMonthOf(send.recipientsAt);
  const units = recipients * parts;
  await sql`
    update message_sends
       set state = 'dispatch', fanout_finished_at = now(), reserved_units = ${units}, usage_month = ${month}::date
     where company_id = ${companyId} and message_id = ${messageId}`.execute(trx);
  await sql`update messages set recipient_count = ${recipients}, updated_at = now()
             where company_id = ${companyId} and id = ${messageId}`.execute(trx);
  const usedBesides = Math.max(0, (await lockUsage(trx, companyId, month)) - reservedUnits);
  const { messagesLimit } = await findCompanyLimits(trx, companyId);
  // Sends accepted by the API reserved their month; others (seeded) count now.
  await adjustUsage(trx, companyId, month, units - reservedUnits);
  if (units > 0 && usedBesides + units > messagesLimit) {
    const reason = MESSAGE_MESSAGES.monthlyLimitReachedAtSend(usedBesides, messagesLimit);
    await failSend(trx, companyId, messageId, 'dispatch', reason);
    return;
  }
  const batches = await batchWindows(trx, companyId, messageId, send.recipientsAt, sizes.batchSize);
  await enqueueBatches(trx, queue, send, batches);
  // A send with nobody to send to is done now.
  await settleSends(trx, companyId, [messageId]);
}

/**
 * A send's hand-over batches: windows of `batchSize` ids, each starting at one of its recipients,
 * found by one index probe a window (a loose index scan), where numbering every recipient read a
 * million index entries. A window holds at most batchSize recipients, fewer where other sends' ids
 * fall in it; every recipient is in exactly one.
 */
export async function batchWindows(
  trx: Executor,
  companyId: number,
  messageId: number,
  recipientsAt: Date,
  batchSize: number,
) {
  const recipient = sql`company_id = ${companyId} and message_id = ${messageId} and created_at = ${recipientsAt}`;
  const { rows } = await sql<{ first_id: string; last_id: string }>`
    with recursive windows(first_id) as (
      select min(id) from delivery_reports where ${recipient}
      union all
      select (select min(id) from delivery_reports where ${recipient} and id >= w.first_id + ${batchSize})
        from windows w where w.first_id is not null
    )
    select w.first_id::text as first_id, (w.first_id + ${batchSize - 1})::text as last_id
      from windows w where w.first_id is not null order by w.first_id`.execute(trx);
  return rows;
}

/**
 * The planner cannot know how far a step's batch reaches (its last id is computed in the statement)
 * and took a nested loop: 80,000 buffers where a merge join reads ~330 (ADR 0011).
 */
const PREFER_MERGE_JOIN = sql`
  select set_config('enable_nestloop', 'off', true), set_config('enable_hashjoin', 'off', true)`;
const RESET_JOIN_SETTINGS = sql.raw(
  'set local enable_nestloop to default; set local enable_hashjoin to default',
);

/**
 * The next active subscriptions after `after` of each still active service, in subscriber order:
 * one index scan per service, merged (Merge Append), so that the step's DISTINCT ON reads only as
 * far as its batch needs.
 */
export function subscriptionsInOrder(companyId: number, serviceIds: number[], after: string, limit: number) {
  const services = [...new Set(serviceIds.map(Number))].sort((a, b) => a - b);
  if (services.length === 0)
    return sql`select null::bigint as subscriber_id, null::bigint as service_id where false`;
  return sql.join(
    services.map(
      (serviceId) => sql`(
        select s.subscriber_id, s.service_id
          from subscriptions s
         where s.service_id = ${serviceId} and s.company_id = ${companyId} and s.status = 'active'
           and s.subscriber_id > ${after}::bigint
           and exists (select from services sv
                        where sv.company_id = ${companyId} and sv.id = ${serviceId} and sv.status = 'active')
         -- (service_id, subscriber_id): the order of the service's index of active subscriptions.
         order by s.subscriber_id
         limit ${limit})`,
    ),
    sql` union all `,
  );
}

/** Whether any of the send's services has an active subscription after the cursor (an index probe a service). */
async function anyoneAfter(trx: Executor, companyId: number, serviceIds: number[], after: string) {
  const { rows } = await sql<{ more: boolean }>`
    select exists (${subscriptionsInOrder(companyId, serviceIds, after, 1)}) as more`.execute(trx);
  return rows[0].more;
}

/**
 * Analyzes the recipients' partition while its statistics count fewer rows than the send wrote:
 * early in a month it has none, and the planner would hash the whole partition where an index finds
 * a few hundred rows. Best effort, never waiting on autovacuum; true when it analyzed.
 */
export async function refreshRecipientStatistics(db: Database, recipientsAt: Date, rowsWritten: number) {
  try {
    return await inTenantTransaction(db, platformScope, async (trx) => {
      await sql`select set_config('lock_timeout', '200ms', true)`.execute(trx);
      const { rows } = await sql`
        select ensure_delivery_report_partition(${recipientsAt}::timestamptz, 'analyze', ${rowsWritten}::bigint)`.execute(
        trx,
      );
      return rows.length > 0;
    });
  } catch {
    return false;
  }
}
