import type { TRole } from '@sms/contracts/auth/roles';
import { afterAll } from 'vitest';
import type { RequestContext } from '../../src/request-context.ts';
import { contextFor } from './activity-factories.ts';
import { createTenantWithStaff } from './factories.ts';
import { createTestContext } from './test-app.ts';

export type TenantWithStaff = Awaited<ReturnType<typeof createTenantWithStaff>>;

/**
 * A test file's own app and database with two companies, each with a signed-in user per role:
 * `home`, the company under test, and `other`, whose data it must never see. Call it at the top
 * level of the file (`await`); the database closes after the file's tests.
 */
export async function createTwoTenantContext() {
  const ctx = await createTestContext();
  afterAll(() => ctx.close());
  const home = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  const other = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  return { ctx, home, other };
}

/** The request context of a tenant's user of that role, for calling a service directly (system admins: platform-wide). */
export const staffContextOf = (tenant: TenantWithStaff, role: TRole): RequestContext =>
  contextFor({
    id: tenant.staff[role].id,
    role,
    companyId: role === 'system_admin' ? null : tenant.company.id,
  });
