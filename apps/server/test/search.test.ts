import type { TRole } from '@sms/contracts/auth/roles';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snippetAround } from '../src/modules/search/search.service.ts';
import { insertInbound, insertSend, insertService, insertSubscribers } from './support/activity-factories.ts';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let acme: Awaited<ReturnType<typeof createTenantWithStaff>>;
let globex: Awaited<ReturnType<typeof createTenantWithStaff>>;
let acmeNumbers: { id: number; msisdn: string }[];
let globexNumbers: { id: number; msisdn: string }[];

beforeAll(async () => {
  ctx = await createTestContext();
  const db = ctx.ownerDb;
  acme = await createTenantWithStaff(ctx.app, db);
  globex = await createTenantWithStaff(ctx.app, db);
  await insertService(db, acme.company.id, '2026-03-01T00:00:00Z', 'active', 'Weather Alerts');
  await insertService(db, acme.company.id, '2026-03-01T00:00:00Z', 'inactive', 'Daily Weather Digest');
  await insertService(db, globex.company.id, '2026-03-01T00:00:00Z', 'active', 'Weather Globex');
  acmeNumbers = await insertSubscribers(db, acme.company.id, '2026-03-01T00:00:00Z', [
    'active',
    'unsubscribed',
  ]);
  globexNumbers = await insertSubscribers(db, globex.company.id, '2026-03-01T00:00:00Z', ['active']);
  await insertSend(
    db,
    acme.company.id,
    '2026-03-02T00:00:00Z',
    ['delivered'],
    'Storm warning for the coast tonight',
  );
  await insertInbound(db, acme.company.id, '2026-03-03T00:00:00Z', 'Is the STORM over?');
  await insertSend(
    db,
    globex.company.id,
    '2026-03-04T00:00:00Z',
    ['delivered'],
    'Storm season discounts at Globex',
  );
  await insertSend(db, acme.company.id, '2026-03-05T00:00:00Z', ['delivered'], '100% off_today only');
});
afterAll(() => ctx.close());

const search = (q: string, role: TRole = 'company_admin', tenant = acme) =>
  ctx.app.inject({
    method: 'GET',
    url: `/api/v1/search?q=${encodeURIComponent(q)}`,
    headers: bearer(tenant.staff[role].token),
  });
const data = async (q: string, role: TRole = 'company_admin', tenant = acme) =>
  (await search(q, role, tenant)).json().data;

describe('GET /api/v1/search', () => {
  it("finds the company's services by name, short code or keyword, names starting with the text first", async () => {
    const { services } = await data('weather');
    expect(services.map((s: { name: string }) => s.name)).toEqual(['Weather Alerts', 'Daily Weather Digest']);
    expect(services[0]).toMatchObject({ status: 'active', companyName: acme.company.name });
  });

  it('finds subscribers by any part of their number, in national or international form', async () => {
    const [active] = acmeNumbers;
    const tail = active.msisdn.slice(-6);
    expect((await data(tail)).subscribers).toEqual([
      { id: active.id, msisdn: active.msisdn, status: 'active', companyName: acme.company.name },
    ]);
    // 0712... is +254712...: the national trunk 0 is dropped.
    expect((await data(`0${active.msisdn.slice(4)}`)).subscribers.map((s: { id: number }) => s.id)).toEqual([
      active.id,
    ]);
    expect((await data(active.msisdn)).subscribers).toHaveLength(1);
  });

  it('finds messages by content, any case, newest first, with the match in the snippet', async () => {
    const { messages } = await data('storm');
    expect(messages.map((m: { snippet: string }) => m.snippet)).toEqual([
      'Is the STORM over?',
      'Storm warning for the coast tonight',
    ]);
    expect(messages[0]).toMatchObject({ direction: 'inbound', status: 'received' });
  });

  it("never finds another company's services, subscribers or messages", async () => {
    const everything = await data('Globex');
    expect(everything).toMatchObject({ services: [], subscribers: [], messages: [] });
    expect((await data(globexNumbers[0].msisdn.slice(-7))).subscribers).toEqual([]);
    const theirs = await data('storm', 'company_admin', globex);
    expect(theirs.messages.map((m: { snippet: string }) => m.snippet)).toEqual([
      'Storm season discounts at Globex',
    ]);
    expect(theirs.services).toEqual([]);
  });

  it('searches every company for a system admin', async () => {
    const { services, messages } = await data('weather', 'system_admin');
    expect(services.map((s: { name: string }) => s.name).sort()).toEqual([
      'Daily Weather Digest',
      'Weather Alerts',
      'Weather Globex',
    ]);
    expect((await data('storm', 'system_admin')).messages).toHaveLength(3);
    expect(messages).toEqual([]);
  });

  it("finds every company's subscribers for a system admin, newest first", async () => {
    const { subscribers } = await data('254', 'system_admin');
    const everyone = [...acmeNumbers, ...globexNumbers].map((s) => s.id).sort((a, b) => b - a);
    expect(subscribers.map((s: { id: number }) => s.id)).toEqual(everyone);
  });

  it('searches only the kinds the role may open', async () => {
    const editor = await data(acmeNumbers[0].msisdn.slice(-6), 'content_manager');
    expect(editor.kinds).toEqual(['services', 'messages']);
    expect(editor.subscribers).toEqual([]);
    expect((await data('storm', 'content_manager')).messages).toHaveLength(2);
    const viewer = await data('storm', 'viewer');
    expect(viewer).toMatchObject({ kinds: [], services: [], subscribers: [], messages: [] });
  });

  it("takes LIKE's own characters literally", async () => {
    expect((await data('100%')).messages.map((m: { snippet: string }) => m.snippet)).toEqual([
      '100% off_today only',
    ]);
    expect((await data('f_t')).messages).toHaveLength(1);
    expect((await data('%%%')).messages).toEqual([]);
    expect((await data('o_e')).messages).toEqual([]);
  });

  it('finds companies by name and users by name or e-mail for a system admin only', async () => {
    const found = await data(acme.company.name, 'system_admin');
    expect(found.kinds).toEqual(['services', 'subscribers', 'messages', 'companies', 'users']);
    expect(found.companies).toEqual([{ id: acme.company.id, name: acme.company.name, status: 'active' }]);
    const viewerEmail = acme.staff.viewer.email;
    const users = (await data(viewerEmail, 'system_admin')).users;
    expect(users).toEqual([
      expect.objectContaining({
        id: acme.staff.viewer.id,
        email: viewerEmail,
        role: 'viewer',
        companyName: acme.company.name,
      }),
    ]);
    // A company admin gets neither, for its own company's name or its own staff.
    const own = await data(acme.company.name);
    expect(own.kinds).not.toContain('companies');
    expect(own).toMatchObject({ companies: [], users: [] });
    expect((await data(viewerEmail)).users).toEqual([]);
  });

  it('refuses text shorter than 2 or longer than 100 characters with a 400', async () => {
    for (const q of ['a', ' a ', 'x'.repeat(101)]) {
      const response = await search(q);
      expect(response.statusCode).toBe(400);
    }
    expect(
      (
        await ctx.app.inject({
          method: 'GET',
          url: '/api/v1/search',
          headers: bearer(acme.staff.viewer.token),
        })
      ).statusCode,
    ).toBe(400);
  });
});

describe('search past the newest rows (the indexed ranges)', () => {
  it('finds an old message by a word, or the start of one, behind 1,500 newer messages, within the tenant', async () => {
    const db = ctx.ownerDb;
    await insertSend(
      db,
      acme.company.id,
      '2026-01-02T00:00:00Z',
      ['delivered'],
      'Quarterly harvest-festival Raffle',
    );
    await insertSend(db, globex.company.id, '2026-01-02T00:00:00Z', ['delivered'], 'Globex raffle tickets');
    await sql`
      insert into messages (company_id, direction, content, status, created_at, updated_at)
      select ${acme.company.id}, 'inbound', 'Filler ' || g, 'received', now() - g * interval '1 minute', now()
        from generate_series(1, 1500) g`.execute(db);
    expect((await data('raffle')).messages.map((m: { snippet: string }) => m.snippet)).toEqual([
      'Quarterly harvest-festival Raffle',
    ]);
    // Leading letters of a word, several words in any order.
    expect((await data('harv raff')).messages).toHaveLength(1);
    expect((await data('festival quarterly')).messages).toHaveLength(1);
    expect((await data('raffle tickets')).messages).toEqual([]);
    expect(
      (await data('raffle', 'company_admin', globex)).messages.map((m: { snippet: string }) => m.snippet),
    ).toEqual(['Globex raffle tickets']);
    expect((await data('raffle', 'system_admin')).messages).toHaveLength(2);
    // One word is looked up in the word index's vocabulary (migration 0044): found inside a longer
    // word at any age, as it is among the newest messages.
    expect((await data('arvest')).messages.map((m: { snippet: string }) => m.snippet)).toEqual([
      'Quarterly harvest-festival Raffle',
    ]);
    expect((await data('arvest', 'company_admin', globex)).messages).toEqual([]);
  });

  it('finds an old subscriber by the start of the number behind 1,500 newer ones, in national or international form', async () => {
    const db = ctx.ownerDb;
    const [old] = await insertSubscribers(db, acme.company.id, '2026-01-01T00:00:00Z', ['active']);
    await sql`
      insert into subscribers (company_id, msisdn, status)
      select ${acme.company.id}, '+2541' || lpad(g::text, 8, '0'), 'active' from generate_series(1, 1500) g`.execute(
      db,
    );
    const national = `0${old.msisdn.slice(4)}`;
    for (const q of [old.msisdn, old.msisdn.slice(1), national, national.slice(0, 8)])
      expect(
        (await data(q)).subscribers.map((s: { id: number }) => s.id),
        q,
      ).toContain(old.id);
    expect((await data(national, 'company_admin', globex)).subscribers).toEqual([]);
  });

  it('finds an old subscriber by the last digits of the number behind 1,500 newer ones, within the tenant', async () => {
    const db = ctx.ownerDb;
    const [old] = await sql<{ id: number; msisdn: string }>`
      insert into subscribers (company_id, msisdn, status, created_at)
      values (${acme.company.id}, '+254799871809', 'active', '2025-12-01') returning id, msisdn`
      .execute(db)
      .then((result) => result.rows);
    await sql`
      insert into subscribers (company_id, msisdn, status)
      select ${acme.company.id}, '+2547' || lpad(g::text, 8, '0'), 'active' from generate_series(1, 1500) g`.execute(
      db,
    );
    expect((await data('71809')).subscribers.map((s: { id: number }) => s.id)).toEqual([old.id]);
    expect((await data('9871809', 'system_admin')).subscribers.map((s: { id: number }) => s.id)).toEqual([
      old.id,
    ]);
    expect((await data('71809', 'company_admin', globex)).subscribers).toEqual([]);
  });
});

describe('snippetAround', () => {
  it('cuts long content around the match', () => {
    const content = `${'a'.repeat(100)}needle${'b'.repeat(100)}`;
    expect(snippetAround(content, 'NEEDLE')).toBe(`…${'a'.repeat(40)}needle${'b'.repeat(40)}…`);
    expect(snippetAround('short needle', 'needle')).toBe('short needle');
  });
});
