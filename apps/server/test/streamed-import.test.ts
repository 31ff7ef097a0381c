import { IMPORT_MESSAGES } from '@sms/contracts/subscribers/import-subscribers';
import { SUBSCRIBER_MESSAGES } from '@sms/contracts/subscribers/subscriber';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_BATCH_ROWS } from '../src/modules/subscribers/read-import-rows.ts';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createService, kenyanNumber, subscribeNumbers } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
});
afterAll(() => ctx.close());

const setSubscribersLimit = (limit: number) =>
  ctx.ownerDb
    .updateTable('companies')
    .set({ subscribers_limit: limit })
    .where('id', '=', tenant.company.id)
    .execute();

const importCsv = (serviceId: number, csv: string) =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/v1/services/${serviceId}/subscribers/import`,
    headers: { ...bearer(tenant.staff.company_admin.token), 'content-type': 'text/csv' },
    payload: csv,
  });

async function countSubscriptions(serviceId: number) {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from subscriptions where service_id = ${serviceId} and status = 'active'`.execute(
    ctx.ownerDb,
  );
  return rows[0].n;
}

/** A national-format Kenyan number (07...), distinct per index; kenyanNumber(60, i) is its E.164. */
const nationalNumber = (index: number) => `0760${String(index).padStart(6, '0')}`;

describe('a streamed import', () => {
  it('takes a file well past the old caps (200,000 rows, 20 MB) and drops duplicates across batches', async () => {
    await setSubscribersLimit(1_000_000);
    const service = await createService(ctx.ownerDb, tenant.company.id);
    // 210,000 rows over 3,000 numbers: every batch repeats numbers of the ones before it.
    const rows = 210_000;
    const distinct = 3_000;
    const lines = Array.from({ length: rows }, (_, i) =>
      i % 2 ? nationalNumber(i % distinct) : kenyanNumber(60, i % distinct),
    );
    const answer = await importCsv(service.id, `msisdn\n${lines.join('\n')}\n`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data).toMatchObject({
      totalRows: rows,
      imported: distinct,
      duplicatesInFile: rows - distinct,
      invalidRows: 0,
      refusedByLimit: 0,
    });
    expect(await countSubscriptions(service.id)).toBe(distinct);
  });

  it('takes a file larger than the old 20 MB cap', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    // 12,000 rows of 2,000 characters: about 24 MB, as a wide export from a CRM would be.
    const note = 'x'.repeat(1_985);
    const csv = `phone,note\n${Array.from({ length: 12_000 }, (_, i) => `${kenyanNumber(61, i)},${note}`).join('\n')}\n`;
    expect(csv.length).toBeGreaterThan(21 * 1024 * 1024);
    const answer = await importCsv(service.id, csv);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data).toMatchObject({ totalRows: 12_000, imported: 12_000 });
  });

  it('reports a malformed row in a later batch by its own line number', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const lines = Array.from({ length: IMPORT_BATCH_ROWS + 5_000 }, (_, i) => kenyanNumber(62, i));
    lines[IMPORT_BATCH_ROWS + 100] = '0712-34';
    lines[IMPORT_BATCH_ROWS + 200] = '';
    const answer = await importCsv(
      service.id,
      `phone,name\n${lines.map((line) => `${line},x`).join('\n')}\n`,
    );
    expect(answer.statusCode).toBe(200);
    const data = answer.json().data;
    expect(data).toMatchObject({ totalRows: lines.length, imported: lines.length - 2, invalidRows: 2 });
    // Line 1 is the header: the file's row n is line n + 1.
    expect(data.errors).toEqual([
      {
        line: IMPORT_BATCH_ROWS + 102,
        value: '0712-34',
        message: SUBSCRIBER_MESSAGES.phoneInvalid('0712-34'),
      },
      { line: IMPORT_BATCH_ROWS + 202, value: '', message: SUBSCRIBER_MESSAGES.phoneRequired },
    ]);
  });

  it('writes nothing of a file refused after batches were staged', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const lines = Array.from({ length: IMPORT_BATCH_ROWS * 2 }, (_, i) => kenyanNumber(63, i));
    const answer = await importCsv(service.id, `phone\n${lines.join('\n')}\n${'9'.repeat(70_000)}\n`);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().message).toBe(IMPORT_MESSAGES.lineTooLong(lines.length + 2));
    expect(await countSubscriptions(service.id)).toBe(0);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from subscribers where msisdn = ${kenyanNumber(63, 0)}`.execute(ctx.ownerDb);
    expect(rows[0].n).toBe(0);
  });

  it('fills the room the limit leaves in file order across batches; numbers already active take none', async () => {
    const other = await createService(ctx.ownerDb, tenant.company.id);
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const active = Array.from({ length: 1_000 }, (_, i) => kenyanNumber(64, i));
    await subscribeNumbers(ctx.ownerDb, other, active);
    const { rows: before } = await sql<{ n: number }>`
      select subscriber_count::int as n from company_subscriber_counts
       where company_id = ${tenant.company.id} and status = 'active'`.execute(ctx.ownerDb);
    const room = 11_000;
    await setSubscribersLimit(before[0].n + room);
    const fresh = Array.from({ length: 15_000 }, (_, i) => kenyanNumber(65, i));
    const answer = await importCsv(service.id, `phone\n${[...fresh, ...active].join('\n')}\n`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data).toMatchObject({
      totalRows: 16_000,
      imported: room + active.length,
      refusedByLimit: fresh.length - room,
      subscribersLimit: before[0].n + room,
    });
    const { rows } = await sql<{ msisdn: string }>`
      select s.msisdn from subscriptions x join subscribers s on s.id = x.subscriber_id
       where x.service_id = ${service.id} and s.msisdn = any(${[fresh[room - 1], fresh[room], active[999]]}::text[])`.execute(
      ctx.ownerDb,
    );
    expect(rows.map((row) => row.msisdn).sort()).toEqual([fresh[room - 1], active[999]].sort());
  });

  it('refreshes the subscriber tables’ statistics after a bulk import', async () => {
    await setSubscribersLimit(1_000_000);
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const lastAnalyze = async () => {
      const { rows } = await sql<{ at: Date | null }>`
        select max(last_analyze) as at from pg_stat_user_tables
         where relname in ('subscribers', 'subscriptions')`.execute(ctx.ownerDb);
      return rows[0].at?.getTime() ?? 0;
    };
    const before = await lastAnalyze();
    const numbers = Array.from({ length: 5_000 }, (_, i) => kenyanNumber(66, i));
    const answer = await importCsv(service.id, numbers.join('\n'));
    expect(answer.json().data.imported).toBe(5_000);
    expect(await lastAnalyze()).toBeGreaterThan(before);
  });
});
