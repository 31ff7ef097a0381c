import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';

type MessageInput = {
  companyId: number;
  serviceIds?: number[];
  direction?: 'inbound' | 'outbound';
  status?: string;
  content?: string;
  msisdn?: string | null;
  createdAt?: Date;
  scheduledAt?: Date | null;
  sentAt?: Date | null;
  recipientCount?: number | null;
  queueJobId?: string | null;
};

/** A message row as the engine or the inbound callback leaves it (written as the owner, past RLS). */
export async function insertMessage(db: Database, input: MessageInput) {
  const serviceIds = input.serviceIds ?? [];
  const { rows } = await sql<{ id: number }>`
    insert into messages (company_id, service_id, service_ids, direction, content, msisdn, status, scheduled_at,
                          sent_at, recipient_count, queue_job_id, encoding, parts, created_at, updated_at)
    values (${input.companyId}, ${serviceIds[0] ?? null}, ${serviceIds}::bigint[], ${input.direction ?? 'outbound'},
            ${input.content ?? 'Hello'}, ${input.msisdn ?? null}, ${input.status ?? 'sent'}, ${input.scheduledAt ?? null},
            ${input.sentAt ?? null}, ${input.recipientCount ?? null}, ${input.queueJobId ?? null},
            ${input.direction === 'inbound' ? null : 'GSM-7'}, ${input.direction === 'inbound' ? null : 1},
            ${input.createdAt ?? new Date()}, now())
    returning id`.execute(db);
  return rows[0]!.id;
}

/** Many plain messages at once, one a second back from `from`. */
export async function insertManyMessages(db: Database, companyId: number, count: number, from: Date) {
  await sql`
    insert into messages (company_id, direction, content, status, created_at, updated_at)
    select ${companyId}, 'outbound', 'Bulk ' || g, 'sent', ${from}::timestamptz - g * interval '1 second', now()
      from generate_series(1, ${count}) g`.execute(db);
}

type Recipient = {
  phone: string;
  status?: string;
  gatewayMessageId?: string | null;
  deliveredAt?: Date | null;
  errorMessage?: string | null;
};

/**
 * The engine's record of a send: its state row, one recipient row each, and the per-status counters
 * (in two shards, as concurrent batches leave them).
 */
export async function recordSend(
  db: Database,
  message: { id: number; companyId: number },
  state: 'waiting' | 'fanout' | 'dispatch' | 'done' | 'cancelled',
  recipients: Recipient[],
  recipientsAt = new Date(),
) {
  await sql`select ensure_delivery_report_partition(${recipientsAt}::timestamptz)`.execute(db);
  await sql`
    insert into message_sends (company_id, message_id, state, recipients_at, recipients, started_at, handed_over_at, updated_at)
    values (${message.companyId}, ${message.id}, ${state}, ${state === 'waiting' ? null : recipientsAt}, ${recipients.length},
            ${state === 'waiting' ? null : recipientsAt}, ${state === 'done' ? new Date(recipientsAt.getTime() + 2000) : null}, now())`.execute(
    db,
  );
  if (recipients.length === 0) return;
  await sql`
    insert into delivery_reports (company_id, created_at, message_id, recipient_phone, status, gateway_message_id,
                                  delivered_at, error_message, attempts)
    select ${message.companyId}, ${recipientsAt}, ${message.id}, r.phone, r.status, r.gateway, r.delivered_at, r.error, 1
      from unnest(${recipients.map((r) => r.phone)}::text[], ${recipients.map((r) => r.status ?? 'pending')}::text[],
                  ${recipients.map((r) => r.gatewayMessageId ?? null)}::text[],
                  ${recipients.map((r) => r.deliveredAt ?? null)}::timestamptz[],
                  ${recipients.map((r) => r.errorMessage ?? null)}::text[])
           with ordinality as r(phone, status, gateway, delivered_at, error, position)
     order by r.position`.execute(db);
  await sql`
    insert into message_delivery_counts (company_id, message_id, shard, pending, submitted, sent, delivered, failed, rejected, expired)
    select ${message.companyId}, ${message.id}, shard,
           count(*) filter (where status = 'pending'), count(*) filter (where status = 'submitted'),
           count(*) filter (where status = 'sent'), count(*) filter (where status = 'delivered'),
           count(*) filter (where status = 'failed'), count(*) filter (where status = 'rejected'),
           count(*) filter (where status = 'expired')
      from (select status, (row_number() over ()) % 2 as shard
              from delivery_reports where company_id = ${message.companyId} and message_id = ${message.id}) r
     group by shard`.execute(db);
}
