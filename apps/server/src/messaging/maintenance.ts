import { randomUUID } from 'node:crypto';
import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../db/tenant-scope.ts';

import { applyInboxBatch, enqueueInboxJob, REPORT_WINDOW } from './delivery-report-applier.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { DLR_UNMATCHED_JOB, SEND_START_JOB } from './queue/jobs.ts';
import { enqueueSend } from './send-jobs.ts';
import { recordSendProgress } from './send-progress.ts';

/** Unknown delivery reports are kept this long in case their hand-over commit was still on its way. */
const UNMATCHED_TTL = '1 hour';

/** Creates this month's and the next two months' recipient partitions (ahead of any fan-out). */
export async function ensurePartitions(db: Database) {
  await inTenantTransaction(db, platformScope, (trx) =>
    sql`select ensure_delivery_report_partition(now() + (n * interval '1 month')) from generate_series(0, 2) n`.execute(
      trx,
    ),
  );
}

/** Drops whole months of recipients older than the retention (never the current month). */
export async function dropExpiredPartitions(db: Database, retentionMonths: number) {
  const { rows } = await inTenantTransaction(db, platformScope, (trx) =>
    sql<{ name: string }>`
      select ensure_delivery_report_partition(now() - ${retentionMonths} * interval '1 month', 'drop') as name`.execute(
      trx,
    ),
  );
  return rows.map((row) => row.name);
}

/** Unmatched reports a re-applying transaction takes at most. */
const UNMATCHED_PER_BATCH = 5000;
/** How soon a company's unmatched reports are looked at again while any are left. */
const UNMATCHED_AGAIN_MS = 2000;

/**
 * Re-applies the company's reports that arrived before their recipient's hand-over was committed:
 * those whose id a recipient now carries, or whose phone number a recipient whose hand-over outcome
 * is unknown (a time-out recorded after the report came) has, move into the inbox with that number
 * and are applied from there. Returns the reports moved, whether another applier held the inbox,
 * and whether any are still kept.
 */
export async function reapplyUnmatchedReports(db: Database, companyId: number) {
  let moved = 0;
  for (;;) {
    const taken = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
      const { rows } = await sql<{ moved: number }>`
        with known as (
          delete from unmatched_delivery_reports
           where ctid = any(array(
             select u.ctid
               from unmatched_delivery_reports u
              where u.company_id = ${companyId}
                and u.received_at >= now() - ${UNMATCHED_TTL}::interval
                -- Looked up per kept report (the index of provider ids, the one of unknown outcomes),
                -- never a scan of the company's ids.
                and (exists (select 1 from recipient_gateway_ids g
                              where g.company_id = ${companyId} and g.gateway_message_id = u.gateway_message_id
                                and g.created_at >= now() - ${REPORT_WINDOW}::interval
                                and g.created_at <= now() + interval '1 day'
                              offset 0)
                     or exists (select 1 from delivery_reports d
                                 where u.recipient_phone is not null
                                   and d.company_id = ${companyId} and d.recipient_phone = u.recipient_phone
                                   and d.outcome_unknown_since is not null
                                   and d.created_at >= now() - ${REPORT_WINDOW}::interval
                                   and d.created_at <= now() + interval '1 day'
                                 offset 0))
              limit ${UNMATCHED_PER_BATCH}
                for update of u skip locked))
          returning gateway_message_id, status, provider_status, error_message, reported_at, recipient_phone
        ),
        inboxed as (
          insert into delivery_report_inbox
                 (company_id, gateway_message_ids, statuses, provider_statuses, error_messages, reported_ats,
                  recipient_phones)
          select ${companyId}, array_agg(k.gateway_message_id), array_agg(k.status),
                 array_agg(coalesce(k.provider_status, k.status)), array_agg(k.error_message), array_agg(k.reported_at),
                 array_agg(k.recipient_phone)
            from known k
          having count(*) > 0
          returning cardinality(gateway_message_ids) as moved
        )
        select coalesce((select moved from inboxed), 0)::int as moved`.execute(trx);
      return rows[0].moved;
    });
    moved += taken;
    if (taken < UNMATCHED_PER_BATCH) break;
  }
  let busy = false;
  if (moved > 0)
    for (;;) {
      const result = await applyInboxBatch(db, companyId);
      if (result === 'busy') busy = true;
      if (result === 'busy' || result === 0) break;
    }
  return { moved, busy, left: await keepsUnmatchedReports(db, companyId) };
}

/** The dlr-unmatched job: while any reports are kept, it enqueues itself again UNMATCHED_AGAIN_MS later. */
export async function runUnmatchedJob(db: Database, queue: JobQueue, companyId: number) {
  const { moved, busy, left } = await reapplyUnmatchedReports(db, companyId);
  // Moved into the inbox while another applier held it: that one may have looked already.
  if (busy) await enqueueInboxJob(db, queue, companyId);
  if (left) await enqueueUnmatchedJob(db, queue, companyId, UNMATCHED_AGAIN_MS);
  return moved;
}

export async function enqueueUnmatchedJob(db: Database, queue: JobQueue, companyId: number, afterMs: number) {
  await queue.enqueue(
    db,
    DLR_UNMATCHED_JOB,
    { companyId },
    {
      key: `${companyId}:${randomUUID()}`,
      singletonKey: String(companyId),
      startAfter: new Date(Date.now() + afterMs),
    },
  );
}

/** Forgets the company's unmatched reports kept too long; whether it still keeps any. */
export async function keepsUnmatchedReports(db: Database, companyId: number) {
  return inTenantTransaction(db, companyScope(companyId), async (trx) => {
    await sql`
      delete from unmatched_delivery_reports
       where company_id = ${companyId} and received_at < now() - ${UNMATCHED_TTL}::interval`.execute(trx);
    const { rows } = await sql<{ kept: boolean }>`
      select exists (select 1 from unmatched_delivery_reports where company_id = ${companyId}) as kept`.execute(
      trx,
    );
    return rows[0].kept;
  });
}

/** Upkeep: forgets unmatched reports kept too long, and gives every company keeping some a job. */
export async function enqueueJobsForUnmatchedReports(db: Database, queue: JobQueue) {
  const companies = await inTenantTransaction(db, platformScope, async (trx) => {
    await sql`delete from unmatched_delivery_reports where received_at < now() - ${UNMATCHED_TTL}::interval`.execute(
      trx,
    );
    const { rows } = await sql<{ company_id: number }>`
      select distinct company_id from unmatched_delivery_reports`.execute(trx);
    return rows.map((row) => Number(row.company_id));
  });
  for (const companyId of companies) await enqueueUnmatchedJob(db, queue, companyId, 0);
  return companies.length;
}

/**
 * Sends waiting without a queue job (the demo seed, an import, a lost job) get one, by the API's
 * own path: its job key per schedule never gives a send a second job.
 */
export async function adoptSendsWithoutJobs(db: Database, queue: JobQueue) {
  return inTenantTransaction(db, platformScope, async (trx) => {
    const { rows } = await sql<{ company_id: number; id: number; scheduled_at: Date | null; status: string }>`
      select m.company_id, m.id, m.scheduled_at, m.status
        from messages m
        left join message_sends s on s.company_id = m.company_id and s.message_id = m.id
       where m.direction = 'outbound' and m.status in ('queued', 'scheduled')
         and (s.state is null or s.state = 'waiting')
         and (m.queue_job_id is null
              or m.queue_job_id !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              or not exists (select 1 from pgboss.job j
                              where j.name = ${SEND_START_JOB.name} and j.id = m.queue_job_id::uuid))
       order by m.id
       limit 1000`.execute(trx);
    for (const row of rows) {
      const startAfter = row.status === 'scheduled' ? row.scheduled_at : null;
      await enqueueSend(trx, queue, row.company_id, row.id, startAfter);
    }
    return rows.length;
  });
}

/** Upkeep: a recipient whose hand-over got no answer and no report within the send's validity fails. */
export async function failUnknownOutcomes(db: Database, sendValidityHours: number) {
  const companies = await inTenantTransaction(db, platformScope, async (trx) => {
    const { rows } = await sql<{ company_id: number }>`
      select distinct company_id from delivery_reports
       where outcome_unknown_since is not null
         and outcome_unknown_since < now() - make_interval(hours => ${sendValidityHours})`.execute(trx);
    return rows.map((row) => Number(row.company_id));
  });
  let failed = 0;
  for (const companyId of companies) {
    failed += await inTenantTransaction(db, companyScope(companyId), async (trx) => {
      const { rows } = await sql<{ message_id: number; count: number }>`
        with ended as (
          update delivery_reports
             set status = 'failed', outcome_unknown_since = null, updated_at = now(),
                 error_message = ${MESSAGE_MESSAGES.outcomeNeverKnown(sendValidityHours)}
           where company_id = ${companyId} and status = 'submitted' and outcome_unknown_since is not null
             and outcome_unknown_since < now() - make_interval(hours => ${sendValidityHours})
          returning message_id)
        select message_id, count(*)::int as count from ended group by message_id order by message_id`.execute(
        trx,
      );
      const messageIds = rows.map((row) => Number(row.message_id));
      const changes = rows.map((row) => ({
        messageId: Number(row.message_id),
        from: 'submitted' as const,
        to: 'failed' as const,
        count: row.count,
      }));
      await recordSendProgress(trx, companyId, changes, messageIds);
      return rows.reduce((sum, row) => sum + row.count, 0);
    });
  }
  return failed;
}
