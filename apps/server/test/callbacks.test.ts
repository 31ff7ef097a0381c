import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../src/seed/demo.ts';
import { auditEntries, call } from './support/admin-factories.ts';
import { createTenantWithStaff } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
let other: Awaited<ReturnType<typeof createTenantWithStaff>>;
beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  other = await createTenantWithStaff(ctx.app, ctx.ownerDb);
});
afterAll(() => ctx.close());

const URL_PATTERN =
  /^http:\/\/sms\.test\/api\/v1\/callbacks\/(subscription|dlr)\/(\d+)\/([A-Za-z0-9_-]{43})$/;
const validate = (url: string) => {
  const path = url.replace('http://sms.test/api/v1/callbacks/', '');
  return call(ctx.app, null, 'GET', `/callbacks/validate/${path}`);
};

describe('callback URLs', () => {
  it('a company without tokens shows null URLs; regenerating creates both, per the URL scheme', async () => {
    const owner = tenant.staff.company_admin.token;
    const before = await call(ctx.app, owner, 'GET', '/callbacks/my-company');
    expect(before.statusCode).toBe(200);
    expect(before.json().data).toEqual({
      companyId: tenant.company.id,
      companyName: tenant.company.name,
      subscriptionCallbackUrl: null,
      dlrCallbackUrl: null,
    });
    const regenerated = await call(ctx.app, owner, 'POST', '/callbacks/my-company/regenerate');
    const data = regenerated.json().data;
    expect(data.subscriptionCallbackUrl).toMatch(URL_PATTERN);
    expect(data.dlrCallbackUrl).toMatch(URL_PATTERN);
    expect(data.subscriptionCallbackUrl).toContain(`/subscription/${tenant.company.id}/`);
    expect(data.dlrCallbackUrl).toContain(`/dlr/${tenant.company.id}/`);
    // Stored hashed and encrypted, never in clear.
    const token = data.dlrCallbackUrl.split('/').pop();
    const rows = await ctx.ownerDb
      .selectFrom('company_callback_tokens')
      .selectAll()
      .where('company_id', '=', tenant.company.id)
      .execute();
    expect(JSON.stringify(rows)).not.toContain(token);
    // Reading again shows the same URLs.
    expect((await call(ctx.app, owner, 'GET', '/callbacks/my-company')).json().data).toEqual(data);
    expect(
      await auditEntries(ctx.ownerDb, { action: 'REGENERATE', entityId: tenant.company.id }),
    ).toHaveLength(1);
  });

  it('regenerating invalidates the old URLs at once; validate answers without leaking companies', async () => {
    const admin = tenant.staff.system_admin.token;
    const first = (
      await call(ctx.app, admin, 'POST', `/callbacks/company/${tenant.company.id}/regenerate`)
    ).json().data;
    for (const url of [first.subscriptionCallbackUrl, first.dlrCallbackUrl]) {
      const response = await validate(url);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ success: true, data: { valid: true } });
    }
    const second = (
      await call(ctx.app, admin, 'POST', `/callbacks/company/${tenant.company.id}/regenerate`)
    ).json().data;
    expect(second.dlrCallbackUrl).not.toBe(first.dlrCallbackUrl);
    expect((await validate(first.dlrCallbackUrl)).json().data.valid).toBe(false);
    expect((await validate(first.subscriptionCallbackUrl)).json().data.valid).toBe(false);
    expect((await validate(second.dlrCallbackUrl)).json().data.valid).toBe(true);

    // A token of one type does not validate as the other.
    const dlrToken = second.dlrCallbackUrl.split('/').pop();
    expect((await validate(`subscription/${tenant.company.id}/${dlrToken}`)).json().data.valid).toBe(false);
    // Unknown company, garbage id, short token: the same 200 {valid:false}.
    const unknown = await validate(`dlr/987654/${dlrToken}`);
    const wrongToken = await validate(`dlr/${tenant.company.id}/${'x'.repeat(43)}`);
    expect(unknown.body).toBe(wrongToken.body);
    expect((await validate(`dlr/abc/${dlrToken}`)).json().data.valid).toBe(false);
    expect((await validate(`dlr/${tenant.company.id}/short`)).json().data.valid).toBe(false);
    expect((await validate(`smtp/${tenant.company.id}/${dlrToken}`)).statusCode).toBe(400);
  });

  it('a company created through the API gets its URLs at once', async () => {
    const admin = tenant.staff.system_admin.token;
    const created = await call(ctx.app, admin, 'POST', '/admin/companies', {
      name: 'Webhook Co',
      email: 'hooks@webhook.test',
      phoneNumber: '+254700',
      address: 'Road 1',
    });
    const urls = (
      await call(ctx.app, admin, 'GET', `/callbacks/company/${created.json().data.company.id}`)
    ).json().data;
    expect(urls.companyName).toBe('Webhook Co');
    expect((await validate(urls.subscriptionCallbackUrl)).json().data.valid).toBe(true);
  });

  it('a company_admin may use the by-id endpoints for their own company; another tenant is 404', async () => {
    const owner = tenant.staff.company_admin.token;
    expect((await call(ctx.app, owner, 'GET', `/callbacks/company/${tenant.company.id}`)).statusCode).toBe(
      200,
    );
    const before = await ctx.ownerDb
      .selectFrom('company_callback_tokens')
      .selectAll()
      .where('company_id', '=', other.company.id)
      .execute();
    for (const [method, url] of [
      ['GET', `/callbacks/company/${other.company.id}`],
      ['POST', `/callbacks/company/${other.company.id}/regenerate`],
      ['GET', '/callbacks/company/999999'],
    ] as const) {
      const response = await call(ctx.app, owner, method, url);
      expect(response.statusCode).toBe(404);
      expect(response.json().message).toBe('Company not found');
    }
    const after = await ctx.ownerDb
      .selectFrom('company_callback_tokens')
      .selectAll()
      .where('company_id', '=', other.company.id)
      .execute();
    expect(after).toEqual(before);
  });

  it('system_admin has no own company: my-company is refused', async () => {
    expect(
      (await call(ctx.app, tenant.staff.system_admin.token, 'GET', '/callbacks/my-company')).statusCode,
    ).toBe(403);
  });

  it('the demo seed gives every company working callback URLs', { timeout: 120_000 }, async () => {
    const fresh = await createTestContext();
    try {
      expect(await seedDemoData(fresh.ownerPool, fresh.deps.keys.encryption)).toBe(true);
      const companies = await fresh.ownerDb.selectFrom('companies').select('id').execute();
      const tokens = await fresh.ownerDb.selectFrom('company_callback_tokens').select('company_id').execute();
      expect(companies.length).toBeGreaterThan(0);
      expect(tokens).toHaveLength(companies.length * 2);
    } finally {
      await fresh.close();
    }
  });

  it('rejects a bad id with 400', async () => {
    expect(
      (await call(ctx.app, tenant.staff.system_admin.token, 'GET', '/callbacks/company/abc')).statusCode,
    ).toBe(400);
  });
});
