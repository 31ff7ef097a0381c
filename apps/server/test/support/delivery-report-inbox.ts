import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { applyWaitingReports } from '../../src/messaging/delivery-report-applier.ts';

/**
 * Applies every delivery report the inbox holds now, through the worker's own function (a callback
 * answered 200 has only stored its report). Returns the reports applied by this call (a running
 * worker's applier may have applied some of them first).
 */
export const applyAcceptedReports = (db: Database) => applyWaitingReports(db);

/** Reports waiting in the inbox, all companies (as the owner). */
export async function inboxReports(ownerDb: Database, companyId?: number) {
  const { rows } = await sql<{ n: number }>`
    select coalesce(sum(cardinality(gateway_message_ids)), 0)::int as n from delivery_report_inbox
     where ${companyId === undefined ? sql`true` : sql`company_id = ${companyId}`}`.execute(ownerDb);
  return rows[0].n;
}
