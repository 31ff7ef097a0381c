import { MERGE_FIELD_MESSAGES } from '@sms/contracts/templates/merge-fields';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createCompany, createTenantWithStaff, createUser, signIn } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

type Tenant = Awaited<ReturnType<typeof createTenantWithStaff>>;
const as = (tenant: Tenant, role: 'company_admin' | 'content_manager' = 'company_admin') =>
  bearer(tenant.staff[role].token);

async function importCsv(tenant: Tenant, serviceId: number, csv: string) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: `/api/v1/services/${serviceId}/subscribers/import`,
    headers: { ...as(tenant), 'content-type': 'text/csv' },
    payload: csv,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

async function attributesByNumber(tenant: Tenant) {
  const response = await ctx.app.inject({
    method: 'GET',
    url: '/api/v1/subscriptions/subscribers?limit=100',
    headers: as(tenant),
  });
  expect(response.statusCode, response.body).toBe(200);
  const rows: { msisdn: string; attributes: Record<string, string> }[] = response.json().data.subscribers;
  return Object.fromEntries(rows.map((row) => [row.msisdn, row.attributes]));
}

const putAttributes = (headers: Record<string, string>, id: number, attributes: unknown) =>
  ctx.app.inject({
    method: 'PUT',
    url: `/api/v1/subscriptions/subscribers/${id}/attributes`,
    headers,
    payload: { attributes },
  });

describe('merge fields from an import', () => {
  it("reads the header's other columns as fields, sets a row's non-blank values, and keeps a known subscriber's others", async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const first = await importCsv(tenant, service.id, 'phone,language\n+254711000001,sw\n+254711000002,en\n');
    expect(first).toMatchObject({ imported: 2, attributeColumns: ['language'], ignoredColumns: [] });

    const second = await importCsv(
      tenant,
      service.id,
      [
        'First Name,phone,language,2nd column',
        'Amina,+254711000001,,x',
        ',+254711000002,fr,y',
        'Baraka,+254711000003,en,z',
        `${'x'.repeat(101)},+254711000004,en,z`,
      ].join('\n'),
    );
    expect(second).toMatchObject({
      totalRows: 4,
      imported: 2,
      alreadySubscribed: 2,
      invalidRows: 0,
      valuesTooLong: 1,
      attributeColumns: ['first_name', 'language'],
      ignoredColumns: ['2nd column'],
    });
    expect(second.errors).toEqual([
      { line: 5, value: '+254711000004', message: MERGE_FIELD_MESSAGES.valueLeftOut('first_name') },
    ]);
    expect(await attributesByNumber(tenant)).toEqual({
      // The file's first_name is added; its blank language keeps the one there was.
      '+254711000001': { first_name: 'Amina', language: 'sw' },
      // The file's language replaces the one there was; no first name is set from a blank cell.
      '+254711000002': { language: 'fr' },
      '+254711000003': { first_name: 'Baraka', language: 'en' },
      // Imported without the first name that was too long.
      '+254711000004': { language: 'en' },
    });
  });

  it('sets fields on a known number that comes back to the service (reactivated in the same statement)', async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const news = await createService(ctx.ownerDb, tenant.company.id);
    const sports = await createService(ctx.ownerDb, tenant.company.id);
    await importCsv(tenant, news.id, '+254712000001\n');
    await ctx.ownerDb
      .updateTable('subscribers')
      .set({ status: 'unsubscribed' })
      .where('company_id', '=', tenant.company.id)
      .execute();
    await importCsv(tenant, sports.id, 'phone,first_name\n+254712000001,Chebet\n');
    expect(await attributesByNumber(tenant)).toEqual({ '+254712000001': { first_name: 'Chebet' } });
  });
});

describe('PUT /subscriptions/subscribers/{id}/attributes', () => {
  it("replaces the subscriber's fields, trimmed, a blank one removed, and audits the change", async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, tenant.company.id);
    await importCsv(tenant, service.id, 'phone,first_name,language\n+254713000001,Amina,sw\n');
    const [subscriber] = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/subscriptions/subscribers', headers: as(tenant) })
    ).json().data.subscribers;

    const response = await putAttributes(as(tenant), subscriber.id, {
      first_name: ' Aminata ',
      language: '',
      city: 'Mombasa',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.subscriber.attributes).toEqual({ first_name: 'Aminata', city: 'Mombasa' });
    expect(await attributesByNumber(tenant)).toEqual({
      '+254713000001': { first_name: 'Aminata', city: 'Mombasa' },
    });
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select(['action', 'details'])
      .where('entity', '=', 'SUBSCRIBER')
      .where('entity_id', '=', String(subscriber.id))
      .where('action', '=', 'UPDATE')
      .executeTakeFirstOrThrow();
    expect(audit.details).toMatchObject({
      attributes: {
        from: { first_name: 'Amina', language: 'sw' },
        to: { first_name: 'Aminata', city: 'Mombasa' },
      },
    });
  });

  it('refuses bad names, long values and too many fields with a 400 that says why, changing nothing', async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, tenant.company.id);
    await importCsv(tenant, service.id, 'phone,first_name\n+254714000001,Amina\n');
    const [subscriber] = (
      await ctx.app.inject({ method: 'GET', url: '/api/v1/subscriptions/subscribers', headers: as(tenant) })
    ).json().data.subscribers;

    const badName = await putAttributes(as(tenant), subscriber.id, { 'First Name': 'x' });
    expect(badName.statusCode).toBe(400);
    expect(badName.json().message).toContain(MERGE_FIELD_MESSAGES.nameInvalid('First Name'));
    const reserved = await putAttributes(as(tenant), subscriber.id, { status: 'vip' });
    expect(reserved.statusCode).toBe(400);
    expect(reserved.json().message).toContain(MERGE_FIELD_MESSAGES.nameReserved('status'));
    const long = await putAttributes(as(tenant), subscriber.id, { first_name: 'x'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(long.json().message).toContain(MERGE_FIELD_MESSAGES.valueTooLong('first_name'));
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`field_${i}`, 'x']));
    expect((await putAttributes(as(tenant), subscriber.id, many)).statusCode).toBe(400);
    expect((await putAttributes(as(tenant), subscriber.id, 'Amina')).statusCode).toBe(400);
    expect(await attributesByNumber(tenant)).toEqual({ '+254714000001': { first_name: 'Amina' } });
  });

  it("answers 404 for another company's subscriber and 403 for a content manager", async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const other = await createCompany(ctx.ownerDb);
    const [theirs] = await ctx.ownerDb
      .insertInto('subscribers')
      .values({
        company_id: other.id,
        msisdn: '+254715000001',
        attributes: JSON.stringify({ first_name: 'Zawadi' }),
      })
      .returning('id')
      .execute();
    expect((await putAttributes(as(tenant), theirs.id, { first_name: 'Mine' })).statusCode).toBe(404);
    expect(
      (await putAttributes(as(tenant, 'content_manager'), theirs.id, { first_name: 'Mine' })).statusCode,
    ).toBe(403);
    const after = await ctx.ownerDb
      .selectFrom('subscribers')
      .select('attributes')
      .where('id', '=', theirs.id)
      .executeTakeFirstOrThrow();
    expect(after.attributes).toEqual({ first_name: 'Zawadi' });

    // A system admin edits any company's.
    const admin = await createUser(ctx.ownerDb, { role: 'system_admin' });
    const asAdmin = bearer((await signIn(ctx.app, admin.email)).accessToken);
    const edited = await putAttributes(asAdmin, theirs.id, { first_name: 'Zawadi', language: 'sw' });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data.subscriber.attributes).toEqual({ first_name: 'Zawadi', language: 'sw' });
  });
});

describe('merge fields in the export', () => {
  it('gives each field the subscribers hold a column after the usual ones, and the export imports again with its fields', async () => {
    const tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, tenant.company.id);
    await importCsv(
      tenant,
      service.id,
      'phone,language,first_name\n+254716000001,sw,"Amina, the first"\n+254716000002,,=cmd\n+254716000003,,\n',
    );
    const exported = await ctx.app.inject({
      method: 'GET',
      url: '/api/v1/subscriptions/subscribers/export',
      headers: as(tenant),
    });
    expect(exported.statusCode, exported.body).toBe(200);
    const [header, ...rows] = exported.body.trimEnd().split('\n');
    expect(header).toBe('phone_number,status,created_at,active_services,first_name,language');
    const cellsOf = (number: string) =>
      rows
        .find((row) => row.startsWith(number))
        ?.split(',')
        .slice(4);
    expect(cellsOf('+254716000001')).toEqual(['"Amina', ' the first"', 'sw']);
    // A value a spreadsheet would run as a formula is quoted, as every other cell.
    expect(cellsOf('+254716000002')).toEqual(["'=cmd", '']);
    expect(cellsOf('+254716000003')).toEqual(['', '']);

    // Into another company: the export's own columns are not read as fields, its fields are.
    const other = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const otherService = await createService(ctx.ownerDb, other.company.id);
    const imported = await importCsv(other, otherService.id, exported.body);
    expect(imported).toMatchObject({
      imported: 3,
      attributeColumns: ['first_name', 'language'],
      ignoredColumns: ['status', 'created_at', 'active_services'],
    });
    expect(await attributesByNumber(other)).toEqual({
      '+254716000001': { first_name: 'Amina, the first', language: 'sw' },
      '+254716000002': { first_name: "'=cmd" },
      '+254716000003': {},
    });
  });
});
