import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { SEND_BATCH_JOB, SEND_FANOUT_JOB, SEND_START_JOB } from './queue/jobs.ts';

/** A send's job key: one job per message and start time, so moving a schedule makes a new job. */
const sendJobKey = (messageId: number, startAfter: Date | null) =>
  `${messageId}@${startAfter ? startAfter.toISOString() : 'now'}`;

/** A message's send job, in the transaction that queued or scheduled it, its id on the message. */
export async function enqueueSend(
  trx: Executor,
  queue: JobQueue,
  companyId: number,
  messageId: number,
  startAfter: Date | null,
) {
  const jobId = await queue.enqueue(
    trx,
    SEND_START_JOB,
    { companyId, messageId },
    { key: sendJobKey(messageId, startAfter), startAfter: startAfter ?? undefined, group: String(companyId) },
  );
  await sql`update messages set queue_job_id = ${jobId} where company_id = ${companyId} and id = ${messageId}`.execute(
    trx,
  );
  await sql`
    insert into message_sends (company_id, message_id, state) values (${companyId}, ${messageId}, 'waiting')
    on conflict (company_id, message_id) do nothing`.execute(trx);
  return jobId;
}

/** Removes a message's send job in the caller's transaction (cancel, or before a move). */
export async function removeSendJob(trx: Executor, queue: JobQueue, jobId: string | null) {
  if (jobId && /^[0-9a-f-]{36}$/.test(jobId)) await queue.remove(trx, SEND_START_JOB, jobId);
}

/**
 * The send-start job: a queued or scheduled message starts, and its first fan-out step is enqueued.
 * The message row is locked, so a concurrent cancel or move either comes before (this job finds
 * another job id: nothing to do) or is refused after (the message is processing).
 */
export async function startSend(
  db: Database,
  queue: JobQueue,
  companyId: number,
  messageId: number,
  jobId: string,
) {
  return inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows } = await sql<{ status: string; queue_job_id: string | null }>`
      select status, queue_job_id from messages
       where company_id = ${companyId} and id = ${messageId} and direction = 'outbound'
         for update`.execute(trx);
    const message = rows[0];
    if (!message || message.queue_job_id !== jobId || !['queued', 'scheduled'].includes(message.status))
      return false;
    await sql`select ensure_delivery_report_partition(now())`.execute(trx);
    await sql`
      insert into message_sends as s (company_id, message_id, state, recipients_at, started_at)
      values (${companyId}, ${messageId}, 'fanout', now(), now())
      on conflict (company_id, message_id) do update
        set state = 'fanout', fanout_cursor = 0, recipients = 0, recipients_at = now(), started_at = now(), updated_at = now()
      where s.state = 'waiting'`.execute(trx);
    await sql`update messages set status = 'processing', updated_at = now()
               where company_id = ${companyId} and id = ${messageId}`.execute(trx);
    await enqueueFanOutStep(trx, queue, companyId, messageId, '0');
    return true;
  });
}

/** A send's fan-out step after subscriber `after`: one job per send and cursor, however often asked. */
export function enqueueFanOutStep(
  trx: Executor,
  queue: JobQueue,
  companyId: number,
  messageId: number,
  after: string,
) {
  return queue.enqueue(
    trx,
    SEND_FANOUT_JOB,
    { companyId, messageId, after },
    { key: `${messageId}:${after}`, group: String(companyId) },
  );
}

/** A send's hand-over batches, one job per range of recipient ids, however often asked. */
export function enqueueBatches(
  trx: Executor,
  queue: JobQueue,
  send: { companyId: number; messageId: number; priority?: number },
  batches: readonly { first_id: string; last_id: string }[],
) {
  const { companyId, messageId, priority } = send;
  return queue.enqueueMany(
    trx,
    SEND_BATCH_JOB,
    batches.map((batch) => ({
      payload: { companyId, messageId, firstId: batch.first_id, lastId: batch.last_id },
      key: `${messageId}:${batch.first_id}`,
      group: String(companyId),
      ...(priority !== undefined && { priority }),
    })),
  );
}
