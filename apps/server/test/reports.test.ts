import type { TRole } from '@sms/contracts/auth/roles';
import type { TReportKpi } from '@sms/contracts/reports/report';
import { beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { findReportFigures } from '../src/modules/reports/reports.repository.ts';
import { getReport, reportWindow } from '../src/modules/reports/reports.service.ts';
import {
  insertFixtureTraffic,
  insertInbound,
  insertSend,
  insertSubscribers,
} from './support/activity-factories.ts';
import { bearer, createCompany } from './support/factories.ts';
import { createTwoTenantContext, staffContextOf } from './support/two-tenants.ts';

// Every figure below is counted by hand from this fixture (insertFixtureTraffic lists its traffic),
// seen on 2026-03-15 at 12:30 UTC.
const NOW = new Date('2026-03-15T12:30:00Z');

const { ctx, home: acme, other: globex } = await createTwoTenantContext();

beforeAll(async () => {
  const db = ctx.ownerDb;
  const a = acme.company.id;
  await insertSubscribers(db, a, '2026-02-10T09:00:00Z', Array(10).fill('active'));
  await insertSubscribers(db, a, '2026-03-12T09:00:00Z', ['active', 'active', 'active', 'active', 'pending']);
  await insertFixtureTraffic(db, a);
  // Globex: busy in the same hours, never in Acme's report.
  await insertSend(db, globex.company.id, '2026-03-15T11:00:00Z', Array(50).fill('delivered'));
  await insertInbound(db, globex.company.id, '2026-03-15T11:00:00Z');
});

const reportAt = (timeframe: '24h' | '7d' | '30d', role: TRole = 'company_admin', tenant = acme) =>
  getReport(ctx.deps, staffContextOf(tenant, role), timeframe, NOW);

const kpis = (list: TReportKpi[]) =>
  Object.fromEntries(
    list.map((kpi) => [kpi.id, { value: kpi.value, change: kpi.change, changeType: kpi.changeType }]),
  );

describe('reportWindow', () => {
  it('ends with the current hour or day and compares with the same span before', () => {
    expect(reportWindow('24h', NOW)).toMatchObject({
      bucket: 'hour',
      points: 24,
      from: new Date('2026-03-14T13:00:00Z'),
      previousFrom: new Date('2026-03-13T13:00:00Z'),
      to: new Date('2026-03-15T13:00:00Z'),
    });
    expect(reportWindow('30d', NOW)).toMatchObject({
      bucket: 'day',
      from: new Date('2026-02-14T00:00:00Z'),
      previousFrom: new Date('2026-01-15T00:00:00Z'),
      to: new Date('2026-03-16T00:00:00Z'),
    });
  });
});

describe('report figures (service, at a fixed time)', () => {
  it('24 hours: hourly points, against the 24 hours before', async () => {
    const report = await reportAt('24h');
    // Now: the 11:10 send (2 handed over, 1 delivered, 1 expired) and one inbound at 10:00.
    // Before: the 03-14 08:00 send (4 handed over, 2 delivered; one still pending).
    expect(kpis(report.kpis)).toEqual({
      messages_sent: { value: 2, change: -50, changeType: 'negative' },
      messages_delivered: { value: 1, change: -50, changeType: 'negative' },
      delivery_rate: { value: 50, change: 0, changeType: 'positive' },
      messages_failed: { value: 1, change: null, changeType: 'positive' },
      messages_received: { value: 1, change: null, changeType: 'positive' },
      new_subscribers: { value: 0, change: 0, changeType: 'positive' },
    });
    expect(report.messageVolume).toHaveLength(24);
    expect(report.messageVolume[0].time).toBe('2026-03-14T13:00:00.000Z');
    expect(report.messageVolume.find((p) => p.time === '2026-03-15T11:00:00.000Z')).toEqual({
      time: '2026-03-15T11:00:00.000Z',
      sent: 2,
      received: 0,
    });
    expect(report.messageVolume.find((p) => p.time === '2026-03-15T10:00:00.000Z')?.received).toBe(1);
    expect(report.messageVolume.reduce((sum, p) => sum + p.sent, 0)).toBe(2);
  });

  it('7 days: daily points; a quiet week before has nothing to compare with', async () => {
    const report = await reportAt('7d');
    expect(kpis(report.kpis)).toEqual({
      messages_sent: { value: 6, change: null, changeType: 'positive' },
      messages_delivered: { value: 3, change: null, changeType: 'positive' },
      delivery_rate: { value: 50, change: null, changeType: 'positive' },
      messages_failed: { value: 1, change: null, changeType: 'positive' },
      messages_received: { value: 2, change: null, changeType: 'positive' },
      new_subscribers: { value: 5, change: null, changeType: 'positive' },
    });
    expect(report.messageVolume.map((p) => [p.time.slice(0, 10), p.sent, p.received])).toEqual([
      ['2026-03-09', 0, 0],
      ['2026-03-10', 0, 1],
      ['2026-03-11', 0, 0],
      ['2026-03-12', 0, 0],
      ['2026-03-13', 0, 0],
      ['2026-03-14', 4, 0],
      ['2026-03-15', 2, 1],
    ]);
  });

  it('30 days: against the 30 days before', async () => {
    const report = await reportAt('30d');
    // Now (02-14 to 03-15): sends of 02-25, 03-14, 03-15; before (01-15 to 02-13): the 02-05 send.
    expect(kpis(report.kpis)).toEqual({
      messages_sent: { value: 9, change: 50, changeType: 'positive' },
      messages_delivered: { value: 6, change: 50, changeType: 'positive' },
      delivery_rate: { value: 66.7, change: 0, changeType: 'positive' },
      messages_failed: { value: 1, change: -50, changeType: 'negative' },
      messages_received: { value: 2, change: 100, changeType: 'positive' },
      new_subscribers: { value: 5, change: -50, changeType: 'negative' },
    });
    expect(report.messageVolume).toHaveLength(30);
    expect(report.kpis.find((kpi) => kpi.id === 'messages_failed')?.higherIsBetter).toBe(false);
  });

  it('is the same for every company role, and the platform sums every company', async () => {
    for (const role of ['content_manager', 'viewer'] as const)
      expect(kpis((await reportAt('24h', role)).kpis).messages_sent.value).toBe(2);
    const platform = await reportAt('24h', 'system_admin');
    expect(kpis(platform.kpis).messages_sent.value).toBe(52);
    expect(kpis(platform.kpis).messages_received.value).toBe(2);
    expect(kpis((await reportAt('24h', 'company_admin', globex)).kpis).messages_sent.value).toBe(50);
  });
});

describe('GET /api/v1/reports', () => {
  const get = (query: string, role: TRole = 'viewer') =>
    ctx.app.inject({
      method: 'GET',
      url: `/api/v1/reports${query}`,
      headers: bearer(acme.staff[role].token),
    });

  it('defaults to 7 days and answers kpis and messageVolume', async () => {
    const response = await get('');
    expect(response.statusCode).toBe(200);
    const { data } = response.json();
    expect(data.timeframe).toBe('7d');
    expect(data.bucket).toBe('day');
    expect(data.messageVolume).toHaveLength(7);
    expect(data.kpis.map((kpi: TReportKpi) => kpi.id)).toEqual([
      'messages_sent',
      'messages_delivered',
      'delivery_rate',
      'messages_failed',
      'messages_received',
      'new_subscribers',
    ]);
  });

  it('answers 24 hourly points for 24h and 30 daily points for 30d', async () => {
    expect((await get('?timeframe=24h')).json().data.messageVolume).toHaveLength(24);
    expect((await get('?timeframe=30d')).json().data.messageVolume).toHaveLength(30);
  });

  it('refuses another timeframe with a 400 that names the choices', async () => {
    const response = await get('?timeframe=1y');
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/timeframe must be one of 24h, 7d, 30d/);
  });
});

describe('the report statement (findReportFigures)', () => {
  it('counts a bucket starting at the timeframe in it, one starting at the span before in that span, nothing earlier', async () => {
    const company = (await createCompany(ctx.ownerDb)).id;
    for (const at of [
      '2026-03-13T12:00:00Z', // before the previous span: in neither
      '2026-03-13T13:00:00Z', // the previous span's first hour
      '2026-03-14T12:00:00Z', // the previous span's last hour
      '2026-03-14T13:00:00Z', // the timeframe's first hour
    ])
      await insertInbound(ctx.ownerDb, company, at);
    const figures = await inTenantTransaction(ctx.db, companyScope(company), (trx) =>
      findReportFigures(trx, company, reportWindow('24h', NOW)),
    );
    expect(figures.current.received).toBe(1);
    expect(figures.previous.received).toBe(2);
    expect(figures.volume).toHaveLength(24);
    expect(figures.volume[0]).toEqual({ time: new Date('2026-03-14T13:00:00Z'), sent: 0, received: 1 });
    expect(figures.volume.reduce((sum, point) => sum + point.received, 0)).toBe(1);
  });
});
