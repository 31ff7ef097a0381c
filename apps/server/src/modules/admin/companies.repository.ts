import type { TCompanyStatus } from '@sms/contracts/admin/company';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { CompanyUpdate, DB, NewCompany } from '../../db/schema.ts';
import { encryptSecret } from '../../lib/crypto.ts';
import type { ProviderRow, ProviderSettings } from '../../messaging/providers/provider-settings.ts';

export type CompanyFilter = { searchTerm?: string; status?: TCompanyStatus };

function likePattern(term: string) {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
}

const companyColumns = (db: Executor) =>
  db
    .selectFrom('companies as c')
    .selectAll('c')
    // Per-row counts over indexed (company_id, id) lookups: one page is 10 rows, never a table scan.
    .select((eb) => [
      eb
        .selectFrom('users as u')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('u.company_id', '=', 'c.id')
        .as('user_count'),
      eb
        .selectFrom('services as s')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('s.company_id', '=', 'c.id')
        .as('service_count'),
      // One counter row per status, kept by triggers: never a count over the subscribers.
      eb
        .selectFrom('company_subscriber_counts as k')
        .select(sql<number>`coalesce(sum(k.subscriber_count), 0)::bigint`.as('n'))
        .whereRef('k.company_id', '=', 'c.id')
        .as('subscriber_count'),
      // Every provider kind the company configured (at most three rows, by primary key).
      eb
        .selectFrom('company_provider_settings as p')
        .select(
          sql<ProviderRow[]>`coalesce(jsonb_agg(jsonb_build_object(
            'kind', p.kind, 'settings', p.settings, 'secret_encrypted', p.secret_encrypted)), '[]')`.as(
            'rows',
          ),
        )
        .whereRef('p.company_id', '=', 'c.id')
        .as('provider_rows'),
      // A row only while the company's provider fails for the whole account (hand-over.ts).
      eb
        .selectFrom('company_provider_health as h')
        .select('h.failing_since')
        .whereRef('h.company_id', '=', 'c.id')
        .as('provider_failing_since'),
      eb
        .selectFrom('company_provider_health as h')
        .select('h.reason')
        .whereRef('h.company_id', '=', 'c.id')
        .as('provider_failure'),
    ]);

export type CompanyWithCounts = NonNullable<Awaited<ReturnType<typeof findCompanyById>>>;

export function findCompanyById(db: Executor, id: number) {
  return companyColumns(db).where('c.id', '=', id).executeTakeFirst();
}

/** The search box (name or e-mail, via the trigram index) and the status filter. */
function companyWhere(filter: CompanyFilter) {
  return (eb: ExpressionBuilder<DB & { c: DB['companies'] }, 'c'>) => {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.status) conditions.push(eb('c.status', '=', filter.status));
    if (filter.searchTerm) {
      const pattern = likePattern(filter.searchTerm);
      conditions.push(
        eb.or([eb(sql`lower(c.name)`, 'like', pattern), eb(sql`lower(c.email)`, 'like', pattern)]),
      );
    }
    return eb.and(conditions);
  };
}

export async function listCompanies(
  db: Executor,
  filter: CompanyFilter,
  page: { limit: number; offset: number },
) {
  const rows = await companyColumns(db)
    .where(companyWhere(filter))
    .orderBy('c.created_at', 'desc')
    .orderBy('c.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const total = await db
    .selectFrom('companies as c')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(companyWhere(filter))
    .executeTakeFirstOrThrow();
  return { rows, totalItems: Number(total.n) };
}

export async function countCompaniesByStatus(db: Executor) {
  const rows = await db
    .selectFrom('companies')
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  const users = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const byStatus = Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  return { byStatus, totalUsers: Number(users.n) };
}

export async function insertCompany(db: Executor, values: NewCompany) {
  const row = await db.insertInto('companies').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function updateCompany(db: Executor, id: number, values: CompanyUpdate) {
  const result = await db
    .updateTable('companies')
    .set({ ...values, updated_at: new Date() })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Changes the status only if it still is `from`, so two admins clicking at once cannot both win. */
export async function changeCompanyStatus(db: Executor, id: number, from: string, to: string) {
  const result = await db
    .updateTable('companies')
    .set({ status: to, updated_at: new Date() })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** What deleting the company would take with it. Subscribers come from the counters. */
export async function countCompanyData(db: Executor, id: number) {
  const row = await db
    .selectFrom('companies as c')
    .select((eb) => [
      eb
        .selectFrom('company_subscriber_counts as k')
        .select(sql<number>`coalesce(sum(k.subscriber_count), 0)::bigint`.as('n'))
        .whereRef('k.company_id', '=', 'c.id')
        .as('subscribers'),
      eb
        .selectFrom('users as u')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('u.company_id', '=', 'c.id')
        .as('users'),
      eb
        .selectFrom('services as s')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('s.company_id', '=', 'c.id')
        .as('services'),
      // Only whether any exist (and up to a bound): counting millions of messages is not needed to refuse.
      eb
        .selectFrom(
          eb
            .selectFrom('messages as m')
            .select('m.id')
            .whereRef('m.company_id', '=', 'c.id')
            .limit(1_000_000)
            .as('limited'),
        )
        .select(eb.fn.countAll<number>().as('n'))
        .as('messages'),
    ])
    .where('c.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    users: Number(row.users ?? 0),
    services: Number(row.services ?? 0),
    subscribers: Number(row.subscribers ?? 0),
    messages: Number(row.messages ?? 0),
  };
}

export async function deleteCompany(db: Executor, id: number) {
  const result = await db.deleteFrom('companies').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export function readProviderRows(db: Executor, companyId: number): Promise<ProviderRow[]> {
  return db
    .selectFrom('company_provider_settings')
    .select(['kind', 'settings', 'secret_encrypted'])
    .where('company_id', '=', companyId)
    .execute();
}

/** What a save does to the stored secret: leave it (even one this key cannot read), or set or clear it. */
export type SecretChange = { action: 'keep' } | { action: 'set'; value: string | null };

/**
 * Stores one kind's settings: everything but the kind and its secret as plain JSON, the secret
 * encrypted apart, and touched only when the change says so.
 */
export async function writeProviderSettings(
  db: Executor,
  companyId: number,
  settings: ProviderSettings,
  secret: SecretChange,
  key: Buffer,
) {
  const { kind, ...rest } = settings;
  const plain = Object.fromEntries(
    Object.entries(rest).filter(([name]) => name !== 'apiKey' && name !== 'password'),
  );
  const encrypted = secret.action === 'set' && secret.value ? encryptSecret(secret.value, key) : null;
  await db
    .insertInto('company_provider_settings')
    .values({ company_id: companyId, kind, settings: JSON.stringify(plain), secret_encrypted: encrypted })
    .onConflict((oc) =>
      oc.columns(['company_id', 'kind']).doUpdateSet((eb) => ({
        settings: eb.ref('excluded.settings'),
        updated_at: sql<Date>`now()`,
        ...(secret.action === 'set' && { secret_encrypted: eb.ref('excluded.secret_encrypted') }),
      })),
    )
    .execute();
}
