import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { regenerateCallbackTokens } from '../../src/modules/callbacks/callback-tokens.ts';

let counter = 0;
const unique = () => `${Date.now().toString(36).slice(-4)}${(counter++).toString(36)}`.toUpperCase();

export async function createService(
  db: Database,
  companyId: number,
  overrides: Partial<{
    name: string;
    shortcode: string;
    keyword: string;
    status: string;
    billingType: string;
  }> = {},
) {
  const id = unique();
  return db
    .insertInto('services')
    .values({
      company_id: companyId,
      name: overrides.name ?? `Service ${id}`,
      shortcode: overrides.shortcode ?? `9${(counter * 7919) % 100000}`,
      keyword: overrides.keyword ?? `KW${id}`,
      status: overrides.status ?? 'active',
      billing_type: overrides.billingType ?? 'on_demand',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Active subscribers of the service with these E.164 numbers (created when new). */
export async function subscribeNumbers(
  db: Database,
  service: { id: number; company_id: number },
  msisdns: string[],
) {
  await sql`
    insert into subscribers (company_id, msisdn, status)
    select ${service.company_id}, m, 'active' from unnest(${msisdns}::text[]) as u(m)
    on conflict (company_id, msisdn) do nothing`.execute(db);
  await sql`
    insert into subscriptions (company_id, service_id, subscriber_id, status, source)
    select ${service.company_id}, ${service.id}, s.id, 'active', 'console'
      from subscribers s where s.company_id = ${service.company_id} and s.msisdn = any(${msisdns}::text[])
    on conflict do nothing`.execute(db);
}

/** Kenyan mobile numbers +2547XXXXXXXX, distinct for each (prefix, index). */
export const kenyanNumber = (prefix: number, index: number) =>
  `+2547${String(prefix).padStart(2, '0')}${String(index).padStart(6, '0')}`;

export async function subscriptionCallbackToken(db: Database, companyId: number) {
  const tokens = await regenerateCallbackTokens(db, companyId, Buffer.from('a'.repeat(64), 'hex'));
  return tokens.subscription;
}

export function subscriptionOf(db: Database, serviceId: number, msisdn: string) {
  return db
    .selectFrom('subscriptions as x')
    .innerJoin('subscribers as s', 's.id', 'x.subscriber_id')
    .select(['x.status', 'x.source', 's.status as subscriber_status'])
    .where('x.service_id', '=', serviceId)
    .where('s.msisdn', '=', msisdn)
    .executeTakeFirst();
}
