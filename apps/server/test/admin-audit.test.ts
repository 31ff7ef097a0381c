import { AUDIT_MESSAGES } from '@sms/contracts/audit/list-audit-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyForm } from './support/admin-factories.ts';
import { createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let admin: { id: number; token: string; email: string };
beforeAll(async () => {
  ctx = await createTestContext();
  const user = await createUser(ctx.ownerDb, { role: 'system_admin', name: 'Audit Admin' });
  admin = { id: user.id, email: user.email, token: (await signIn(ctx.app, user.email)).accessToken };
});
afterAll(() => ctx.close());

const list = (query = '') => call(ctx.app, admin.token, 'GET', `/admin/audit-logs${query}`);

describe('GET /admin/audit-logs', () => {
  it('shows real entries, newest first, with the section 3 fields', async () => {
    const created = (await call(ctx.app, admin.token, 'POST', '/admin/companies', companyForm())).json().data
      .company;
    const response = await list();
    expect(response.statusCode).toBe(200);
    const { auditLogs, currentPage, totalItems } = response.json().data;
    expect(currentPage).toBe(1);
    expect(totalItems).toBeGreaterThanOrEqual(2);
    expect(auditLogs[0]).toMatchObject({
      action: 'CREATE',
      entity: 'COMPANY',
      entityId: String(created.id),
      userId: admin.id,
      userName: 'Audit Admin',
      userEmail: admin.email,
      ipAddress: expect.any(String),
      details: expect.objectContaining({ name: created.name }),
    });
    expect(Date.parse(auditLogs[0].timestamp)).not.toBeNaN();
    expect(auditLogs.map((entry: { action: string }) => entry.action)).toContain('LOGIN');
  });

  it('filters by action and entity, limits to 50 by default and pages', async () => {
    for (let i = 0; i < 3; i++) await signIn(ctx.app, admin.email);
    const logins = (await list('?action=LOGIN&entity=USER&limit=2')).json().data;
    expect(logins.auditLogs).toHaveLength(2);
    expect(logins.totalItems).toBeGreaterThanOrEqual(4);
    expect(logins.totalPages).toBe(Math.ceil(logins.totalItems / 2));
    expect(logins.auditLogs.every((entry: { action: string }) => entry.action === 'LOGIN')).toBe(true);
    const page2 = (await list('?action=LOGIN&limit=2&page=2')).json().data;
    expect(page2.currentPage).toBe(2);
    expect(page2.auditLogs[0].id).toBeLessThan(logins.auditLogs[1].id);

    await ctx.ownerDb
      .insertInto('audit_logs')
      .values(Array.from({ length: 60 }, () => ({ action: 'UPDATE', entity: 'SERVICE', details: '{}' })))
      .execute();
    expect((await list()).json().data.auditLogs).toHaveLength(50);
  });

  it('filters by date: a bare `to` includes that whole day, and the range is checked', async () => {
    await ctx.ownerDb
      .insertInto('audit_logs')
      .values([
        { action: 'DELETE', entity: 'MESSAGE', details: '{}', created_at: '2024-03-10T23:30:00Z' },
        { action: 'DELETE', entity: 'MESSAGE', details: '{}', created_at: '2024-03-11T00:30:00Z' },
      ])
      .execute();
    const day = (await list('?from=2024-03-10&to=2024-03-10')).json().data;
    expect(day.auditLogs.map((entry: { timestamp: string }) => entry.timestamp)).toEqual([
      '2024-03-10T23:30:00.000Z',
    ]);
    const both = (await list('?from=2024-03-10&to=2024-03-11&entity=MESSAGE')).json().data;
    expect(both.totalItems).toBe(2);
    const empty = (await list('?from=&to=&action=')).json().data;
    expect(empty.totalItems).toBeGreaterThan(2);

    const reversed = await list('?from=2024-03-11&to=2024-03-10');
    expect(reversed.statusCode).toBe(400);
    expect(reversed.json().message).toBe(AUDIT_MESSAGES.badRange);
    const garbage = await list('?from=yesterday');
    expect(garbage.statusCode).toBe(400);
    expect(garbage.json().message).toBe(AUDIT_MESSAGES.badDate);
    expect((await list('?action=HACK')).statusCode).toBe(400);
  });
});
