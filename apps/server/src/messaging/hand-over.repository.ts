import { MESSAGE_MESSAGES, type TDeliveryStatus } from '@sms/contracts/messages/message';
import { parseTemplate, type TTemplate } from '@sms/contracts/templates/merge-fields';
import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import type { ReportId } from './providers/provider.ts';
import { type CountChange, recordSendProgress } from './send-progress.ts';

export type BatchJob = { companyId: number; messageId: number; firstId: string; lastId: string };

/** A pending recipient of the batch, as it is offered; attributes: its subscriber's, for a personalised send. */
export type Claimed = {
  id: string;
  recipient_phone: string;
  service_id: number | null;
  attempts: number;
  attributes?: Record<string, string> | null;
};

/** What the hand-over needs of a send, read once per batch job. */
export type SendPlan = {
  recipientsAt: Date;
  text: string;
  encoding: 'GSM-7' | 'UCS-2';
  parts: number;
  /** Each service's short code: its recipients' sender. */
  senders: Map<number, string>;
  /** A text with merge fields: each recipient's own text is rendered from it. */
  template: TTemplate | null;
};

/** A recipient's new row state after an offer. */
export type Recorded = {
  id: string;
  status: TDeliveryStatus;
  gatewayId: string | null;
  providerStatus: string | null;
  error: string | null;
  /** Whether this offer counts as one of the recipient's attempts. */
  counted: boolean;
  /** The ids its delivery reports may name (recipient_gateway_ids), and how many parts' reports decide it. */
  reportIds: readonly ReportId[];
  reportParts: number | null;
  unknown: boolean;
};

type Times = { sendValidityHours: number; claimSeconds: number };

export async function readSendPlan(db: Database, job: BatchJob): Promise<SendPlan | null> {
  return inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
    const { rows } = await sql<{
      recipients_at: Date | null;
      content: string;
      encoding: 'GSM-7' | 'UCS-2' | null;
      parts: number | null;
      service_ids: number[];
      merge_fields: string[];
    }>`
      select s.recipients_at, m.content, m.encoding, m.parts, m.service_ids, m.merge_fields
        from message_sends s join messages m on m.company_id = s.company_id and m.id = s.message_id
       where s.company_id = ${job.companyId} and s.message_id = ${job.messageId}`.execute(trx);
    const row = rows[0];
    if (!row?.recipients_at) return null;
    const services = await trx
      .selectFrom('services')
      .select(['id', 'shortcode'])
      .where('company_id', '=', job.companyId)
      .where('id', 'in', row.service_ids.length > 0 ? row.service_ids : [0])
      .execute();
    return {
      recipientsAt: row.recipients_at,
      text: row.content,
      encoding: row.encoding ?? 'GSM-7',
      parts: Math.max(1, row.parts ?? 1),
      senders: new Map(services.map((service) => [service.id, service.shortcode])),
      template: row.merge_fields.length > 0 ? parseTemplate(row.content) : null,
    };
  });
}

/**
 * Claims the batch's range for this run, unless another run holds it (a job retried while its first
 * run still worked) and its claim has not passed (extended with every recorded outcome).
 */
export async function claimBatch(db: Database, settings: Times, job: BatchJob) {
  return inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
    const { rows } = await sql`
      insert into hand_over_claims as c (company_id, message_id, first_id, claimed_until)
      values (${job.companyId}, ${job.messageId}, ${job.firstId},
              now() + make_interval(secs => ${settings.claimSeconds}))
      on conflict (company_id, message_id, first_id) do update set claimed_until = excluded.claimed_until
       where c.claimed_until <= now()
      returning 1`.execute(trx);
    return rows.length > 0;
  });
}

export async function extendClaim(trx: Executor, settings: Times, job: BatchJob) {
  await sql`
    update hand_over_claims set claimed_until = now() + make_interval(secs => ${settings.claimSeconds})
     where company_id = ${job.companyId} and message_id = ${job.messageId} and first_id = ${job.firstId}`.execute(
    trx,
  );
}

export function releaseBatch(db: Database, job: BatchJob) {
  return inTenantTransaction(db, companyScope(job.companyId), (trx) =>
    sql`delete from hand_over_claims
         where company_id = ${job.companyId} and message_id = ${job.messageId} and first_id = ${job.firstId}`.execute(
      trx,
    ),
  );
}

/**
 * The provider failed for the whole account: the company's sends are held with the reason, its
 * provider is marked failing (the Admin Panel), and batches wait as long as it has been failing
 * (1 s to 60 s) before they probe it again.
 */
export async function providerFailed(trx: Executor, job: BatchJob, reason: string) {
  await sql`
    insert into company_provider_health as h (company_id, reason, next_probe_at)
    values (${job.companyId}, ${reason}, now() + interval '1 second')
    on conflict (company_id) do update
      set reason = excluded.reason, updated_at = now(),
          next_probe_at = now() + least(interval '60 seconds', greatest(interval '1 second', now() - h.failing_since))`.execute(
    trx,
  );
  await holdSend(trx, job, MESSAGE_MESSAGES.providerUnavailable(reason));
}

/** The provider answered for a recipient again: it is no longer failing. */
export async function providerAnswered(trx: Executor, companyId: number) {
  await sql`delete from company_provider_health where company_id = ${companyId}`.execute(trx);
}

/** Holds a running send; `reason` null: its company is not active. */
export async function holdSend(trx: Executor, job: BatchJob, reason: string | null) {
  await sql`update message_sends set state = 'held', failed_reason = ${reason}, updated_at = now()
             where company_id = ${job.companyId} and message_id = ${job.messageId} and state in ('dispatch', 'held')`.execute(
    trx,
  );
}

/** Whether the send is past its validity: its due time (the schedule, else its start) plus SEND_VALIDITY_HOURS. */
export const expiredSql = (job: BatchJob, settings: Times) => sql<boolean>`(
  select coalesce(m.scheduled_at, s.started_at) < now() - make_interval(hours => ${settings.sendValidityHours})
    from message_sends s join messages m on m.company_id = s.company_id and m.id = s.message_id
   where s.company_id = ${job.companyId} and s.message_id = ${job.messageId})`;

export async function failPending(trx: Executor, job: BatchJob, plan: SendPlan, reason: string) {
  const failed = await sql`
    update delivery_reports set status = 'failed', error_message = ${reason}, updated_at = now()
     where company_id = ${job.companyId} and message_id = ${job.messageId} and created_at = ${plan.recipientsAt}
       and id between ${job.firstId} and ${job.lastId} and status = 'pending'`.execute(trx);
  const count = Number(failed.numAffectedRows ?? 0);
  await recordSendProgress(trx, job.companyId, [
    { messageId: job.messageId, from: 'pending', to: 'failed', count },
  ]);
}

/**
 * Every outcome of a batch in one statement, with the ids its reports may name (where delivery
 * reports find their recipient, recipient_gateway_ids), then the counters' moves.
 */
export async function recordOutcomes(trx: Executor, job: BatchJob, plan: SendPlan, records: Recorded[]) {
  const reportIds = records.flatMap((r) => r.reportIds.map((reportId) => ({ recipient: r.id, ...reportId })));
  const { rows: moved } = await sql<{ status: TDeliveryStatus; count: number }>`
    with handed_over as (
      update delivery_reports d
         set status = u.status,
             gateway_message_id = u.gateway_id,
             provider_status = u.provider_status,
             error_message = u.error,
             attempts = d.attempts + case when u.counted then 1 else 0 end,
             submitted_at = case when u.status = 'submitted' then now() else d.submitted_at end,
             report_parts = u.report_parts,
             outcome_unknown_since = case when u.unknown then now() end,
             updated_at = now()
        from unnest(${records.map((r) => r.id)}::bigint[], ${records.map((r) => r.status)}::text[],
                    ${records.map((r) => r.gatewayId)}::text[], ${records.map((r) => r.providerStatus)}::text[],
                    ${records.map((r) => r.error)}::text[], ${records.map((r) => r.counted)}::boolean[],
                    ${records.map((r) => r.reportParts)}::smallint[], ${records.map((r) => r.unknown)}::boolean[])
             as u(id, status, gateway_id, provider_status, error, counted, report_parts, unknown)
       where d.company_id = ${job.companyId} and d.message_id = ${job.messageId}
         and d.created_at = ${plan.recipientsAt} and d.id = u.id
         and d.id between ${records[0].id} and ${records[records.length - 1].id}
         -- A final status is never overwritten.
         and d.status = 'pending'
      returning d.company_id, d.created_at, d.message_id, d.id, d.status),
    gateway_ids as (
      insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id, part, alternative)
      select h.company_id, k.gateway_id, h.created_at, h.message_id, h.id, k.part, k.alternative
        from unnest(${reportIds.map((k) => k.recipient)}::bigint[], ${reportIds.map((k) => k.id)}::text[],
                    ${reportIds.map((k) => k.part)}::smallint[], ${reportIds.map((k) => k.alternative ?? false)}::boolean[])
             as k(id, gateway_id, part, alternative)
        join handed_over h on h.id = k.id)
    select status, count(*)::int as count from handed_over group by status`.execute(trx);
  const changes: CountChange[] = moved.map((row) => ({
    messageId: job.messageId,
    from: 'pending',
    to: row.status,
    count: row.count,
  }));
  await recordSendProgress(trx, job.companyId, changes);
}

export async function readSendState(trx: Executor, job: BatchJob, settings: Times) {
  const { rows } = await sql<{
    state: string;
    held_reason: string | null;
    active: boolean;
    expired: boolean;
    provider_failure: string | null;
    provider_resting: boolean | null;
  }>`
    select s.state, s.failed_reason as held_reason, c.status = 'active' as active,
           ${expiredSql(job, settings)} as expired,
           h.reason as provider_failure, h.next_probe_at > now() as provider_resting
      from message_sends s
      join companies c on c.id = s.company_id
      left join company_provider_health h on h.company_id = s.company_id
     where s.company_id = ${job.companyId} and s.message_id = ${job.messageId}`.execute(trx);
  return rows[0];
}

export async function resumeSend(trx: Executor, job: BatchJob) {
  await sql`update message_sends set state = 'dispatch', failed_reason = null, updated_at = now()
             where company_id = ${job.companyId} and message_id = ${job.messageId} and state = 'held'`.execute(
    trx,
  );
}

/** The batch's next pending recipients after `after`, in id order: read, not locked (the range is this run's). */
export function readPendingRecipients(
  db: Database,
  job: BatchJob,
  plan: SendPlan,
  after: bigint,
  limit: number,
) {
  return inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
    const { rows } = await sql<Claimed & { subscriber_id: string | null }>`
      select id::text as id, recipient_phone, service_id, attempts, subscriber_id::text as subscriber_id
        from delivery_reports
       where company_id = ${job.companyId} and message_id = ${job.messageId} and created_at = ${plan.recipientsAt}
         and id > ${String(after)} and id <= ${job.lastId} and status = 'pending'
       -- The table's id, not the text one selected: '10' sorts before '6'.
       order by delivery_reports.id
       limit ${limit}`.execute(trx);
    if (!plan.template) return rows;
    // A personalised send: each recipient's subscriber's attributes as they are now.
    const attributes = await readAttributes(
      trx,
      job.companyId,
      rows.flatMap((row) => (row.subscriber_id === null ? [] : [BigInt(row.subscriber_id)])),
    );
    return rows.map((row) => ({
      ...row,
      attributes: row.subscriber_id === null ? null : (attributes.get(row.subscriber_id) ?? null),
    }));
  });
}

/**
 * The attributes of a batch's subscribers: mostly a run of ids (the fan-out writes in subscriber
 * order), read as one range of the key when it is dense, else id by id.
 */
async function readAttributes(trx: Executor, companyId: number, subscriberIds: bigint[]) {
  if (subscriberIds.length === 0) return new Map<string, Record<string, string>>();
  let first = subscriberIds[0];
  let last = subscriberIds[0];
  for (const id of subscriberIds) {
    if (id < first) first = id;
    if (id > last) last = id;
  }
  const dense = last - first < BigInt(subscriberIds.length) * 4n;
  const { rows } = await (dense
    ? sql<{ id: string; attributes: Record<string, string> }>`
        select id::text as id, attributes from subscribers
         where company_id = ${companyId} and id between ${String(first)} and ${String(last)}`
    : sql<{ id: string; attributes: Record<string, string> }>`
        select id::text as id, attributes from subscribers
         where company_id = ${companyId} and id = any(${subscriberIds.map(String)}::bigint[])`
  ).execute(trx);
  return new Map(rows.map((row) => [row.id, row.attributes]));
}

/** How many of the batch's recipients are still pending, and whether the send is past its validity. */
export async function readBatchLeft(trx: Executor, job: BatchJob, plan: SendPlan, settings: Times) {
  const { rows } = await sql<{ left: number; expired: boolean }>`
    select (select count(*)::int from delivery_reports
             where company_id = ${job.companyId} and message_id = ${job.messageId}
               and created_at = ${plan.recipientsAt} and id between ${job.firstId} and ${job.lastId}
               and status = 'pending') as left,
           ${expiredSql(job, settings)} as expired`.execute(trx);
  return rows[0];
}
