import { COMPANY_MESSAGES } from '@sms/contracts/admin/company';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptSecret } from '../src/lib/crypto.ts';
import { addCompanyData, auditEntries, call, companyForm } from './support/admin-factories.ts';
import { createCompany, createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let admin: { id: number; token: string };
beforeAll(async () => {
  ctx = await createTestContext();
  const user = await createUser(ctx.ownerDb, { role: 'system_admin', name: 'Root Admin' });
  admin = { id: user.id, token: (await signIn(ctx.app, user.email)).accessToken };
});
afterAll(() => ctx.close());

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  call(ctx.app, admin.token, method, url, payload);

describe('POST /admin/companies', () => {
  it('creates a company with defaults, encrypted credentials, masked output, callback tokens and an audit entry', async () => {
    const form = companyForm({
      plan: undefined,
      status: undefined,
      apiKey: 'key-1234567890abcd',
      apiSecret: 'sandbox-user',
    });
    const response = await api('POST', '/admin/companies', form);
    expect(response.statusCode).toBe(201);
    const { company } = response.json().data;
    expect(company).toMatchObject({
      name: form.name,
      email: form.email,
      phoneNumber: form.phoneNumber,
      address: form.address,
      plan: 'basic',
      status: 'active',
      apiKey: '••••••••abcd',
      // Africa's Talking's username is not a secret (issue 9 item 8): shown as it is.
      apiSecret: 'sandbox-user',
      provider: { kind: 'simulator' },
      userCount: 0,
      serviceCount: 0,
      subscriberCount: 0,
    });
    expect(response.body).not.toContain('key-1234567890abcd');

    const row = await ctx.ownerDb
      .selectFrom('company_provider_settings')
      .selectAll()
      .where('company_id', '=', company.id)
      .where('kind', '=', 'africastalking')
      .executeTakeFirstOrThrow();
    expect(row.secret_encrypted).not.toContain('key-1234567890abcd');
    expect(decryptSecret(row.secret_encrypted!, ctx.deps.keys.encryption)).toBe('key-1234567890abcd');
    expect(row.settings).toMatchObject({ username: 'sandbox-user' });

    const tokens = await ctx.ownerDb
      .selectFrom('company_callback_tokens')
      .select('callback_type')
      .where('company_id', '=', company.id)
      .execute();
    expect(tokens.map((t) => t.callback_type).sort()).toEqual(['dlr', 'subscription']);

    const [entry] = await auditEntries(ctx.ownerDb, {
      action: 'CREATE',
      entity: 'COMPANY',
      entityId: company.id,
    });
    expect(entry).toMatchObject({ user_id: admin.id, user_name: 'Root Admin', company_id: company.id });
    expect(JSON.stringify(entry!.details)).not.toContain('key-1234567890abcd');
    expect(entry!.details).toMatchObject({ name: form.name, apiKeyChanged: true });
  });

  it.each([
    [{ name: '' }, COMPANY_MESSAGES.nameRequired],
    [{ name: '   ' }, COMPANY_MESSAGES.nameRequired],
    [{ email: undefined }, COMPANY_MESSAGES.emailRequired],
    [{ email: 'not-an-address' }, COMPANY_MESSAGES.emailInvalid],
    [{ phoneNumber: '' }, COMPANY_MESSAGES.phoneRequired],
    [{ address: '' }, COMPANY_MESSAGES.addressRequired],
  ])('refuses %o with "%s"', async (overrides, message) => {
    const response = await api('POST', '/admin/companies', companyForm(overrides));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, message, error: 'validation_failed' });
  });

  it('refuses an unknown plan or status with 400, not 500', async () => {
    const gold = await api('POST', '/admin/companies', companyForm({ plan: 'gold' }));
    expect(gold.statusCode).toBe(400);
    // The rule and its message agree: the catalogue's four plans, professional included.
    expect(gold.json().message).toBe('Plan must be basic, premium, enterprise or professional');
    const professional = await api('POST', '/admin/companies', companyForm({ plan: 'professional' }));
    expect(professional.statusCode).toBe(201);
    expect(professional.json().data.company.plan).toBe('professional');
    expect((await api('POST', '/admin/companies', companyForm({ status: 'deleted' }))).statusCode).toBe(400);
    const garbage = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/admin/companies',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(garbage.statusCode).toBe(400);
  });
});

describe('GET /admin/companies', () => {
  it('pages by 10, searches, filters by status and returns real counts and stats', async () => {
    const tag = `Paging${Date.now()}`;
    for (let i = 0; i < 12; i++)
      await createCompany(ctx.ownerDb, { name: `${tag} ${i}`, status: i < 3 ? 'pending' : 'active' });
    const first = await api('GET', `/admin/companies?searchTerm=${tag.toLowerCase()}`);
    expect(first.statusCode).toBe(200);
    const data = first.json().data;
    expect(data.companies).toHaveLength(10);
    expect(data.pagination).toEqual({ currentPage: 1, totalPages: 2, totalItems: 12 });
    const second = (await api('GET', `/admin/companies?searchTerm=${tag}&page=2`)).json().data;
    expect(second.companies).toHaveLength(2);

    const pending = (await api('GET', `/admin/companies?searchTerm=${tag}&status=pending&limit=5`)).json()
      .data;
    expect(pending.pagination.totalItems).toBe(3);
    expect(pending.companies.every((c: { status: string }) => c.status === 'pending')).toBe(true);

    const all = (await api('GET', '/admin/companies?status=')).json().data;
    const counted = await ctx.ownerDb
      .selectFrom('companies')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(all.stats.totalCompanies).toBe(Number(counted.n));
    expect(all.stats.pendingCompanies).toBeGreaterThanOrEqual(3);
    expect(all.stats.totalUsers).toBeGreaterThanOrEqual(1);
  });

  it('carries userCount, serviceCount, subscriberCount and lastActive from the data', async () => {
    const company = await createCompany(ctx.ownerDb, { name: `Counted ${Date.now()}` });
    const user = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
    await createUser(ctx.ownerDb, { role: 'viewer', companyId: company.id });
    await addCompanyData(ctx.ownerDb, company.id);
    await signIn(ctx.app, user.email); // sets last_active_at
    const { companies } = (
      await api('GET', `/admin/companies?searchTerm=${encodeURIComponent(company.name)}`)
    ).json().data;
    expect(companies[0]).toMatchObject({ id: company.id, userCount: 2, serviceCount: 1, subscriberCount: 1 });
    expect(Date.parse(companies[0].lastActive)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('treats search wildcards literally and refuses bad paging with 400', async () => {
    const { data } = (await api('GET', '/admin/companies?searchTerm=%25%25%25_')).json();
    expect(data.companies).toEqual([]);
    expect((await api('GET', '/admin/companies?page=0')).statusCode).toBe(400);
    expect((await api('GET', '/admin/companies?limit=abc')).statusCode).toBe(400);
    expect((await api('GET', '/admin/companies?status=bogus')).statusCode).toBe(400);
  });
});

describe('PUT /admin/companies/{id}', () => {
  it('saves the form, keeps credentials when left blank, replaces them when given, audits', async () => {
    const created = (
      await api('POST', '/admin/companies', companyForm({ apiKey: 'original-key-0001' }))
    ).json().data.company;
    const kept = await api(
      'PUT',
      `/admin/companies/${created.id}`,
      companyForm({ name: 'Renamed Co', status: 'inactive', apiKey: '' }),
    );
    expect(kept.statusCode).toBe(200);
    expect(kept.json().data.company).toMatchObject({
      name: 'Renamed Co',
      status: 'inactive',
      apiKey: '••••••••0001',
    });
    const replaced = await api(
      'PUT',
      `/admin/companies/${created.id}`,
      companyForm({ apiKey: 'second-key-0002' }),
    );
    expect(replaced.json().data.company.apiKey).toBe('••••••••0002');
    const entries = await auditEntries(ctx.ownerDb, {
      action: 'UPDATE',
      entity: 'COMPANY',
      entityId: created.id,
    });
    expect(entries).toHaveLength(2);
  });

  it('answers 404 for an unknown id and 400 for a bad one', async () => {
    expect((await api('PUT', '/admin/companies/999999', companyForm())).statusCode).toBe(404);
    expect((await api('PUT', '/admin/companies/abc', companyForm())).statusCode).toBe(400);
  });
});

describe('activate and suspend', () => {
  it('activates only pending companies and suspends only active ones, each audited', async () => {
    const company = await createCompany(ctx.ownerDb, { status: 'pending' });
    expect((await api('PUT', `/admin/companies/${company.id}/suspend`)).json().message).toBe(
      COMPANY_MESSAGES.onlyActiveSuspend,
    );
    const activated = await api('PUT', `/admin/companies/${company.id}/activate`);
    expect(activated.statusCode).toBe(200);
    expect(activated.json().data.company.status).toBe('active');
    const again = await api('PUT', `/admin/companies/${company.id}/activate`);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(COMPANY_MESSAGES.onlyPendingActivate);
    const suspended = await api('PUT', `/admin/companies/${company.id}/suspend`);
    expect(suspended.json().data.company.status).toBe('suspended');
    expect(await auditEntries(ctx.ownerDb, { action: 'APPROVE', entityId: company.id })).toHaveLength(1);
    expect(await auditEntries(ctx.ownerDb, { action: 'SUSPEND', entityId: company.id })).toHaveLength(1);
    expect((await api('PUT', '/admin/companies/999999/activate')).statusCode).toBe(404);
  });

  it('suspending a company signs its users out on their next request', async () => {
    const company = await createCompany(ctx.ownerDb);
    const user = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
    const session = await signIn(ctx.app, user.email);
    await api('PUT', `/admin/companies/${company.id}/suspend`);
    expect((await call(ctx.app, session.accessToken, 'GET', '/auth/profile')).statusCode).toBe(401);
  });
});

describe('DELETE /admin/companies/{id}', () => {
  it('deletes an empty company at once, with an audit entry', async () => {
    const company = await createCompany(ctx.ownerDb);
    const response = await api('DELETE', `/admin/companies/${company.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({
      deleted: true,
      removed: { users: 0, services: 0, subscribers: 0, messages: 0 },
    });
    expect(
      await ctx.ownerDb.selectFrom('companies').select('id').where('id', '=', company.id).executeTakeFirst(),
    ).toBeUndefined();
    expect(
      await auditEntries(ctx.ownerDb, { action: 'DELETE', entity: 'COMPANY', entityId: company.id }),
    ).toHaveLength(1);
  });

  it('refuses a company with data (409, what it holds) unless cascade=true, then removes it all', async () => {
    const company = await createCompany(ctx.ownerDb);
    await createUser(ctx.ownerDb, { role: 'viewer', companyId: company.id });
    await addCompanyData(ctx.ownerDb, company.id);
    const refused = await api('DELETE', `/admin/companies/${company.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(
      'This company still has 1 user, 1 service, 1 subscriber, 1 message. Deleting the company permanently deletes these too.',
    );
    expect(
      await ctx.ownerDb.selectFrom('companies').select('id').where('id', '=', company.id).executeTakeFirst(),
    ).toBeDefined();
    expect((await api('DELETE', `/admin/companies/${company.id}?cascade=maybe`)).statusCode).toBe(400);

    const confirmed = await api('DELETE', `/admin/companies/${company.id}?cascade=true`);
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json().data.removed).toEqual({ users: 1, services: 1, subscribers: 1, messages: 1 });
    for (const table of ['users', 'services', 'subscribers', 'messages'] as const) {
      const left = await ctx.ownerDb
        .selectFrom(table)
        .select('company_id')
        .where('company_id', '=', company.id)
        .execute();
      expect(left).toEqual([]);
    }
    expect((await api('DELETE', `/admin/companies/${company.id}`)).statusCode).toBe(404);
  });
});
