import type { TRole } from '@sms/contracts/auth/roles';
import { QUERY_ID_MESSAGES } from '@sms/contracts/common/pagination';
import { PLAN_CATALOGUE } from '@sms/contracts/plans/plan-catalogue';
import { SUBSCRIBER_COUNT_CAP, SUBSCRIBER_MESSAGES } from '@sms/contracts/subscribers/subscriber';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, createCompany, createTenantWithStaff } from './support/factories.ts';
import {
  createService,
  kenyanNumber,
  subscribeNumbers,
  subscriptionOf,
} from './support/services-factories.ts';
import { createTwoTenantContext } from './support/two-tenants.ts';

const { ctx, home: tenant, other } = await createTwoTenantContext();
beforeAll(async () => {
  // These tests add thousands of subscribers and dozens of services: a plan with room for them (plan-limits.test.ts covers the limits).
  await ctx.ownerDb.updateTable('companies').set({ plan: 'enterprise' }).execute();
});

const call = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  role: TRole,
  payload?: object,
  who = tenant,
) => ctx.app.inject({ method, url: `/api/v1${url}`, headers: bearer(who.staff[role].token), payload });

describe('POST /services/{id}/subscribe and DELETE /services/{id}/unsubscribe', () => {
  it('normalises to E.164 with the company country, subscribes once, and audits only the change', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const first = await call('POST', `/services/${service.id}/subscribe`, 'company_admin', {
      phoneNumber: '0712 000 001',
    });
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({
      changed: true,
      subscriber: { msisdn: '+254712000001', status: 'active', active_services: [service.id] },
    });
    const again = await call('POST', `/services/${service.id}/subscribe`, 'company_admin', {
      phoneNumber: '+254712000001',
    });
    expect(again.json().data.changed).toBe(false);
    const count = await ctx.ownerDb
      .selectFrom('services')
      .select('subscriber_count')
      .where('id', '=', service.id)
      .executeTakeFirstOrThrow();
    expect(count.subscriber_count).toBe(1);
    const audits = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select(['action', 'entity'])
      .where('entity', '=', 'SUBSCRIBER')
      .where(sql<string>`details->>'msisdn'`, '=', '+254712000001')
      .execute();
    expect(audits).toEqual([{ action: 'CREATE', entity: 'SUBSCRIBER' }]);
  });

  it('uses the company’s own default country', async () => {
    await ctx.ownerDb
      .updateTable('companies')
      .set({ default_country: 'US' })
      .where('id', '=', other.company.id)
      .execute();
    const service = await createService(ctx.ownerDb, other.company.id);
    const response = await call(
      'POST',
      `/services/${service.id}/subscribe`,
      'company_admin',
      { phoneNumber: '(213) 373-4253' },
      other,
    );
    expect(response.json().data.subscriber.msisdn).toBe('+12133734253');
  });

  it('refuses an invalid or missing number with 400', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const invalid = await call('POST', `/services/${service.id}/subscribe`, 'company_admin', {
      phoneNumber: '12345',
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().message).toBe('12345 is not a valid phone number');
    const missing = await call('POST', `/services/${service.id}/subscribe`, 'company_admin', {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toBe('Phone number is required');
  });

  it('unsubscribes, once; the subscriber becomes unsubscribed when no subscription is left', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const msisdn = kenyanNumber(20, 1);
    await subscribeNumbers(ctx.ownerDb, service, [msisdn]);
    const response = await call('DELETE', `/services/${service.id}/unsubscribe`, 'company_admin', {
      phoneNumber: msisdn,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      changed: true,
      subscriber: { status: 'unsubscribed', active_services: [] },
    });
    expect(await subscriptionOf(ctx.ownerDb, service.id, msisdn)).toMatchObject({ status: 'unsubscribed' });
    const again = await call('DELETE', `/services/${service.id}/unsubscribe`, 'company_admin', {
      phoneNumber: msisdn,
    });
    expect(again.json().data.changed).toBe(false);
    const unknown = await call('DELETE', `/services/${service.id}/unsubscribe`, 'company_admin', {
      phoneNumber: kenyanNumber(20, 99),
    });
    expect(unknown.json().data).toMatchObject({ changed: false, subscriber: null });
    const audits = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select('action')
      .where(sql<string>`details->>'msisdn'`, '=', msisdn)
      .execute();
    expect(audits.map((a) => a.action)).toEqual(['DELETE']);
    // Subscribing again from the console re-activates.
    const back = await call('POST', `/services/${service.id}/subscribe`, 'company_admin', {
      phoneNumber: msisdn,
    });
    expect(back.json().data).toMatchObject({ changed: true, subscriber: { status: 'active' } });
  });

  it('404s for another tenant’s service; system_admin may act on any', async () => {
    const theirs = await createService(ctx.ownerDb, other.company.id);
    const refused = await call('POST', `/services/${theirs.id}/subscribe`, 'company_admin', {
      phoneNumber: kenyanNumber(21, 1),
    });
    expect(refused.statusCode).toBe(404);
    const admin = await call('POST', `/services/${theirs.id}/subscribe`, 'system_admin', {
      phoneNumber: '+254721000002',
    });
    expect(admin.statusCode).toBe(200);
    expect(admin.json().data.subscriber).toMatchObject({
      companyId: other.company.id,
      company: { name: other.company.name },
    });
  });
});

describe('GET /subscriptions/subscribers', () => {
  it('pages the tenant’s subscribers newest first with active_services and totals', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const a = await createService(ctx.ownerDb, fresh.company.id);
    const b = await createService(ctx.ownerDb, fresh.company.id);
    const numbers = Array.from({ length: 25 }, (_, i) => kenyanNumber(30, i));
    await subscribeNumbers(ctx.ownerDb, a, numbers);
    await subscribeNumbers(ctx.ownerDb, b, numbers.slice(0, 2));
    const page1 = await call('GET', '/subscriptions/subscribers?limit=10', 'company_admin', undefined, fresh);
    expect(page1.statusCode).toBe(200);
    const data = page1.json().data;
    expect(data).toMatchObject({ totalItems: 25, totalPages: 3, currentPage: 1, totalIsExact: true });
    expect(data.subscribers).toHaveLength(10);
    const page3 = (
      await call('GET', '/subscriptions/subscribers?limit=10&page=3', 'company_admin', undefined, fresh)
    ).json().data;
    expect(page3.subscribers).toHaveLength(5);
    const both = page3.subscribers.find((s: { msisdn: string }) => s.msisdn === numbers[0]);
    expect(both.active_services.sort()).toEqual([a.id, b.id].sort());
    // Default page size 20.
    expect(
      (await call('GET', '/subscriptions/subscribers', 'company_admin', undefined, fresh)).json().data
        .subscribers,
    ).toHaveLength(20);
    // Other tenants' rows never appear.
    const otherRows = (await call('GET', '/subscriptions/subscribers?limit=100', 'company_admin')).json().data
      .subscribers;
    expect(otherRows.some((s: { msisdn: string }) => numbers.includes(s.msisdn))).toBe(false);
  });

  it('searches the phone number on the server across all pages, with a national 0 understood', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, fresh.company.id);
    await subscribeNumbers(
      ctx.ownerDb,
      service,
      Array.from({ length: 60 }, (_, i) => kenyanNumber(31, i)),
    );
    const target = kenyanNumber(31, 7);
    for (const search of ['31000007', '0731000007', '+254 731 000 007']) {
      const data = (
        await call(
          'GET',
          `/subscriptions/subscribers?search=${encodeURIComponent(search)}`,
          'company_admin',
          undefined,
          fresh,
        )
      ).json().data;
      expect(data.subscribers.map((s: { msisdn: string }) => s.msisdn)).toEqual([target]);
      expect(data.totalItems).toBe(1);
    }
    const none = (
      await call('GET', '/subscriptions/subscribers?search=abc', 'company_admin', undefined, fresh)
    ).json().data;
    expect(none).toMatchObject({ subscribers: [], totalItems: 0, totalPages: 1 });
  });

  it('finds a number by its leading digits (as typed, national or international) or its last ones, on indexes row-level security lets serve', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const neighbour = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, fresh.company.id);
    await subscribeNumbers(ctx.ownerDb, service, ['+254712345678', '+254798100200']);
    await subscribeNumbers(ctx.ownerDb, await createService(ctx.ownerDb, neighbour.company.id), [
      '+254712345678',
    ]);
    const found = async (search: string) =>
      (
        await call(
          'GET',
          `/subscriptions/subscribers?search=${encodeURIComponent(search)}`,
          'company_admin',
          undefined,
          fresh,
        )
      )
        .json()
        .data.subscribers.map((s: { msisdn: string; companyId: number }) => {
          expect(s.companyId).toBe(fresh.company.id);
          return s.msisdn;
        });
    expect(await found('0712 345')).toEqual(['+254712345678']);
    expect(await found('254712')).toEqual(['+254712345678']);
    expect(await found('+254 798')).toEqual(['+254798100200']);
    expect(await found('5678')).toEqual(['+254712345678']);
    expect(await found('100200')).toEqual(['+254798100200']);
    // Digits only in the middle are neither a beginning nor an end.
    expect(await found('3456')).toEqual([]);
    // One or two digits match anywhere (a broad search: its first page is found at once).
    expect(await found('98')).toEqual(['+254798100200']);
  });

  it('reads a narrow phone search in one call, following the company’s country when it changes, and a broad one as before', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, fresh.company.id);
    const kenyan = Array.from({ length: 60 }, (_, i) => kenyanNumber(31, i));
    // The same numbers in Tanzania (+255), older, then Kenya's.
    await subscribeNumbers(
      ctx.ownerDb,
      service,
      kenyan.map((number) => number.replace('+254', '+255')),
    );
    await subscribeNumbers(ctx.ownerDb, service, kenyan);
    const search = async (text: string, query = '') =>
      (
        await call(
          'GET',
          `/subscriptions/subscribers?search=${encodeURIComponent(text)}${query}`,
          'company_admin',
          undefined,
          fresh,
        )
      ).json().data;
    const newestFirst = async (prefix: string) =>
      (
        await sql<{ msisdn: string }>`select msisdn from subscribers
           where company_id = ${fresh.company.id} and msisdn like ${`${prefix}%`} order by id desc`.execute(
          ctx.ownerDb,
        )
      ).rows.map((row) => row.msisdn);
    const numbersOf = (data: { subscribers: { msisdn: string }[] }) => data.subscribers.map((s) => s.msisdn);
    const inKenya = await search('0731', '&page=2&limit=20');
    expect(numbersOf(inKenya)).toEqual((await newestFirst('+254731')).slice(20, 40));
    expect(inKenya).toMatchObject({ totalItems: 60, totalIsExact: true, totalPages: 3 });
    // The company moves to Tanzania: the same text now reads as a Tanzanian national number.
    await ctx.ownerDb
      .updateTable('companies')
      .set({ default_country: 'TZ' })
      .where('id', '=', fresh.company.id)
      .execute();
    const inTanzania = await search('0731');
    expect(numbersOf(inTanzania)).toEqual((await newestFirst('+255731')).slice(0, 20));
    expect(inTanzania).toMatchObject({ totalItems: 60, totalIsExact: true });
    // More than 200 matches: read as before, with its total counted to the cap.
    const broad = Array.from({ length: 250 }, (_, i) => `+255740${String(i).padStart(6, '0')}`);
    await subscribeNumbers(ctx.ownerDb, service, broad);
    const many = await search('0740', '&page=13');
    expect(numbersOf(many)).toEqual((await newestFirst('+255740')).slice(240, 250));
    expect(many).toMatchObject({ totalItems: 250, totalIsExact: true, totalPages: 13 });
  });

  it('reads deep pages of the whole list newest first, and again after numbers come and go', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const neighbour = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const numberOf = (n: number) => `+254744${String(n).padStart(6, '0')}`;
    const load = (companyId: number, from: number, to: number) =>
      sql`insert into subscribers (company_id, msisdn)
          select ${companyId}, '+254744' || lpad(g::text, 6, '0') from generate_series(${from}::int, ${to}::int) g order by g`.execute(
        ctx.ownerDb,
      );
    await load(fresh.company.id, 1, 1_500);
    await load(neighbour.company.id, 1, 300);
    await load(fresh.company.id, 1_501, 2_500);
    const page = async (query: string) =>
      (await call('GET', `/subscriptions/subscribers${query}`, 'company_admin', undefined, fresh))
        .json()
        .data.subscribers.map((s: { msisdn: string }) => s.msisdn);
    const newestFirst = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => numberOf(from - i));
    expect(await page('?limit=100&page=11')).toEqual(newestFirst(1_500, 100));
    expect(await page('?limit=100&page=13')).toEqual(newestFirst(1_300, 100));
    expect(await page('?limit=20&page=111')).toEqual(newestFirst(300, 20));
    expect(await page('?limit=100&page=26')).toEqual([]);
    const totals = async (query: string) => {
      const { totalItems, totalPages, totalIsExact } = (
        await call('GET', `/subscriptions/subscribers${query}`, 'company_admin', undefined, fresh)
      ).json().data;
      return { totalItems, totalPages, totalIsExact };
    };
    expect(await totals('?limit=100&page=13')).toEqual({
      totalItems: 2_500,
      totalPages: 25,
      totalIsExact: true,
    });
    // One number newer than all, one of the oldest gone: the same pages move by one.
    await load(fresh.company.id, 2_501, 2_501);
    await sql`delete from subscribers where company_id = ${fresh.company.id} and msisdn = ${numberOf(1)}`.execute(
      ctx.ownerDb,
    );
    expect(await page('?limit=100&page=13')).toEqual(newestFirst(1_301, 100));
    expect(await page('?limit=100&page=25')).toEqual(newestFirst(101, 100));
    await load(fresh.company.id, 2_502, 2_502);
    expect(await totals('?limit=100&page=13')).toEqual({
      totalItems: 2_501,
      totalPages: 26,
      totalIsExact: true,
    });
  });

  it('shows every field of each subscriber of a whole-list page, top and deep, as the table holds it', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const neighbour = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, fresh.company.id);
    await sql`insert into subscribers (company_id, msisdn, status, created_at)
              select case when g % 4 = 0 then ${neighbour.company.id}::bigint else ${fresh.company.id}::bigint end,
                     '+254746' || lpad(g::text, 6, '0'),
                     (array['active', 'unsubscribed', 'pending'])[1 + g % 3],
                     timestamptz '2026-01-01 00:00:00.123456+00' + g * interval '1 minute 0.0017 seconds'
                from generate_series(1, 1800) g order by g`.execute(ctx.ownerDb);
    await sql`insert into subscriptions (company_id, service_id, subscriber_id, status, source)
              select s.company_id, ${service.id}, s.id, case when s.id % 2 = 0 then 'active' else 'unsubscribed' end, 'import'
                from subscribers s where s.company_id = ${fresh.company.id} and s.msisdn like '+254746%' and s.id % 5 <> 0`.execute(
      ctx.ownerDb,
    );
    const { rows } = await sql<{
      id: number;
      msisdn: string;
      status: string;
      created_at: Date;
      active: boolean;
    }>`
      select s.id, s.msisdn, s.status, s.created_at,
             exists (select 1 from subscriptions x where x.company_id = s.company_id and x.subscriber_id = s.id
                        and x.status = 'active') as active
        from subscribers s where s.company_id = ${fresh.company.id} order by s.id desc`.execute(ctx.ownerDb);
    const expected = rows.map((row) => ({
      id: Number(row.id),
      msisdn: row.msisdn,
      status: row.status,
      companyId: fresh.company.id,
      company: { name: fresh.company.name },
      createdAt: row.created_at.toISOString(),
      active_services: row.active ? [service.id] : [],
      attributes: {},
    }));
    const page = async (query: string) =>
      (await call('GET', `/subscriptions/subscribers${query}`, 'company_admin', undefined, fresh)).json().data
        .subscribers;
    expect(await page('?limit=100&page=1')).toEqual(expected.slice(0, 100));
    expect(await page('?limit=100&page=12')).toEqual(expected.slice(1_100, 1_200));
    expect(await page('?limit=50&page=27')).toEqual(expected.slice(1_300, 1_350));
  });

  it('gives each subscriber of a page, deep ones too, their own active services', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const neighbour = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const [a, b] = [
      await createService(ctx.ownerDb, fresh.company.id),
      await createService(ctx.ownerDb, fresh.company.id),
    ];
    const theirs = await createService(ctx.ownerDb, neighbour.company.id);
    // The two companies' ids interleaved: a page's range of ids holds the neighbour's too.
    await sql`insert into subscribers (company_id, msisdn)
              select case when g % 5 = 0 then ${neighbour.company.id}::bigint else ${fresh.company.id}::bigint end,
                     '+254745' || lpad(g::text, 6, '0')
                from generate_series(1, 1500) g order by g`.execute(ctx.ownerDb);
    await sql`insert into subscriptions (company_id, service_id, subscriber_id, status, source)
              select s.company_id, v.service_id, s.id, v.status, 'import'
                from subscribers s cross join lateral (values
                       (${a.id}::bigint, case when s.id % 3 = 0 then 'active' end),
                       (${b.id}::bigint, case when s.id % 4 = 0 then (case when s.id % 8 = 0 then 'unsubscribed' else 'active' end) end),
                       (${theirs.id}::bigint, 'active')) v(service_id, status)
               where s.msisdn like '+254745%' and v.status is not null
                 and (s.company_id = ${neighbour.company.id}) = (v.service_id = ${theirs.id})`.execute(
      ctx.ownerDb,
    );
    const { rows: expected } = await sql<{ msisdn: string; active_services: number[] }>`
      select s.msisdn, coalesce((select array_agg(x.service_id order by x.service_id) from subscriptions x
                                  where x.company_id = s.company_id and x.subscriber_id = s.id and x.status = 'active'), '{}')::int[]
                                  as active_services
        from subscribers s where s.company_id = ${fresh.company.id} order by s.id desc`.execute(ctx.ownerDb);
    const page = async (query: string) =>
      (await call('GET', `/subscriptions/subscribers${query}`, 'company_admin', undefined, fresh))
        .json()
        .data.subscribers.map((s: { msisdn: string; active_services: number[] }) => ({
          msisdn: s.msisdn,
          active_services: s.active_services,
        }));
    expect(await page('?limit=100&page=1')).toEqual(expected.slice(0, 100));
    expect(await page('?limit=100&page=11')).toEqual(expected.slice(1_000, 1_100));
    expect(await page('?limit=20&page=60')).toEqual(expected.slice(1_180, 1_200));
    // Narrowed lists (a status, a number's beginning) read their page's keys, then its rows.
    expect(await page('?status=active&limit=20&page=3')).toEqual(expected.slice(40, 60));
    expect(await page('?search=%2B254745&limit=20&page=2')).toEqual(expected.slice(20, 40));
  });

  it('filters by status, refuses unknown sizes and statuses', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, fresh.company.id);
    await subscribeNumbers(ctx.ownerDb, service, [kenyanNumber(32, 1), kenyanNumber(32, 2)]);
    await call(
      'DELETE',
      `/services/${service.id}/unsubscribe`,
      'company_admin',
      { phoneNumber: kenyanNumber(32, 1) },
      fresh,
    );
    const active = (
      await call('GET', '/subscriptions/subscribers?status=active', 'company_admin', undefined, fresh)
    ).json().data;
    expect(active.totalItems).toBe(1);
    expect(active.subscribers[0].msisdn).toBe(kenyanNumber(32, 2));
    const gone = (
      await call('GET', '/subscriptions/subscribers?status=unsubscribed', 'company_admin', undefined, fresh)
    ).json().data;
    expect(gone.totalItems).toBe(1);
    expect((await call('GET', '/subscriptions/subscribers?limit=15', 'company_admin')).statusCode).toBe(400);
    expect((await call('GET', '/subscriptions/subscribers?status=gone', 'company_admin')).statusCode).toBe(
      400,
    );
    expect((await call('GET', '/subscriptions/subscribers?page=0', 'company_admin')).statusCode).toBe(400);
    for (const limit of ['abc', '7', '2.5']) {
      const refused = await call('GET', `/subscriptions/subscribers?limit=${limit}`, 'company_admin');
      expect(refused.statusCode, limit).toBe(400);
      expect(refused.json().message, limit).toBe(SUBSCRIBER_MESSAGES.pageSize);
    }
    const badService = await call('GET', '/subscriptions/subscribers?serviceId=abc', 'company_admin');
    expect(badService.statusCode).toBe(400);
    expect(badService.json().message).toBe(QUERY_ID_MESSAGES.serviceId);
    // Empty, as the console sends an unset filter: no filter.
    expect(
      (await call('GET', '/subscriptions/subscribers?serviceId=&companyId=', 'company_admin')).statusCode,
    ).toBe(200);
  });

  it('caps the count of a broad search', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, fresh.company.id);
    await sql`insert into subscribers (company_id, msisdn) select ${fresh.company.id}, '+254733' || lpad(g::text, 6, '0') from generate_series(1, ${SUBSCRIBER_COUNT_CAP + 5}) g`.execute(
      ctx.ownerDb,
    );
    // As an import does, and autovacuum would: plans made for the table's earlier size are made
    // again for this one.
    await sql`select analyze_subscriber_tables()`.execute(ctx.ownerDb);
    void service;
    const data = (
      await call('GET', '/subscriptions/subscribers?search=254733', 'company_admin', undefined, fresh)
    ).json().data;
    expect(data).toMatchObject({ totalItems: SUBSCRIBER_COUNT_CAP, totalIsExact: false });
    const all = (await call('GET', '/subscriptions/subscribers', 'company_admin', undefined, fresh)).json()
      .data;
    expect(all).toMatchObject({ totalItems: SUBSCRIBER_COUNT_CAP + 5, totalIsExact: true });
  });

  it('lets system_admin see every company or one, each row naming its company', async () => {
    const first = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const second = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const firstNumbers = Array.from({ length: 3 }, (_, i) => kenyanNumber(34, i));
    const secondNumbers = Array.from({ length: 2 }, (_, i) => kenyanNumber(35, i));
    await subscribeNumbers(ctx.ownerDb, await createService(ctx.ownerDb, first.company.id), firstNumbers);
    await subscribeNumbers(ctx.ownerDb, await createService(ctx.ownerDb, second.company.id), secondNumbers);
    type Row = { msisdn: string; companyId: number; company: { name: string } };

    // Unfiltered: both companies, told apart by name.
    const all = (await call('GET', '/subscriptions/subscribers?limit=100', 'system_admin')).json().data;
    const byNumber = new Map(all.subscribers.map((s: Row) => [s.msisdn, s]));
    expect(byNumber.get(firstNumbers[0])).toMatchObject({
      companyId: first.company.id,
      company: { name: first.company.name },
    });
    expect(byNumber.get(secondNumbers[0])).toMatchObject({
      companyId: second.company.id,
      company: { name: second.company.name },
    });

    // Narrowed to one company: only its numbers, and the exact total from its counters.
    const one = (
      await call('GET', `/subscriptions/subscribers?companyId=${second.company.id}&limit=100`, 'system_admin')
    ).json().data;
    expect(one.subscribers.map((s: Row) => s.msisdn).sort()).toEqual([...secondNumbers].sort());
    expect(one.subscribers.every((s: Row) => s.company.name === second.company.name)).toBe(true);
    expect(one).toMatchObject({ totalItems: 2, totalPages: 1, totalIsExact: true });

    // The company filter combines with search and status.
    const searched = (
      await call(
        'GET',
        `/subscriptions/subscribers?companyId=${first.company.id}&search=${firstNumbers[1].slice(-8)}&status=active`,
        'system_admin',
      )
    ).json().data;
    expect(searched.subscribers.map((s: Row) => s.msisdn)).toEqual([firstNumbers[1]]);
    expect(searched.totalItems).toBe(1);
  });

  it('keeps a company_admin to their own company whatever companyId they send', async () => {
    const mine = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const theirs = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const myNumber = kenyanNumber(36, 1);
    await subscribeNumbers(ctx.ownerDb, await createService(ctx.ownerDb, mine.company.id), [myNumber]);
    await subscribeNumbers(ctx.ownerDb, await createService(ctx.ownerDb, theirs.company.id), [
      kenyanNumber(36, 2),
    ]);
    const response = await call(
      'GET',
      `/subscriptions/subscribers?companyId=${theirs.company.id}&limit=100`,
      'company_admin',
      undefined,
      mine,
    );
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data.subscribers).toEqual([
      expect.objectContaining({
        msisdn: myNumber,
        companyId: mine.company.id,
        company: { name: mine.company.name },
      }),
    ]);
    expect(data.totalItems).toBe(1);
    // The export too: their own rows, under the columns a company user always had.
    const csv = await call(
      'GET',
      `/subscriptions/subscribers/export?companyId=${theirs.company.id}`,
      'company_admin',
      undefined,
      mine,
    );
    const rows = csv.body.trim().split('\n');
    expect(rows[0]).toBe('phone_number,status,created_at,active_services');
    expect(rows).toHaveLength(2);
    expect(rows[1].startsWith(`${myNumber},active,`)).toBe(true);
  });
});

describe('GET /services/{id}/subscribers', () => {
  it('lists the service’s active subscribers by default, the ended ones on request', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    await subscribeNumbers(ctx.ownerDb, service, [kenyanNumber(40, 1), kenyanNumber(40, 2)]);
    await call('DELETE', `/services/${service.id}/unsubscribe`, 'company_admin', {
      phoneNumber: kenyanNumber(40, 1),
    });
    const active = (await call('GET', `/services/${service.id}/subscribers`, 'company_admin')).json().data;
    expect(active).toMatchObject({ totalItems: 1, totalPages: 1 });
    expect(active.subscribers[0]).toMatchObject({
      msisdn: kenyanNumber(40, 2),
      subscriptionStatus: 'active',
      source: 'console',
    });
    const ended = (
      await call('GET', `/services/${service.id}/subscribers?status=unsubscribed`, 'company_admin')
    ).json().data;
    expect(ended.subscribers[0]).toMatchObject({
      msisdn: kenyanNumber(40, 1),
      subscriptionStatus: 'unsubscribed',
    });
    expect(ended.subscribers[0].unsubscribedAt).not.toBeNull();
    const theirs = await createService(ctx.ownerDb, other.company.id);
    expect((await call('GET', `/services/${theirs.id}/subscribers`, 'company_admin')).statusCode).toBe(404);
  });
});

describe('CSV import and export', () => {
  it('imports valid rows, reports bad lines by number, counts duplicates, and audits', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    await subscribeNumbers(ctx.ownerDb, service, [kenyanNumber(50, 1)]);
    const csv = [
      'name,phone',
      'Ann,0750000001', // already subscribed
      'Bob,+254750000002',
      'Cy,not-a-number',
      '',
      'Di,254750000003',
      'Ed,0750000002', // duplicate of line 3
      'Fa,',
    ].join('\n');
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/services/${service.id}/subscribers/import`,
      headers: { ...bearer(tenant.staff.company_admin.token), 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({
      totalRows: 6,
      imported: 2,
      alreadySubscribed: 1,
      previouslyUnsubscribed: 0,
      duplicatesInFile: 1,
      invalidRows: 2,
      refusedByLimit: 0,
      subscribersLimit: PLAN_CATALOGUE.enterprise.subscribersLimit,
      errors: [
        { line: 4, value: 'not-a-number', message: 'not-a-number is not a valid phone number' },
        { line: 8, value: '', message: 'Phone number is required' },
      ],
      // The other column is read as a merge field (subscriber-attributes.test.ts).
      attributeColumns: ['name'],
      valuesTooLong: 0,
      ignoredColumns: [],
    });
    const count = await ctx.ownerDb
      .selectFrom('services')
      .select('subscriber_count')
      .where('id', '=', service.id)
      .executeTakeFirstOrThrow();
    expect(count.subscriber_count).toBe(3);
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .selectAll()
      .where('action', '=', 'IMPORT')
      .executeTakeFirstOrThrow();
    expect(audit.details).toMatchObject({ serviceId: service.id, imported: 2 });
  });

  it('takes a multipart file and JSON, handles thousands of rows, and never overrides an opt-out', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    const optedOut = kenyanNumber(51, 0);
    await subscribeNumbers(ctx.ownerDb, service, [optedOut]);
    await call('DELETE', `/services/${service.id}/unsubscribe`, 'company_admin', { phoneNumber: optedOut });
    const lines = ['msisdn', ...Array.from({ length: 12_000 }, (_, i) => kenyanNumber(51, i))];
    const boundary = '----sms-test';
    const body = [
      `--${boundary}`,
      'Content-Disposition: form-data; name="file"; filename="numbers.csv"',
      'Content-Type: text/csv',
      '',
      lines.join('\r\n'),
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/services/${service.id}/subscribers/import`,
      headers: {
        ...bearer(tenant.staff.company_admin.token),
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      payload: body,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({
      totalRows: 12_000,
      imported: 11_999,
      previouslyUnsubscribed: 1,
      invalidRows: 0,
    });
    expect(await subscriptionOf(ctx.ownerDb, service.id, optedOut)).toMatchObject({ status: 'unsubscribed' });

    const json = await call('POST', `/services/${service.id}/subscribers/import`, 'company_admin', {
      csv: '0752000001\n',
    });
    expect(json.json().data).toMatchObject({ totalRows: 1, imported: 1 });
    const empty = await call('POST', `/services/${service.id}/subscribers/import`, 'company_admin', {
      csv: '\n\n',
    });
    expect(empty.statusCode).toBe(400);
  });

  it('is for company_admin and system_admin, within the tenant', async () => {
    const service = await createService(ctx.ownerDb, tenant.company.id);
    for (const role of ['content_manager', 'viewer'] as const)
      expect(
        (await call('POST', `/services/${service.id}/subscribers/import`, role, { csv: '0753000001' }))
          .statusCode,
      ).toBe(403);
    expect(
      (
        await call(
          'POST',
          `/services/${service.id}/subscribers/import`,
          'company_admin',
          { csv: '0753000001' },
          other,
        )
      ).statusCode,
    ).toBe(404);
  });

  it('exports the filtered list as CSV', async () => {
    const fresh = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    const service = await createService(ctx.ownerDb, fresh.company.id, { name: '=Cmd Service' });
    await subscribeNumbers(
      ctx.ownerDb,
      service,
      Array.from({ length: 4500 }, (_, i) => kenyanNumber(55, i)),
    );
    const response = await call(
      'GET',
      '/subscriptions/subscribers/export',
      'company_admin',
      undefined,
      fresh,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/csv');
    expect(response.headers['content-disposition']).toMatch(/attachment; filename="subscribers-/);
    const rows = response.body.trim().split('\n');
    expect(rows[0]).toBe('phone_number,status,created_at,active_services');
    expect(rows).toHaveLength(4501);
    expect(rows[1]).toMatch(/^\+25475500\d{4},active,\d{4}-.*,'=Cmd Service$/);
    const searched = await call(
      'GET',
      '/subscriptions/subscribers/export?search=55004499',
      'company_admin',
      undefined,
      fresh,
    );
    expect(searched.body.trim().split('\n')).toHaveLength(2);
    expect((await call('GET', '/subscriptions/subscribers/export', 'content_manager')).statusCode).toBe(403);
  });

  it('gives a system_admin’s export a company column, narrowed by companyId', async () => {
    const company = await createCompany(ctx.ownerDb, { name: '=Globex, "East"' });
    const service = await createService(ctx.ownerDb, company.id, { name: 'Alerts' });
    await subscribeNumbers(ctx.ownerDb, service, [kenyanNumber(56, 1), kenyanNumber(56, 2)]);
    const elsewhere = await createService(ctx.ownerDb, other.company.id);
    await subscribeNumbers(ctx.ownerDb, elsewhere, [kenyanNumber(56, 3)]);
    const header = 'phone_number,status,created_at,active_services,company';

    const response = await call(
      'GET',
      `/subscriptions/subscribers/export?companyId=${company.id}`,
      'system_admin',
    );
    expect(response.statusCode).toBe(200);
    const rows = response.body.trim().split('\n');
    expect(rows[0]).toBe(header);
    expect(rows).toHaveLength(3);
    // Newest first; the name is defused and quoted like any other cell.
    for (const [index, msisdn] of [kenyanNumber(56, 2), kenyanNumber(56, 1)].entries()) {
      expect(rows[index + 1].startsWith(`${msisdn},active,`)).toBe(true);
      expect(rows[index + 1].endsWith(`,Alerts,"'=Globex, ""East"""`)).toBe(true);
    }

    // Every company's: then a column per merge field any of them holds (this file's imports give some).
    const everyone = await call('GET', '/subscriptions/subscribers/export', 'system_admin');
    const all = everyone.body.trim().split('\n');
    expect(all[0].startsWith(`${header},`) || all[0] === header).toBe(true);
    expect(all.find((row) => row.startsWith(`${kenyanNumber(56, 3)},`))?.split(',')[4]).toBe(
      other.company.name,
    );
  });
});

describe('role matrix', () => {
  const routes = [
    ['GET', '/subscriptions/subscribers'],
    ['GET', '/subscriptions/subscribers/export'],
    ['GET', '/services/:id/subscribers'],
    ['POST', '/services/:id/subscribe'],
    ['DELETE', '/services/:id/unsubscribe'],
    ['POST', '/services/:id/subscribers/import'],
  ] as const;
  const allowed: Record<TRole, boolean> = {
    system_admin: true,
    company_admin: true,
    content_manager: false,
    viewer: false,
  };
  for (const [method, path] of routes) {
    for (const [role, ok] of Object.entries(allowed) as [TRole, boolean][]) {
      it(`${method} ${path} as ${role} -> ${ok ? 200 : 403}`, async () => {
        const service = await createService(ctx.ownerDb, tenant.company.id);
        const payload =
          method === 'GET'
            ? undefined
            : path.endsWith('import')
              ? { csv: '0760000001' }
              : { phoneNumber: '0760000001' };
        const response = await call(method, path.replace(':id', String(service.id)), role, payload);
        expect(response.statusCode).toBe(ok ? 200 : 403);
      });
    }
  }
});
