import {
  RECIPIENT_COUNT_EXACT_UP_TO,
  RECIPIENT_PREVIEW_SAMPLE,
} from '@sms/contracts/messages/manage-message';
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type TargetService = { id: number; company_id: number; name: string; status: string };

/** The services of a send, visible to the transaction's scope (another company's are simply absent). */
export async function findServices(db: Executor, ids: number[], companyId: number | null) {
  let query = db.selectFrom('services').select(['id', 'company_id', 'name', 'status']).where('id', 'in', ids);
  if (companyId !== null) query = query.where('company_id', '=', companyId);
  return query.orderBy('id').execute();
}

export async function findCompanyLimits(db: Executor, companyId: number) {
  return db
    .selectFrom('companies')
    .select(['id', 'status', 'plan', 'messages_limit'])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

const ACTIVE_SUBSCRIBERS = (companyId: number, serviceIds: number[]) => sql`
  select distinct s.subscriber_id
    from subscriptions s
    join subscribers sub on sub.id = s.subscriber_id and sub.company_id = ${companyId} and sub.status = 'active'
   where s.company_id = ${companyId} and s.service_id = any(${serviceIds}::bigint[]) and s.status = 'active'`;

/**
 * How many distinct active subscribers (so phone numbers) the services reach. Exact while the
 * services hold at most RECIPIENT_COUNT_EXACT_UP_TO subscriptions; beyond, the services' kept
 * counters give an upper bound without scanning (the fan-out then records the exact number).
 */
export async function countRecipients(db: Executor, companyId: number, serviceIds: number[]) {
  const upperBound = await db
    .selectFrom('services')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('subscriber_count'), eb.lit(0)).as('total'))
    .where('company_id', '=', companyId)
    .where('id', 'in', serviceIds)
    .executeTakeFirstOrThrow();
  const bound = Number(upperBound.total);
  if (bound > RECIPIENT_COUNT_EXACT_UP_TO) return { count: bound, exact: false };
  const { rows } = await sql<{ count: number }>`
    select count(*)::int as count from (${ACTIVE_SUBSCRIBERS(companyId, serviceIds)}) recipients`.execute(db);
  return { count: rows[0].count, exact: true };
}

/** The first recipients by subscriber id, with their fields: the send form's previews. */
export async function sampleRecipients(
  db: Executor,
  companyId: number,
  serviceIds: number[],
  limit = RECIPIENT_PREVIEW_SAMPLE,
) {
  const { rows } = await sql<{ id: number; msisdn: string; attributes: Record<string, string> }>`
    select sub.id, sub.msisdn, sub.attributes
      from subscribers sub
     where sub.id in (
       select s.subscriber_id from subscriptions s
        where s.company_id = ${companyId} and s.service_id = any(${serviceIds}::bigint[]) and s.status = 'active'
        order by s.subscriber_id limit ${limit * 4})
       and sub.company_id = ${companyId} and sub.status = 'active'
     order by sub.id
     limit ${limit}`.execute(db);
  return rows;
}

export type NewOutboundMessage = {
  companyId: number;
  serviceIds: number[];
  content: string;
  /** processing: a transactional send, handed to the engine as it is written. */
  status: 'pending' | 'queued' | 'scheduled' | 'processing';
  scheduledAt: Date | null;
  encoding: 'GSM-7' | 'UCS-2';
  parts: number;
  /** The merge fields the text uses: the engine renders each recipient's text when there are some. */
  mergeFields?: string[];
  recipientCount: number;
  createdBy: number;
};

export async function insertMessage(db: Executor, message: NewOutboundMessage) {
  const row = await db
    .insertInto('messages')
    .values({
      company_id: message.companyId,
      service_id: message.serviceIds[0] ?? null,
      service_ids: message.serviceIds,
      direction: 'outbound',
      content: message.content,
      status: message.status,
      scheduled_at: message.scheduledAt,
      encoding: message.encoding,
      parts: message.parts,
      merge_fields: message.mergeFields ?? [],
      recipient_count: message.recipientCount,
      created_by: message.createdBy,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export type LockedMessage = {
  id: number;
  company_id: number;
  status: string;
  scheduled_at: Date | null;
  queue_job_id: string | null;
  service_ids: number[];
  content: string;
};

/** An outbound message of the caller's scope, locked until the transaction ends. */
export async function lockMessage(db: Executor, id: number, companyId: number | null) {
  let query = db
    .selectFrom('messages')
    .select(['id', 'company_id', 'status', 'scheduled_at', 'queue_job_id', 'service_ids', 'content'])
    .where('id', '=', id)
    .where('direction', '=', 'outbound');
  if (companyId !== null) query = query.where('company_id', '=', companyId);
  return (await query.forUpdate().executeTakeFirst()) as LockedMessage | undefined;
}

export async function updateDraft(
  db: Executor,
  companyId: number,
  id: number,
  values: {
    serviceIds: number[];
    content: string;
    status: string;
    scheduledAt: Date | null;
    encoding: 'GSM-7' | 'UCS-2';
    parts: number;
    mergeFields: string[];
    recipientCount: number;
  },
) {
  await db
    .updateTable('messages')
    .set({
      service_id: values.serviceIds[0] ?? null,
      service_ids: values.serviceIds,
      content: values.content,
      status: values.status,
      scheduled_at: values.scheduledAt,
      encoding: values.encoding,
      parts: values.parts,
      merge_fields: values.mergeFields,
      recipient_count: values.recipientCount,
      updated_at: new Date(),
    })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .execute();
}

export async function setMessageStatus(db: Executor, companyId: number, id: number, status: string) {
  await db
    .updateTable('messages')
    .set({ status, updated_at: new Date() })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .execute();
}

/** A scheduled message cancelled: kept with its new status, who cancelled it and when. */
export async function markMessageCancelled(
  db: Executor,
  companyId: number,
  id: number,
  by: { userId: number; name: string },
) {
  const now = new Date();
  await db
    .updateTable('messages')
    .set({
      status: 'cancelled',
      cancelled_at: now,
      cancelled_by: by.userId,
      cancelled_by_name: by.name,
      updated_at: now,
    })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .execute();
}

export async function deleteMessage(db: Executor, companyId: number, id: number) {
  await db.deleteFrom('messages').where('company_id', '=', companyId).where('id', '=', id).execute();
}

/** What a waiting send holds against the monthly limit. */
export async function findReservation(db: Executor, companyId: number, messageId: number) {
  const row = await db
    .selectFrom('message_sends')
    .select(['reserved_units', sql<string | null>`to_char(usage_month, 'YYYY-MM-DD')`.as('usage_month')])
    .where('company_id', '=', companyId)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
  return row ?? null;
}

export async function saveReservation(
  db: Executor,
  companyId: number,
  messageId: number,
  units: number,
  month: string | null,
) {
  await sql`
    insert into message_sends (company_id, message_id, state, reserved_units, usage_month)
    values (${companyId}, ${messageId}, 'waiting', ${units}, ${month}::date)
    on conflict (company_id, message_id) do update
      set reserved_units = excluded.reserved_units, usage_month = excluded.usage_month, updated_at = now()`.execute(
    db,
  );
}
