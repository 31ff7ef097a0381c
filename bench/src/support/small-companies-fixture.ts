import { sql } from 'kysely';
import type { Database } from '../../../apps/server/src/db/database.ts';
import { hashPassword } from '../../../apps/server/src/modules/auth/passwords.ts';
import { regenerateCallbackTokens } from '../../../apps/server/src/modules/callbacks/callback-tokens.ts';
import { BULK_SEND_PASSWORD } from './bulk-send-fixture.ts';
import { BENCH_ENCRYPTION_KEY } from './server-process.ts';

/** One small company of the fixture: whom to sign in as and what to send to. */
export type SmallCompany = { companyId: number; serviceId: number; adminEmail: string };

/**
 * `count` small companies, each with a company admin (password BULK_SEND_PASSWORD), one service and
 * `subscribersEach` active subscribers on it, and its callback tokens (the simulator posts its
 * delivery reports to the company's own URL). Written set-based as the owner; `label` keeps the
 * names, e-mail addresses and service keywords apart from another call's.
 */
export async function prepareSmallCompanies(
  db: Database,
  options: { count: number; subscribersEach: number; label: string },
): Promise<SmallCompany[]> {
  const { count, subscribersEach, label } = options;
  const slug = label.toLowerCase();
  // One hash for every admin: argon2 takes a good part of a second a hash on this machine.
  const passwordHash = await hashPassword(BULK_SEND_PASSWORD);
  const { rows } = await sql<{ company_id: number; service_id: number; admin_email: string }>`
    with numbered as (
      select g as n from generate_series(1, ${count}::int) g
    ),
    companies_made as (
      insert into companies (name, email, phone_number, address, messages_limit, subscribers_limit)
      select ${label} || ' Co ' || n, ${slug} || '-' || n || '@co.test', '+254700000000', 'Bench Street ' || n,
             1000000000, 1000000000
        from numbered
      returning id
    ),
    companies_numbered as (
      select id, row_number() over (order by id) as n from companies_made
    ),
    admins as (
      insert into users (company_id, name, email, password_hash, role)
      select id, ${label} || ' Admin ' || n, ${slug} || '-admin-' || n || '@co.test', ${passwordHash}, 'company_admin'
        from companies_numbered
      returning company_id, email
    ),
    services_made as (
      insert into services (company_id, name, shortcode, keyword)
      select id, ${label} || ' Service', '22550', upper(${slug}) || n from companies_numbered
      returning company_id, id
    )
    select s.company_id::int, s.id::int as service_id, a.email as admin_email
      from services_made s join admins a on a.company_id = s.company_id
     order by s.company_id`.execute(db);
  const companyIds = rows.map((row) => row.company_id);
  await sql`
    insert into subscribers (company_id, msisdn, status)
    select c, '+2547' || lpad(g::text, 8, '0'), 'active'
      from unnest(${companyIds}::bigint[]) c, generate_series(1, ${subscribersEach}::int) g`.execute(db);
  await sql`
    insert into subscriptions (company_id, service_id, subscriber_id, status, source)
    select s.company_id, v.id, s.id, 'active', 'import'
      from subscribers s join services v on v.company_id = s.company_id
     where s.company_id = any(${companyIds}::bigint[])`.execute(db);
  for (const companyId of companyIds) await regenerateCallbackTokens(db, companyId, BENCH_ENCRYPTION_KEY);
  await sql`analyze subscribers`.execute(db);
  await sql`analyze subscriptions`.execute(db);
  return rows.map((row) => ({
    companyId: row.company_id,
    serviceId: row.service_id,
    adminEmail: row.admin_email,
  }));
}
