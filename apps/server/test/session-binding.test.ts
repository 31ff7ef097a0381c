import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginSessionTransaction } from '../src/modules/auth/auth.repository.ts';
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

describe('the lookup binds only an admitted user', () => {
  /** The lookup as a read sends it, then what the transaction is bound to and sees. */
  const lookUp = (userId: number, sessionId: string) =>
    ctx.db.connection().execute(async (connection) => {
      try {
        const user = await beginSessionTransaction(connection, userId, sessionId, true);
        const { rows } = await sql<{ company: string; platform: string; user: string; services: number }>`
          select coalesce(current_setting('app.company_id', true), '') as company,
                 coalesce(current_setting('app.platform', true), '') as platform,
                 coalesce(current_setting('app.user_id', true), '') as user,
                 (select count(*)::int from services) as services`.execute(connection);
        return { user, bound: rows[0] };
      } finally {
        await sql`rollback`.execute(connection);
      }
    });

  const sessionOf = async (userId: number) => {
    const row = await ctx.ownerDb
      .selectFrom('refresh_tokens')
      .select('family_id')
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return row.family_id as string;
  };

  it('binds an active user to their company, a system admin to the platform', async () => {
    const { company, user } = await companyAdmin();
    const live = await lookUp(user.id, await sessionOf(user.id));
    expect(live.user?.id).toBe(user.id);
    expect(live.bound).toEqual({
      company: String(company.id),
      platform: '',
      user: String(user.id),
      services: 1,
    });

    const admin = await createUser(ctx.ownerDb, { role: 'system_admin' });
    await signIn(ctx.app, admin.email);
    const platform = await lookUp(admin.id, await sessionOf(admin.id));
    expect(platform.bound).toMatchObject({ company: '', platform: 'on', user: String(admin.id) });
    expect(platform.bound?.services).toBeGreaterThanOrEqual(1);
  });

  it('binds nothing for a suspended user or company, or an ended sign-in: row security shows nothing', async () => {
    const nothing = { company: '', platform: '', user: '', services: 0 };
    const suspendedCompany = await companyAdmin({ companyStatus: 'suspended' });
    const refused = await lookUp(suspendedCompany.user.id, await sessionOf(suspendedCompany.user.id));
    expect(refused.user?.company_status).toBe('suspended');
    expect(refused.bound).toEqual(nothing);

    const suspendedUser = await companyAdmin();
    const session = await sessionOf(suspendedUser.user.id);
    await ctx.ownerDb
      .updateTable('users')
      .set({ status: 'suspended' })
      .where('id', '=', suspendedUser.user.id)
      .execute();
    expect((await lookUp(suspendedUser.user.id, session)).bound).toEqual(nothing);

    const ended = await companyAdmin();
    const endedSession = await sessionOf(ended.user.id);
    await ctx.ownerDb
      .updateTable('refresh_tokens')
      .set({ revoked_at: new Date() })
      .where('user_id', '=', ended.user.id)
      .execute();
    const gone = await lookUp(ended.user.id, endedSession);
    expect(gone.user).toBeUndefined();
    expect(gone.bound).toEqual(nothing);
  });
});
