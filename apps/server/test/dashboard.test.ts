import type { TRole } from '@sms/contracts/auth/roles';
import { computeTrend } from '@sms/contracts/common/trend';
import { ACTIVITY_ACTORS } from '@sms/contracts/dashboard/dashboard-stats';
import { PLAN_CATALOGUE } from '@sms/contracts/plans/plan-catalogue';
import { beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { findDashboardFigures } from '../src/modules/dashboard/dashboard.repository.ts';
import { getDashboardStats, monthWindow } from '../src/modules/dashboard/dashboard.service.ts';
import {
  insertFixtureTraffic,
  insertSend,
  insertService,
  insertSubscribers,
  setMonthlyUsage,
} from './support/activity-factories.ts';
import { bearer, createCompany } from './support/factories.ts';
import { createTwoTenantContext, staffContextOf } from './support/two-tenants.ts';

// Every figure below is counted by hand from this fixture (insertFixtureTraffic lists its traffic),
// seen on 2026-03-15 at 12:30 UTC.
const NOW = new Date('2026-03-15T12:30:00Z');

const { ctx, home: acme, other: globex } = await createTwoTenantContext();

beforeAll(async () => {
  const db = ctx.ownerDb;
  await db.updateTable('companies').set({ plan: 'premium' }).where('id', '=', globex.company.id).execute();
  await createCompany(db, { status: 'pending', plan: 'enterprise' });
  await createCompany(db, { status: 'suspended', plan: 'professional' });
  await db
    .updateTable('companies')
    .set({ package_name: 'Premium', package_expires_at: '2026-12-31T00:00:00Z', billing_status: 'past_due' })
    .where('id', '=', acme.company.id)
    .execute();

  const a = acme.company.id;
  // Services: two before March (both active), two in March (one inactive).
  await insertService(db, a, '2026-01-10T08:00:00Z', 'active', 'Daily News');
  await insertService(db, a, '2026-02-20T08:00:00Z', 'active', 'Sports');
  await insertService(db, a, '2026-03-05T08:00:00Z', 'inactive', 'Promo');
  await insertService(db, a, '2026-03-10T08:00:00Z', 'active', 'Weather');
  // Subscribers: 10 in February (8 active), 5 in March (4 active).
  await insertSubscribers(db, a, '2026-02-10T09:00:00Z', [
    ...Array(8).fill('active'),
    'unsubscribed',
    'unsubscribed',
  ]);
  await insertSubscribers(db, a, '2026-03-12T09:00:00Z', ['active', 'active', 'active', 'active', 'pending']);
  await insertFixtureTraffic(db, a);
  await setMonthlyUsage(db, a, '2026-03-01', 8_500);

  // Another tenant, whose figures must never show in Acme's.
  const g = globex.company.id;
  await insertService(db, g, '2026-03-02T08:00:00Z');
  await insertSubscribers(db, g, '2026-03-03T09:00:00Z', ['active', 'active', 'active']);
  await insertSend(db, g, '2026-03-14T09:00:00Z', ['delivered', 'failed']);
  await setMonthlyUsage(db, g, '2026-03-01', 2);
});

const statsAt = (role: TRole, tenant = acme) =>
  getDashboardStats(ctx.deps, staffContextOf(tenant, role), NOW);

describe('monthWindow', () => {
  it('compares this month so far with the same span of last month, cut at its end', () => {
    expect(monthWindow(NOW)).toEqual({
      thisMonth: new Date('2026-03-01T00:00:00Z'),
      lastMonth: new Date('2026-02-01T00:00:00Z'),
      lastMonthSameSpanEnd: new Date('2026-02-15T12:30:00Z'),
    });
    expect(monthWindow(new Date('2026-03-31T10:00:00Z')).lastMonthSameSpanEnd).toEqual(
      new Date('2026-03-01T00:00:00Z'),
    );
  });
});

describe('dashboard figures (service, at a fixed time)', () => {
  it("gives a company admin the company's totals, computed trends, usage, billing and limits", async () => {
    const stats = await statsAt('company_admin');
    expect(stats).toMatchObject({
      totalServices: 4,
      activeServices: 3,
      totalSubscribers: 12,
      // Handed over: 6 + 3 + 4 (one still pending) + 2.
      totalMessages: 15,
      trends: {
        // 4 now against 2 on March 1st; 3 active against 2; 12 active subscribers against 8.
        totalServices: { change: 100, changeType: 'positive' },
        activeServices: { change: 50, changeType: 'positive' },
        totalSubscribers: { change: 50, changeType: 'positive' },
        // 6 handed over March 1-15 12:30 against 6 over February 1-15 12:30 (the 25th is outside).
        totalMessages: { change: 0, changeType: 'positive' },
      },
      usageStats: {
        messagesUsed: 8_500,
        messagesLimit: PLAN_CATALOGUE.basic.messagesLimit,
        subscribersUsed: 12,
        subscribersLimit: PLAN_CATALOGUE.basic.subscribersLimit,
        servicesUsed: 4,
        servicesLimit: PLAN_CATALOGUE.basic.servicesLimit,
      },
      readOnly: false,
      platformStats: null,
      billingStatus: 'past_due',
      packageName: 'Premium',
      packageExpiresAt: '2026-12-31T00:00:00.000Z',
    });
  });

  it("uses the company's own limit where it has one, the plan's elsewhere", async () => {
    await ctx.ownerDb
      .updateTable('companies')
      .set({ messages_limit: 9_000 })
      .where('id', '=', acme.company.id)
      .execute();
    try {
      const { usageStats } = await statsAt('company_admin');
      expect(usageStats).toMatchObject({
        messagesLimit: 9_000,
        servicesLimit: PLAN_CATALOGUE.basic.servicesLimit,
      });
    } finally {
      await ctx.ownerDb
        .updateTable('companies')
        .set({ messages_limit: null })
        .where('id', '=', acme.company.id)
        .execute();
    }
    const globexStats = await statsAt('company_admin', globex);
    expect(globexStats.usageStats).toMatchObject({
      messagesUsed: 2,
      messagesLimit: PLAN_CATALOGUE.premium.messagesLimit,
      subscribersLimit: PLAN_CATALOGUE.premium.subscribersLimit,
      servicesLimit: PLAN_CATALOGUE.premium.servicesLimit,
    });
  });

  it('keeps subscriber figures from content managers, and marks viewers read-only', async () => {
    const editor = await statsAt('content_manager');
    expect(editor.totalSubscribers).toBeNull();
    expect(editor.trends.totalSubscribers).toBeNull();
    expect(editor.usageStats).toMatchObject({
      subscribersUsed: null,
      subscribersLimit: null,
      servicesUsed: 4,
    });
    expect(editor.readOnly).toBe(false);
    const viewer = await statsAt('viewer');
    expect(viewer).toMatchObject({ readOnly: true, totalSubscribers: 12, totalMessages: 15 });
  });

  it('gives the other tenant only its own figures', async () => {
    expect(await statsAt('company_admin', globex)).toMatchObject({
      totalServices: 1,
      activeServices: 1,
      totalSubscribers: 3,
      totalMessages: 2,
      trends: { totalMessages: { change: null, changeType: 'positive' } },
    });
  });

  it("reads through row-level security: bound to one company, another company's figures are empty", async () => {
    // The dashboard's statement runs under row-level security: asked for Globex under Acme's binding,
    // every table it reads hides Globex's rows.
    const asked = await inTenantTransaction(ctx.db, companyScope(acme.company.id), (trx) =>
      findDashboardFigures(trx, globex.company.id, monthWindow(NOW), 5),
    );
    expect(asked).toMatchObject({
      services: { total: 0, active: 0 },
      activeSubscribers: 0,
      messagesSent: 0,
      audit: [],
      messages: [],
      company: null,
    });
  });

  it('gives a system admin the platform: every company summed, companies, revenue, no usage or billing', async () => {
    const stats = await statsAt('system_admin');
    expect(stats).toMatchObject({
      totalServices: 5,
      activeServices: 4,
      totalSubscribers: 15,
      totalMessages: 17,
      usageStats: null,
      billingStatus: null,
      packageName: null,
      packageExpiresAt: null,
      platformStats: {
        totalCompanies: 4,
        activeCompanies: 2,
        pendingApprovals: 1,
        // Active companies only: basic (Acme) + premium (Globex).
        totalRevenue: PLAN_CATALOGUE.basic.monthlyPrice + PLAN_CATALOGUE.premium.monthlyPrice,
      },
    });
  });
});

describe('GET /api/v1/dashboard/stats', () => {
  const get = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/api/v1/dashboard/stats', headers: bearer(token) });

  it('answers every role with its own scope', async () => {
    for (const role of ['company_admin', 'content_manager', 'viewer'] as const) {
      const response = await get(acme.staff[role].token);
      expect(response.statusCode).toBe(200);
      const { data } = response.json();
      expect(data.totalServices).toBe(4);
      expect(data.totalMessages).toBe(15);
      expect(data.totalSubscribers).toBe(role === 'content_manager' ? null : 12);
    }
    const admin = (await get(acme.staff.system_admin.token)).json().data;
    expect(admin.platformStats.totalCompanies).toBe(4);
  });

  it("shows recent activity from the company's audit trail and messages, never another company's", async () => {
    await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/services',
      headers: bearer(acme.staff.company_admin.token),
      payload: { name: 'Morning Tips', shortcode: '12345', keyword: 'TIPS' },
    });
    const { recentActivity } = (await get(acme.staff.company_admin.token)).json().data;
    expect(recentActivity[0]).toMatchObject({
      type: 'service',
      message: expect.stringMatching(/created service Morning Tips$/),
    });
    const messages = recentActivity.filter((item: { type: string }) => item.type === 'message');
    expect(messages.map((item: { message: string }) => item.message)).toEqual(
      expect.arrayContaining([
        'Sent to 2 recipient(s): “Flash sale today”',
        expect.stringMatching(/^Received from \+2547\d{8}: “NEWS”$/),
      ]),
    );
    const theirs = (await get(globex.staff.company_admin.token)).json().data.recentActivity;
    expect(JSON.stringify(theirs)).not.toMatch(/Morning Tips|Flash sale|NEWS/);
  });

  it('masks phone numbers in the activity of roles without access to subscribers', async () => {
    const { recentActivity } = (await get(acme.staff.viewer.token)).json().data;
    const inbound = recentActivity.find((item: { message: string }) => item.message.includes('“NEWS”'));
    expect(inbound.message).toMatch(/^Received from \+2547•••\d{3}: “NEWS”$/);
  });

  it('names platform staff to no company user, and by name to platform staff', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/services',
      headers: bearer(acme.staff.system_admin.token),
      payload: { name: 'Staff Pick', shortcode: '12399', keyword: 'PICK', companyId: acme.company.id },
    });
    expect(created.statusCode).toBe(201);
    const admin = await ctx.ownerDb
      .selectFrom('users')
      .select('name')
      .where('id', '=', acme.staff.system_admin.id)
      .executeTakeFirstOrThrow();
    const entryOf = (activity: { message: string }[]) =>
      activity.find((item) => item.message.endsWith('created service Staff Pick'))?.message;

    for (const role of ['company_admin', 'content_manager', 'viewer'] as const) {
      const { recentActivity } = (await get(acme.staff[role].token)).json().data;
      expect(entryOf(recentActivity), role).toBe(
        `${ACTIVITY_ACTORS.platformStaff} created service Staff Pick`,
      );
      expect(JSON.stringify(recentActivity), role).not.toContain(admin.name);
    }
    const { recentActivity } = (await get(acme.staff.system_admin.token)).json().data;
    expect(entryOf(recentActivity)).toBe(`${admin.name} created service Staff Pick`);
  });

  it('refuses a request without a token', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/api/v1/dashboard/stats' });
    expect(response.statusCode).toBe(401);
  });
});

describe('this month against the same span of last month', () => {
  it('counts last month’s whole days and the hours of its last part-day, not the hours after it', async () => {
    const db = ctx.ownerDb;
    const company = await createCompany(db, {});
    await insertSend(db, company.id, '2026-02-03T09:00:00Z', ['delivered', 'failed']);
    await insertSend(db, company.id, '2026-02-15T10:00:00Z', ['delivered']);
    await insertSend(db, company.id, '2026-02-15T13:00:00Z', ['delivered', 'delivered']);
    await insertSend(db, company.id, '2026-03-02T09:00:00Z', [
      'delivered',
      'delivered',
      'sent',
      'failed',
      'submitted',
      'delivered',
    ]);
    const stats = await getDashboardStats(
      ctx.deps,
      {
        actor: {
          userId: 1,
          role: 'company_admin',
          companyId: company.id,
          name: 'A',
          email: 'a@b.test',
          sessionId: 's',
        },
        ip: '127.0.0.1',
        userAgent: null,
        readOnly: true,
      },
      NOW,
    );
    expect(stats.totalMessages).toBe(11);
    expect(stats.trends.totalMessages).toEqual(computeTrend(6, 3));
  });
});
