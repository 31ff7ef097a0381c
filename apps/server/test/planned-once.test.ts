import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import { findDashboardFigures } from '../src/modules/dashboard/dashboard.repository.ts';
import { monthWindow } from '../src/modules/dashboard/dashboard.service.ts';
import { readMessageDetails } from '../src/modules/messages/message-details.repository.ts';
import { listMessagesWithCounts } from '../src/modules/messages/message-logs.repository.ts';
import { findReportFigures } from '../src/modules/reports/reports.repository.ts';
import { reportWindow } from '../src/modules/reports/reports.service.ts';
import { searchCompanyNumbers, wholeListPage } from '../src/modules/subscribers/subscribers.repository.ts';
import { insertMessage, recordSend } from './support/message-log-factories.ts';
import { createTwoTenantContext } from './support/two-tenants.ts';

// The console's reads whose planning cost more than their running are named prepared statements
// planned once per connection without their values (lib/planned-once.ts, ADR 0012), and leave the
// transaction's other statements planned for their values as before.
const { ctx, home } = await createTwoTenantContext();
const companyId = home.company.id;
const messageId = await insertMessage(ctx.ownerDb, { companyId, status: 'processing' });
await recordSend(ctx.ownerDb, { id: messageId, companyId }, 'dispatch', [
  { phone: '+254700000001', status: 'delivered' },
  { phone: '+254700000002', status: 'pending' },
]);

type Prepared = { name: string; generic_plans: number; custom_plans: number };

/** Runs the reads twice on one connection: what it prepared, and the plan mode it is left with. */
async function readTwice(scope = companyScope(companyId), company: number | null = companyId) {
  return inTenantTransaction(ctx.db, scope, async (trx) => {
    for (let round = 0; round < 2; round += 1) {
      await listMessagesWithCounts(trx, { companyId: company, statuses: null }, 0, 20);
      await listMessagesWithCounts(trx, { companyId: company, statuses: ['pending', 'processing'] }, 0, 20);
      await readMessageDetails(trx, messageId, company, null, 0, 20, null);
      await findDashboardFigures(trx, company, monthWindow(new Date()), 5);
      await findReportFigures(trx, company, reportWindow('30d', new Date()));
      if (company !== null) {
        await wholeListPage(trx, company, 0, 20, null);
        const search = { digits: '700', prefixes: ['+254700'] };
        await searchCompanyNumbers(trx, company, null, search, 0, 20, 200);
      }
    }
    const { rows } = await sql<Prepared>`
      select name, generic_plans, custom_plans from pg_prepared_statements where name is not null`.execute(
      trx,
    );
    const {
      rows: [{ mode }],
    } = await sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`.execute(trx);
    return { prepared: new Map(rows.map((row) => [row.name, row])), mode };
  });
}

describe('console reads planned once', () => {
  it.each([
    [
      'a company',
      companyScope(companyId),
      companyId,
      [
        'message_page',
        'message_page_by_status',
        'recipient_page',
        'dashboard_company',
        'report_days',
        'subscriber_whole_list_page',
        'subscriber_number_search_page',
      ],
    ],
    [
      'the platform',
      platformScope,
      null,
      [
        'message_page_platform',
        'message_page_by_status_platform',
        'recipient_page',
        'dashboard_platform',
        'report_days_platform',
      ],
    ],
  ] as const)(
    'keeps generic plans of the reads for %s, and leaves the transaction as it was',
    async (_, scope, company, names) => {
      const { prepared, mode } = await readTwice(scope, company);
      for (const name of names) {
        expect(prepared.get(name), name).toMatchObject({ custom_plans: 0 });
        expect(prepared.get(name)?.generic_plans, name).toBeGreaterThanOrEqual(2);
      }
      expect(mode).toBe('auto');
    },
  );
});
