import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createCompany, createUser, signIn } from './support/factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

/** Connections of the app's pool still checked out. */
const connectionsInUse = () => ctx.pool.totalCount - ctx.pool.idleCount;

async function companyAdmin(overrides: { companyStatus?: string } = {}) {
  const company = await createCompany(ctx.ownerDb);
  const service = await createService(ctx.ownerDb, company.id);
  const user = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
  const { accessToken } = await signIn(ctx.app, user.email);
  if (overrides.companyStatus)
    await ctx.ownerDb
      .updateTable('companies')
      .set({ status: overrides.companyStatus })
      .where('id', '=', company.id)
      .execute();
  return { company, service, user, token: accessToken };
}

describe('a signed-in request', () => {
  it('gives every connection back, whatever the answer', async () => {
    const { service, token } = await companyAdmin();
    const viewer = await createUser(ctx.ownerDb, { role: 'viewer', companyId: service.company_id });
    const viewerToken = (await signIn(ctx.app, viewer.email)).accessToken;
    const suspended = await companyAdmin({ companyStatus: 'suspended' });
    const answers = await Promise.all([
      ctx.app.inject({ method: 'GET', url: `/api/v1/services/${service.id}`, headers: bearer(token) }),
      ctx.app.inject({ method: 'GET', url: '/api/v1/services/999999999', headers: bearer(token) }),
      ctx.app.inject({ method: 'GET', url: '/api/v1/services/abc', headers: bearer(token) }),
      ctx.app.inject({ method: 'GET', url: `/api/v1/services/${service.id}`, headers: bearer(viewerToken) }),
      ctx.app.inject({ method: 'GET', url: '/api/v1/services', headers: bearer(suspended.token) }),
      ctx.app.inject({ method: 'GET', url: '/api/v1/services?status=nonsense', headers: bearer(token) }),
      ctx.app.inject({ method: 'HEAD', url: `/api/v1/services/${service.id}`, headers: bearer(token) }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 404, 400, 403, 401, 400, 200]);
    expect(answers[4]?.json().message).toBe(AUTH_MESSAGES.companySuspended);
    await expect.poll(connectionsInUse, { timeout: 5000 }).toBe(0);
  });
});
