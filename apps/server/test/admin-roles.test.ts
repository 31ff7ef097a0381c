import type { TRole } from '@sms/contracts/auth/roles';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyForm, userForm } from './support/admin-factories.ts';
import { createCompany, createTenantWithStaff, createUser } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
let foreign: { companyId: number; userId: number };
beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  const company = await createCompany(ctx.ownerDb);
  const user = await createUser(ctx.ownerDb, { role: 'viewer', companyId: company.id });
  foreign = { companyId: company.id, userId: user.id };
});
afterAll(() => ctx.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Endpoint = { method: Method; path: string; body?: () => unknown; allowed: readonly TRole[] };

const ROLES: readonly TRole[] = ['system_admin', 'company_admin', 'content_manager', 'viewer'];
const ADMIN_ONLY = ['system_admin'] as const;

// Targets are created per call so an allowed mutation never breaks the next row of the matrix.
const freshCompany = async () => (await createCompany(ctx.ownerDb, { status: 'pending' })).id;
const freshActiveCompany = async () => (await createCompany(ctx.ownerDb, { status: 'active' })).id;
const freshUser = async () =>
  (await createUser(ctx.ownerDb, { role: 'viewer', companyId: foreign.companyId })).id;

const resolve = (path: string, fresh?: number) =>
  path
    .replace(':foreign', String(foreign.companyId))
    .replace(':tenant', String(tenant.company.id))
    .replace(':fresh', String(fresh ?? 1));

const ENDPOINTS: (Endpoint & { prepare?: () => Promise<number> })[] = [
  { method: 'GET', path: '/admin/companies', allowed: ADMIN_ONLY },
  { method: 'POST', path: '/admin/companies', body: () => companyForm(), allowed: ADMIN_ONLY },
  { method: 'PUT', path: '/admin/companies/:foreign', body: () => companyForm(), allowed: ADMIN_ONLY },
  {
    method: 'PUT',
    path: '/admin/companies/:tenant',
    body: () => companyForm({ name: tenant.company.name }),
    allowed: ADMIN_ONLY,
  },
  { method: 'PUT', path: '/admin/companies/:fresh/activate', prepare: freshCompany, allowed: ADMIN_ONLY },
  {
    method: 'PUT',
    path: '/admin/companies/:fresh/suspend',
    prepare: freshActiveCompany,
    allowed: ADMIN_ONLY,
  },
  { method: 'DELETE', path: '/admin/companies/:fresh', prepare: freshCompany, allowed: ADMIN_ONLY },
  { method: 'GET', path: '/admin/users', allowed: ADMIN_ONLY },
  { method: 'POST', path: '/admin/users', body: () => userForm(foreign.companyId), allowed: ADMIN_ONLY },
  {
    method: 'PUT',
    path: '/admin/users/:fresh',
    prepare: freshUser,
    body: () => userForm(foreign.companyId),
    allowed: ADMIN_ONLY,
  },
  { method: 'DELETE', path: '/admin/users/:fresh', prepare: freshUser, allowed: ADMIN_ONLY },
  { method: 'GET', path: '/admin/audit-logs', allowed: ADMIN_ONLY },
  { method: 'GET', path: '/callbacks/my-company', allowed: ['company_admin'] },
  { method: 'POST', path: '/callbacks/my-company/regenerate', allowed: ['company_admin'] },
  { method: 'GET', path: '/callbacks/company/:tenant', allowed: ['system_admin', 'company_admin'] },
  {
    method: 'POST',
    path: '/callbacks/company/:tenant/regenerate',
    allowed: ['system_admin', 'company_admin'],
  },
];

describe('role matrix', () => {
  for (const endpoint of ENDPOINTS) {
    for (const role of ROLES) {
      const expected = endpoint.allowed.includes(role) ? 'allowed' : 'refused';
      it(`${role} ${endpoint.method} ${endpoint.path} -> ${expected}`, async () => {
        const id = endpoint.prepare ? await endpoint.prepare() : undefined;
        const path = resolve(endpoint.path, id);
        const response = await call(
          ctx.app,
          tenant.staff[role].token,
          endpoint.method,
          path,
          endpoint.body?.(),
        );
        if (expected === 'allowed') expect(response.statusCode, response.body).toBeLessThan(300);
        else {
          expect(response.statusCode).toBe(403);
          expect(response.json().error).toBe('forbidden');
        }
      });
    }
  }

  it('every endpoint needs a token (401 without), except validate', async () => {
    for (const endpoint of ENDPOINTS) {
      const response = await call(ctx.app, null, endpoint.method, resolve(endpoint.path), endpoint.body?.());
      expect(response.statusCode, `${endpoint.method} ${endpoint.path}`).toBe(401);
    }
    expect((await call(ctx.app, null, 'GET', `/callbacks/validate/dlr/1/${'a'.repeat(43)}`)).statusCode).toBe(
      200,
    );
  });

  it('refused requests change nothing', async () => {
    const before = await ctx.ownerDb
      .selectFrom('companies')
      .select(['id', 'status', 'name'])
      .where('id', '=', foreign.companyId)
      .executeTakeFirst();
    for (const role of ['company_admin', 'content_manager', 'viewer'] as const) {
      await call(
        ctx.app,
        tenant.staff[role].token,
        'PUT',
        `/admin/companies/${foreign.companyId}`,
        companyForm(),
      );
      await call(ctx.app, tenant.staff[role].token, 'DELETE', `/admin/users/${foreign.userId}`);
    }
    expect(
      await ctx.ownerDb
        .selectFrom('companies')
        .select(['id', 'status', 'name'])
        .where('id', '=', foreign.companyId)
        .executeTakeFirst(),
    ).toEqual(before);
    expect(
      await ctx.ownerDb.selectFrom('users').select('id').where('id', '=', foreign.userId).executeTakeFirst(),
    ).toBeDefined();
  });
});
