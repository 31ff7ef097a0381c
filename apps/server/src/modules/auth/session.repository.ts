import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/**
 * Whether the row `id` of a tenant-owned table is visible to the transaction's scope (row-level
 * security decides): app_row_visible (migration 0031), its plan kept for the connection.
 * `companyId` names the company for tables keyed by (company_id, id), so the key serves.
 */
export async function isRowVisible(db: Executor, table: string, id: number, companyId: number | null) {
  const { rows } = await sql<{
    visible: boolean;
  }>`select app_row_visible(${table}, ${id}, ${companyId}) as visible`.execute(db);
  return rows[0]?.visible === true;
}
