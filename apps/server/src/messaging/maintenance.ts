import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import { applyDeliveryUpdates } from './delivery-reports.ts';
import type { DeliveryUpdate } from './providers/provider.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { SEND_START_JOB } from './queue/jobs.ts';
import { sendJobKey } from './send-jobs.ts';

/** Unknown delivery reports are kept this long in case their hand-over commit was still on its way. */
const UNMATCHED_TTL = '1 hour';
const IDEMPOTENCY_TTL = '24 hours';

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
      select drop_delivery_report_partitions_before(now() - ${retentionMonths} * interval '1 month') as name`.execute(
      trx,
    ),
  );
  return rows.map((row) => row.name);
}

export async function expireIdempotencyKeys(db: Database) {
  await inTenantTransaction(db, platformScope, (trx) =>
    sql`delete from idempotency_keys where created_at < now() - ${IDEMPOTENCY_TTL}::interval`.execute(trx),
  );
}

/**
 * Re-applies delivery reports that arrived before their recipient's provider id was committed,
 * and forgets those that stayed unknown too long. Per company, one batch per run.
 */
export async function reapplyUnmatchedReports(db: Database, batchSize = 1000) {
  const companies = await inTenantTransaction(db, platformScope, async (trx) => {
    await sql`delete from unmatched_delivery_reports where received_at < now() - ${UNMATCHED_TTL}::interval`.execute(
      trx,
    );
    const { rows } = await sql<{ company_id: number }>`
      select distinct company_id from unmatched_delivery_reports`.execute(trx);
    return rows.map((row) => row.company_id);
  });
  let applied = 0;
  for (const companyId of companies) {
    await inTenantTransaction(db, companyScope(companyId), async (trx) => {
      const { rows } = await sql<{
        gateway_message_id: string;
        status: DeliveryUpdate['status'];
        provider_status: string | null;
        error_message: string | null;
        reported_at: Date;
      }>`
        select gateway_message_id, status, provider_status, error_message, reported_at
          from unmatched_delivery_reports
         where company_id = ${companyId}
         order by received_at
         limit ${batchSize}
           for update skip locked`.execute(trx);
      if (rows.length === 0) return;
      const outcomes = await applyDeliveryUpdates(
        trx,
        companyId,
        rows.map((row) => ({
          providerMessageId: row.gateway_message_id,
          status: row.status,
          providerStatus: row.provider_status ?? row.status,
          error: row.error_message,
          at: row.reported_at,
        })),
        { keepUnknown: false },
      );
      const found = rows.filter((_, index) => outcomes[index] !== 'unknown');
      applied += found.length;
      if (found.length === 0) return;
      await sql`
        delete from unmatched_delivery_reports
         where company_id = ${companyId}
           and (gateway_message_id, status) in (
             select * from unnest(${found.map((row) => row.gateway_message_id)}::text[], ${found.map((row) => row.status)}::text[]))`.execute(
        trx,
      );
    });
  }
  return applied;
}

/**
 * Sends that are waiting without a queue job (loaded by the demo seed or an import, or whose job
 * was lost) get one: at their scheduled time, or now. The job key is the same one the API uses
 * for that schedule, so a send that has its job is never given a second.
 */
export async function adoptSendsWithoutJobs(db: Database, queue: JobQueue) {
  return inTenantTransaction(db, platformScope, async (trx) => {
    await sql`
      insert into message_sends (company_id, message_id, state)
      select m.company_id, m.id, 'waiting' from messages m
       where m.direction = 'outbound' and m.status in ('queued', 'scheduled')
         and not exists (select 1 from message_sends s where s.company_id = m.company_id and s.message_id = m.id)`.execute(
      trx,
    );
    const { rows } = await sql<{ company_id: number; id: number; scheduled_at: Date | null; status: string }>`
      select m.company_id, m.id, m.scheduled_at, m.status
        from messages m
        join message_sends s on s.company_id = m.company_id and s.message_id = m.id and s.state = 'waiting'
       where m.direction = 'outbound' and m.status in ('queued', 'scheduled')
         and (m.queue_job_id is null
              or m.queue_job_id !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
              or not exists (select 1 from pgboss.job j
                              where j.name = ${SEND_START_JOB.name} and j.id = m.queue_job_id::uuid))
       order by m.id
       limit 1000`.execute(trx);
    for (const row of rows) {
      const startAfter = row.status === 'scheduled' ? (row.scheduled_at ?? undefined) : undefined;
      const jobId = await queue.enqueue(
        trx,
        SEND_START_JOB,
        { companyId: row.company_id, messageId: row.id },
        { key: sendJobKey(row.id, startAfter ?? null), startAfter },
      );
      await sql`update messages set queue_job_id = ${jobId} where company_id = ${row.company_id} and id = ${row.id}`.execute(
        trx,
      );
    }
    return rows.length;
  });
}
