import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type CallbackService = {
  id: number;
  company_id: number;
  name: string;
  shortcode: string;
  keyword: string;
};

/**
 * The company's active services on a short code (case-insensitive). Provider callbacks act on
 * active services only: an inactive or paused one is treated like an unknown one.
 */
export function findServicesByShortcode(db: Executor, companyId: number, shortcode: string) {
  return db
    .selectFrom('services')
    .select(['id', 'company_id', 'name', 'shortcode', 'keyword', 'status'])
    .where('company_id', '=', companyId)
    .where('status', '=', 'active')
    .where(sql<string>`upper(shortcode)`, '=', shortcode.toUpperCase())
    .orderBy('id')
    .execute();
}

/** Every active service of the company: what an opt-out without a known short code ends. */
export async function findActiveServiceIds(db: Executor, companyId: number) {
  const rows = await db
    .selectFrom('services')
    .select('id')
    .where('company_id', '=', companyId)
    .where('status', '=', 'active')
    .execute();
  return rows.map((row) => row.id);
}

/** The company's status (active, suspended, ...), or null when it does not exist. */
export async function findCompanyStatus(db: Executor, companyId: number) {
  const company = await db
    .selectFrom('companies')
    .select('status')
    .where('id', '=', companyId)
    .executeTakeFirst();
  return company?.status ?? null;
}

export type InboundMessage = {
  companyId: number;
  serviceId: number | null;
  msisdn: string;
  content: string;
  providerMessageId: string | null;
  /** When it reached the provider (its `date`, when plausible): the message's time in the logs. */
  receivedAt: Date;
};

/** Stores an incoming message; false when the provider already delivered this id (nothing stored). */
export async function insertInboundMessage(db: Executor, message: InboundMessage) {
  const result = await sql<{ id: number }>`
    insert into messages (company_id, service_id, service_ids, direction, content, msisdn, status, provider_message_id, created_at)
    values (${message.companyId}, ${message.serviceId},
            ${message.serviceId === null ? [] : [message.serviceId]}::bigint[],
            'inbound', ${message.content}, ${message.msisdn}, 'received', ${message.providerMessageId},
            ${message.receivedAt})
    on conflict (company_id, provider_message_id) where direction = 'inbound' and provider_message_id is not null
    do nothing
    returning id
  `.execute(db);
  return result.rows[0]?.id ?? null;
}

/**
 * Whether the company received an incoming message whose provider id begins with `idPrefix` at or
 * after `since`. Holds every other caller with the same prefix until this transaction ends first,
 * so that a message sent again while the first is still being stored finds it.
 */
export async function lockAndFindRecentInbound(
  db: Executor,
  companyId: number,
  idPrefix: string,
  since: Date,
) {
  await sql`select pg_advisory_xact_lock(hashtextextended(${idPrefix}, ${companyId}))`.execute(db);
  // The company's last few seconds of messages, by its (company_id, created_at) index.
  const { rows } = await sql<{ found: boolean }>`
    select exists (select 1 from messages
                    where company_id = ${companyId} and created_at >= ${since} and direction = 'inbound'
                      and starts_with(provider_message_id, ${idPrefix})) as found`.execute(db);
  return rows[0]!.found;
}
