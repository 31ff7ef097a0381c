import { USER_MESSAGES } from '@sms/contracts/admin/admin-user';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/modules/auth/passwords.ts';
import { auditEntries, call, userForm } from './support/admin-factories.ts';
import { createCompany, createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let admin: { id: number; token: string };
let companyId: number;
beforeAll(async () => {
  ctx = await createTestContext();
  const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
  admin = { id: user.id, token: (await signIn(ctx.app, user.email)).accessToken };
  companyId = (await createCompany(ctx.ownerDb, { name: 'Users Co' })).id;
});
afterAll(() => ctx.close());

const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  call(ctx.app, admin.token, method, url, payload);
const passwordHashOf = async (id: number) =>
  (
    await ctx.ownerDb
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).password_hash;

describe('POST /admin/users', () => {
  it('creates a user with the company, hashes the password, audits without it', async () => {
    const form = userForm(companyId, { role: 'content_manager', name: 'Mary Jane Watson' });
    const response = await api('POST', '/admin/users', form);
    expect(response.statusCode).toBe(201);
    const { user } = response.json().data;
    expect(user).toMatchObject({
      name: form.name,
      firstName: 'Mary',
      role: 'content_manager',
      companyId,
      company: { name: 'Users Co' },
      status: 'active',
    });
    expect(response.body).not.toContain(form.password);
    expect(await verifyPassword(await passwordHashOf(user.id), form.password)).toBe(true);
    const [entry] = await auditEntries(ctx.ownerDb, { action: 'CREATE', entity: 'USER', entityId: user.id });
    expect(JSON.stringify(entry!.details)).not.toContain(form.password);
    expect(entry!.company_id).toBe(companyId);
    // The new user can sign in.
    expect((await signIn(ctx.app, form.email, form.password)).user.id).toBe(user.id);
  });

  it('defaults role to viewer and status to active; gives a system_admin companyId null', async () => {
    const { password, email, name } = userForm(null);
    const viewer = await api('POST', '/admin/users', { name, email, password, companyId });
    expect(viewer.json().data.user).toMatchObject({ role: 'viewer', status: 'active' });
    const root = await api('POST', '/admin/users', userForm(companyId, { role: 'system_admin' }));
    expect(root.statusCode).toBe(201);
    expect(root.json().data.user.companyId).toBeNull();
  });

  it.each([
    [{ name: '' }, USER_MESSAGES.requiredFields],
    [{ email: '  ' }, USER_MESSAGES.requiredFields],
    [{ password: '' }, USER_MESSAGES.requiredFields],
    [{ password: undefined }, USER_MESSAGES.requiredFields],
    [{ companyId: null }, USER_MESSAGES.companyRequired],
    [{ companyId: '' }, USER_MESSAGES.companyRequired],
    [{ role: 'company_admin', companyId: undefined }, USER_MESSAGES.companyRequired],
    [{ email: 'nope' }, USER_MESSAGES.emailInvalid],
    [{ password: 'short' }, USER_MESSAGES.passwordTooShort],
    [{ role: 'superuser' }, 'Role must be one of system_admin, company_admin, content_manager, viewer'],
  ])('refuses %o with "%s"', async (overrides, message) => {
    const response = await api('POST', '/admin/users', userForm(companyId, overrides));
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(message);
  });

  it('refuses an unknown company with 400 and a used e-mail (any case) with 409', async () => {
    const unknown = await api('POST', '/admin/users', userForm(999_999));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toBe(USER_MESSAGES.companyMissing);
    const first = userForm(companyId);
    await api('POST', '/admin/users', first);
    const dup = await api('POST', '/admin/users', userForm(companyId, { email: first.email.toUpperCase() }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({ message: USER_MESSAGES.emailTaken, error: 'conflict' });
  });
});

describe('GET /admin/users', () => {
  it('pages by 10 with users/currentPage/totalPages/totalItems and filters by search, role and company', async () => {
    const company = await createCompany(ctx.ownerDb, { name: 'Paging Users Co' });
    for (let i = 0; i < 11; i++)
      await createUser(ctx.ownerDb, {
        role: i === 0 ? 'company_admin' : 'viewer',
        companyId: company.id,
        name: `Pager ${i}`,
      });
    const page1 = (await api('GET', `/admin/users?companyId=${company.id}`)).json().data;
    expect(page1.users).toHaveLength(10);
    expect(page1).toMatchObject({ currentPage: 1, totalPages: 2, totalItems: 11 });
    expect(page1.users[0]).not.toHaveProperty('password_hash');
    const page2 = (await api('GET', `/admin/users?companyId=${company.id}&page=2`)).json().data;
    expect(page2.users).toHaveLength(1);
    const admins = (await api('GET', `/admin/users?companyId=${company.id}&role=company_admin`)).json().data;
    expect(admins.users.map((u: { name: string }) => u.name)).toEqual(['Pager 0']);
    const search = (await api('GET', `/admin/users?searchTerm=PAGER 1&companyId=${company.id}&role=`)).json()
      .data;
    expect(search.users.map((u: { name: string }) => u.name).sort()).toEqual(['Pager 1', 'Pager 10']);
    expect((await api('GET', '/admin/users?role=boss')).statusCode).toBe(400);
    expect((await api('GET', '/admin/users?companyId=x')).statusCode).toBe(400);
  });
});

describe('PUT /admin/users/{id}', () => {
  it('saves changes; a blank password keeps the current one, a new one replaces it and ends their sessions', async () => {
    const created = (await api('POST', '/admin/users', userForm(companyId))).json().data.user;
    const before = await passwordHashOf(created.id);
    const edit = userForm(companyId, {
      email: created.email,
      name: 'Edited Name',
      role: 'company_admin',
      status: 'suspended',
      password: '',
    });
    const saved = await api('PUT', `/admin/users/${created.id}`, edit);
    expect(saved.statusCode).toBe(200);
    expect(saved.json().data.user).toMatchObject({
      name: 'Edited Name',
      role: 'company_admin',
      status: 'suspended',
    });
    expect(await passwordHashOf(created.id)).toBe(before);

    await api('PUT', `/admin/users/${created.id}`, { ...edit, status: 'active' });
    const session = await signIn(ctx.app, created.email, 'S3cure-password');
    await api('PUT', `/admin/users/${created.id}`, { ...edit, status: 'active', password: 'Another-pass-1' });
    expect(await verifyPassword(await passwordHashOf(created.id), 'Another-pass-1')).toBe(true);
    expect((await call(ctx.app, session.accessToken, 'GET', '/auth/profile')).statusCode).toBe(401);
    expect(
      await auditEntries(ctx.ownerDb, { action: 'UPDATE', entity: 'USER', entityId: created.id }),
    ).toHaveLength(3);
  });

  it("turning a user into system_admin clears the company; 409 on another user's e-mail; 404 unknown", async () => {
    const a = (await api('POST', '/admin/users', userForm(companyId))).json().data.user;
    const b = (await api('POST', '/admin/users', userForm(companyId))).json().data.user;
    const promoted = await api(
      'PUT',
      `/admin/users/${a.id}`,
      userForm(companyId, { email: a.email, role: 'system_admin', password: '' }),
    );
    expect(promoted.json().data.user).toMatchObject({ role: 'system_admin', companyId: null, company: null });
    const taken = await api(
      'PUT',
      `/admin/users/${a.id}`,
      userForm(null, { email: b.email, role: 'system_admin' }),
    );
    expect(taken.statusCode).toBe(409);
    expect((await api('PUT', '/admin/users/999999', userForm(companyId))).statusCode).toBe(404);
  });

  it('an admin cannot demote, deactivate or suspend themself', async () => {
    const me = await ctx.ownerDb
      .selectFrom('users')
      .selectAll()
      .where('id', '=', admin.id)
      .executeTakeFirstOrThrow();
    const base = {
      name: me.name,
      email: me.email,
      role: 'system_admin',
      companyId: null,
      status: 'active',
      password: '',
    };
    const demote = await api('PUT', `/admin/users/${admin.id}`, {
      ...base,
      role: 'company_admin',
      companyId,
    });
    expect(demote.statusCode).toBe(400);
    expect(demote.json().message).toBe(USER_MESSAGES.cannotDemoteSelf);
    for (const status of ['inactive', 'suspended']) {
      const response = await api('PUT', `/admin/users/${admin.id}`, { ...base, status });
      expect(response.json().message).toBe(USER_MESSAGES.cannotDeactivateSelf);
    }
    expect((await api('PUT', `/admin/users/${admin.id}`, { ...base, name: 'Still Me' })).statusCode).toBe(
      200,
    );
  });
});

describe('DELETE /admin/users/{id}', () => {
  it('deletes a user with an audit entry; refuses self-deletion and unknown ids', async () => {
    const user = (await api('POST', '/admin/users', userForm(companyId))).json().data.user;
    const response = await api('DELETE', `/admin/users/${user.id}`);
    expect(response.json()).toEqual({ success: true, data: { deleted: true } });
    expect(
      await auditEntries(ctx.ownerDb, { action: 'DELETE', entity: 'USER', entityId: user.id }),
    ).toHaveLength(1);
    expect((await api('DELETE', `/admin/users/${user.id}`)).statusCode).toBe(404);
    const self = await api('DELETE', `/admin/users/${admin.id}`);
    expect(self.statusCode).toBe(400);
    expect(self.json().message).toBe(USER_MESSAGES.cannotDeleteSelf);
  });
});

describe('last system admin', () => {
  // Over HTTP the acting admin is always an active system admin other than the target (self-demotion
  // is refused), so this defence only bites for a caller whose own account changed mid-flight:
  // exercised through the service.
  it('the last active system admin cannot be deleted or demoted', async () => {
    const solo = await createTestContext();
    try {
      const last = await createUser(solo.ownerDb, { role: 'system_admin' });
      const gone = await createUser(solo.ownerDb, { role: 'system_admin', status: 'inactive' });
      const actor = {
        userId: gone.id,
        role: 'system_admin' as const,
        companyId: null,
        name: 'x',
        email: gone.email,
        sessionId: 's',
      };
      const ctxOf = { actor, ip: '127.0.0.1', userAgent: null, readOnly: false };
      const { deleteUser, updateUser } = await import('../src/modules/admin/users.service.ts');
      await expect(deleteUser(solo.deps, ctxOf, last.id)).rejects.toThrow(USER_MESSAGES.lastAdmin);
      const company = await createCompany(solo.ownerDb);
      await expect(
        updateUser(solo.deps, ctxOf, last.id, {
          name: 'x',
          email: last.email,
          role: 'viewer',
          companyId: company.id,
          status: 'active',
        }),
      ).rejects.toThrow(USER_MESSAGES.lastAdmin);
      await expect(
        updateUser(solo.deps, ctxOf, last.id, {
          name: 'x',
          email: last.email,
          role: 'system_admin',
          companyId: null,
          status: 'suspended',
        }),
      ).rejects.toThrow(USER_MESSAGES.lastAdmin);
    } finally {
      await solo.close();
    }
  });
});
