import { type Executor, namedStatement } from '../../db/database.ts';
import { runStatement } from '../../lib/planned-once.ts';

// The route guard's visibility check (plugins/guards.ts, requireVisibleId): a lookup by its table's
// key, a named prepared statement per table (db/database.ts namedStatement), so that it is planned
// once per connection, not on every request (about 0.3 ms of PostgreSQL for a message's details,
// more than the lookup itself). Its plan is the same for any company. Row-level security applies.
const COMPANY_KEYED = [
  'messages',
  'services',
  'api_keys',
  'webhook_endpoints',
  'subscribers',
  'message_templates',
] as const;
const KEYED_BY_ID = ['companies', 'users'] as const;

const lookups = new Map<string, { byCompany?: string; byId: string }>();
for (const table of COMPANY_KEYED)
  lookups.set(table, {
    byCompany: namedStatement(
      `row_visible_${table}`,
      `select exists (select 1 from ${table} where company_id = $1::bigint and id = $2::bigint) as visible`,
    ),
    byId: namedStatement(
      `row_visible_${table}_by_id`,
      `select exists (select 1 from ${table} where id = $1::bigint) as visible`,
    ),
  });
for (const table of KEYED_BY_ID)
  lookups.set(table, {
    byId: namedStatement(
      `row_visible_${table}`,
      `select exists (select 1 from ${table} where id = $1::bigint) as visible`,
    ),
  });

/**
 * Whether the row `id` of a tenant-owned table is visible to the transaction's scope (row-level
 * security decides). `companyId` names the company for tables keyed by (company_id, id), so the key
 * serves (null: any company the scope sees).
 */
export async function isRowVisible(db: Executor, table: string, id: number, companyId: number | null) {
  const lookup = lookups.get(table);
  if (!lookup) throw new Error(`isRowVisible: no such table ${table}`);
  const [row] =
    lookup.byCompany !== undefined && companyId !== null
      ? await runStatement<{ visible: boolean }>(db, lookup.byCompany, [companyId, id])
      : await runStatement<{ visible: boolean }>(db, lookup.byId, [id]);
  return row?.visible === true;
}
