import { setTimeout as pause } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { applyInboxBatch, companiesWithWaitingReports } from '../../src/messaging/delivery-report-applier.ts';

/**
 * Applies every delivery report the inbox holds now, through the worker's own function (a callback
 * answered 200 has only stored its report), waiting for a company another applier holds until its
 * rows are gone. Returns the reports applied by this call (a running worker's applier may have
 * applied some of them first).
 */
export async function applyWaitingReports(db: Database) {
  let applied = 0;
  for (let round = 0; ; round++) {
    const companies = await companiesWithWaitingReports(db);
    if (companies.length === 0) return applied;
    for (const companyId of companies) {
      for (;;) {
        const result = await applyInboxBatch(db, companyId);
        if (result === 'busy') {
          await pause(Math.min(50, 2 + round));
          break;
        }
        if (result === 0) break;
        applied += result;
      }
    }
  }
}

export const applyAcceptedReports = applyWaitingReports;

/** Reports waiting in the inbox, all companies (as the owner). */
export async function inboxReports(ownerDb: Database, companyId?: number) {
  const { rows } = await sql<{ n: number }>`
    select coalesce(sum(cardinality(gateway_message_ids)), 0)::int as n from delivery_report_inbox
     where ${companyId === undefined ? sql`true` : sql`company_id = ${companyId}`}`.execute(ownerDb);
  return rows[0].n;
}
