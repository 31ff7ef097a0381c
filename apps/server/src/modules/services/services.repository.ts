import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

export type ServiceFilter = { companyId: number | null; status?: string; search?: string };

const serviceWithCompany = (db: Executor) =>
  db
    .selectFrom('services as s')
    .innerJoin('companies as c', 'c.id', 's.company_id')
    .select([
      's.id',
      's.company_id',
      's.name',
      's.shortcode',
      's.keyword',
      's.description',
      's.billing_type',
      's.status',
      's.subscriber_count',
      's.message_count',
      's.last_activity_at',
      's.created_at',
      's.updated_at',
      'c.name as company_name',
      'c.status as company_status',
    ]);

export type ServiceWithCompany = NonNullable<Awaited<ReturnType<typeof findService>>>;

export function listServices(db: Executor, filter: ServiceFilter) {
  let query = serviceWithCompany(db);
  if (filter.companyId !== null) query = query.where('s.company_id', '=', filter.companyId);
  if (filter.status) query = query.where('s.status', '=', filter.status);
  if (filter.search) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, '\\$&').toLowerCase()}%`;
    query = query.where((eb) =>
      eb.or([
        eb(sql<string>`lower(s.name)`, 'like', pattern),
        eb(sql<string>`lower(s.shortcode)`, 'like', pattern),
        eb(sql<string>`lower(s.keyword)`, 'like', pattern),
      ]),
    );
  }
  return query.orderBy('c.name').orderBy('s.name').orderBy('s.id').execute();
}

/** One service, limited to the tenant when companyId is given (another tenant's id reads as missing). */
export function findService(db: Executor, id: number, companyId: number | null) {
  let query = serviceWithCompany(db).where('s.id', '=', id);
  if (companyId !== null) query = query.where('s.company_id', '=', companyId);
  return query.executeTakeFirst();
}

/** Locks the row for a change; same tenant rule as findService. */
export function lockService(db: Executor, id: number, companyId: number | null) {
  let query = db.selectFrom('services').selectAll().where('id', '=', id);
  if (companyId !== null) query = query.where('company_id', '=', companyId);
  return query.forUpdate().executeTakeFirst();
}

export function companyExists(db: Executor, companyId: number) {
  return db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst().then(Boolean);
}

export type ServiceValues = {
  companyId: number;
  name: string;
  shortcode: string;
  keyword: string;
  description: string;
  billingType: string;
  status: string;
};

/** Another service holding the pair, compared as the unique index does (upper case). */
export function findServiceByPair(db: Executor, shortcode: string, keyword: string, exceptId?: number) {
  let query = db
    .selectFrom('services')
    .select(['id', 'company_id'])
    .where(sql<string>`upper(shortcode)`, '=', shortcode.toUpperCase())
    .where(sql<string>`upper(keyword)`, '=', keyword.toUpperCase());
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  return query.executeTakeFirst();
}

function serviceColumns(values: ServiceValues) {
  return {
    company_id: values.companyId,
    name: values.name,
    shortcode: values.shortcode,
    keyword: values.keyword,
    description: values.description,
    billing_type: values.billingType,
    status: values.status,
  };
}

export async function insertService(db: Executor, values: ServiceValues) {
  const row = await db
    .insertInto('services')
    .values(serviceColumns(values))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** companyId is the service's company before the change (values may move it to another). */
export async function updateService(db: Executor, companyId: number, id: number, values: ServiceValues) {
  await db
    .updateTable('services')
    .set({ ...serviceColumns(values), updated_at: new Date() })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .execute();
}

/**
 * Ends the service's subscriptions (a subscriber left with no active one becomes 'unsubscribed'),
 * then deletes it; messages stay (their service_id is set null by the foreign key).
 */
export async function deleteService(db: Executor, companyId: number, id: number) {
  await sql`
    update subscribers sub set status = 'unsubscribed', updated_at = now()
      from subscriptions x
     where x.company_id = ${companyId} and x.service_id = ${id} and x.status = 'active'
       and sub.company_id = x.company_id and sub.id = x.subscriber_id and sub.status = 'active'
       and not exists (
         select 1 from subscriptions o
          where o.company_id = x.company_id and o.subscriber_id = x.subscriber_id and o.service_id <> ${id}
            and o.status = 'active')
  `.execute(db);
  await db.deleteFrom('services').where('company_id', '=', companyId).where('id', '=', id).execute();
}

/** Whether the company changed hands with subscribers attached: subscriptions carry company_id. */
export async function hasSubscriptions(db: Executor, companyId: number, serviceId: number) {
  const row = await db
    .selectFrom('subscriptions')
    .select(sql`1`.as('one'))
    .where('company_id', '=', companyId)
    .where('service_id', '=', serviceId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether any message names the service (messages.service_id's key includes the company). */
export async function hasMessages(db: Executor, companyId: number, serviceId: number) {
  const row = await db
    .selectFrom('messages')
    .select(sql`1`.as('one'))
    .where('company_id', '=', companyId)
    .where('service_id', '=', serviceId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
