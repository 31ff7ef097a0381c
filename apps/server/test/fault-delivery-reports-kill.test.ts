import { summariseDeliveries } from '@sms/contracts/messages/message-details';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DeliveryUpdate } from '../src/messaging/providers/provider.ts';
import { inboxReports } from './support/delivery-report-inbox.ts';
import {
  createSendingCompany,
  insertHandedOverMessage,
  statusCounts,
  waitFor,
} from './support/messaging-factories.ts';
import { rollupDifferences } from './support/rollup-differences.ts';
import { kill, spawnServer, stopAll } from './support/spawned-server.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// 20,000 delivery reports (intermediate and final ones, duplicates, reports for a send whose
// hand-over is recorded only after they came, unknown ids) applied by a worker process that is
// SIGKILLed mid-way and started again. Nothing lost or applied twice: the counters and the
// console's Delivery Summary equal a direct count of the recipients.

const HANDED_OVER = 8000;
const EARLY = 1600;
/** Every fifth handed-over recipient's final report, sent again. */
const DUPLICATES = HANDED_OVER / 5;
const UNKNOWN = 800;
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await stopAll();
  await ctx?.close();
});

const report = (id: string, status: DeliveryUpdate['status']): DeliveryUpdate => ({
  providerMessageId: id,
  status,
  providerStatus: status === 'delivered' ? 'DELIVRD' : status === 'failed' ? 'UNDELIV' : 'ENROUTE',
  error: status === 'failed' ? 'UNDELIV' : null,
  at: new Date(),
});

it('20,000 reports while the applying worker is SIGKILLed and restarted: every report applied once, counters and summary equal a direct count', {
  timeout: 150_000,
}, async () => {
  const tenant = await createSendingCompany(ctx);
  const companyId = tenant.company.id;
  const gids = Array.from({ length: HANDED_OVER }, (_, i) => `FAULT-${i}`);
  const messageId = await insertHandedOverMessage(ctx.ownerDb, companyId, gids, { send: true });
  // As the fan-out does for a send this size: the planner knows the rows are there.
  await sql`analyze delivery_reports; analyze recipient_gateway_ids`.execute(ctx.ownerDb);
  const earlyGids = Array.from({ length: EARLY }, (_, i) => `EARLY-${i}`);
  // Every 10th recipient fails; the others are delivered.
  const finalOf = (i: number) => (i % 10 === 0 ? 'failed' : 'delivered');

  const intake = ctx.deps.messaging.deliveryReports;
  const early: DeliveryUpdate[] = [
    ...earlyGids.map((gid, i) => report(gid, finalOf(i))),
    ...Array.from({ length: UNKNOWN }, (_, i) => report(`NOBODY-${i}`, 'delivered')),
  ];
  const updates: DeliveryUpdate[] = [
    ...gids.map((gid) => report(gid, 'sent')),
    ...gids.map((gid, i) => report(gid, finalOf(i))),
    ...Array.from({ length: DUPLICATES }, (_, i) => report(gids[i * 5], finalOf(i * 5))),
  ];
  const total = early.length + updates.length;
  expect(total).toBe(20_000);

  const database = { databaseUrl: ctx.config.databaseUrl!, databaseAppUrl: ctx.config.databaseAppUrl! };
  const first = spawnServer('worker', database, { WORKER_CONCURRENCY: '2' });
  await first.ready;
  const kept = async () =>
    (
      await sql<{ n: number }>`
        select count(*)::int as n from unmatched_delivery_reports where company_id = ${companyId}`.execute(
        ctx.ownerDb,
      )
    ).rows[0].n;
  // Stored as a provider's callbacks store them (the intake). First the reports nobody carries the
  // id of yet: applied, they are kept aside as unmatched.
  await Promise.all(early.map((update) => intake.submit(companyId, update)));
  await waitFor(kept, (n) => n === EARLY + UNKNOWN, { timeoutMs: 30_000, what: 'the early reports kept' });
  for (let i = 0; i < updates.length; i += 2000)
    await Promise.all(updates.slice(i, i + 2000).map((update) => intake.submit(companyId, update)));
  const finalNow = async () => {
    const counts = await statusCounts(ctx.ownerDb, messageId);
    return (counts.delivered ?? 0) + (counts.failed ?? 0);
  };
  const atKill = await waitFor(finalNow, (n) => n >= 1000, {
    timeoutMs: 60_000,
    everyMs: 10,
    what: `the worker to apply reports (${first.output()})`,
  });
  await kill(first);
  const inboxAtKill = await inboxReports(ctx.ownerDb, companyId);

  // The early reports' hand-over is recorded only now, long after they came and were kept.
  const earlyMessageId = await insertHandedOverMessage(ctx.ownerDb, companyId, earlyGids, { send: true });

  const second = spawnServer('worker', database, { WORKER_CONCURRENCY: '2' });
  await second.ready;
  await waitFor(
    async () => [await finalNow(), await statusCounts(ctx.ownerDb, earlyMessageId)] as const,
    ([handedOver, early]) =>
      handedOver === HANDED_OVER && (early.delivered ?? 0) + (early.failed ?? 0) === EARLY,
    { timeoutMs: 90_000, everyMs: 200, what: `every report applied (${second.output()})` },
  );
  await waitFor(
    () => inboxReports(ctx.ownerDb, companyId),
    (n) => n === 0,
    { what: 'the inbox to be empty' },
  );

  for (const [id, count] of [
    [messageId, HANDED_OVER],
    [earlyMessageId, EARLY],
  ] as const) {
    const direct = await statusCounts(ctx.ownerDb, id);
    expect(direct).toEqual({ delivered: count - count / 10, failed: count / 10 });
    const totals = await sql<Record<string, number>>`
      select pending, submitted, sent, delivered, failed, rejected, expired, total
        from message_delivery_totals where message_id = ${id}`.execute(ctx.ownerDb);
    expect(totals.rows[0]).toEqual({
      pending: 0,
      submitted: 0,
      sent: 0,
      delivered: direct.delivered,
      failed: direct.failed,
      rejected: 0,
      expired: 0,
      total: count,
    });
    const details = await ctx.app.inject({
      method: 'GET',
      url: `/api/v1/messages/${id}/details`,
      headers: tenant.admin,
    });
    expect(details.statusCode, details.body).toBe(200);
    expect(JSON.stringify(details.json())).toContain(
      JSON.stringify(summariseDeliveries(direct)).slice(1, -1),
    );
  }
  // The dashboard's and the reports' figures come from the rollups the applier keeps.
  expect(await rollupDifferences(ctx.ownerDb)).toEqual([]);
  const reports = await ctx.app.inject({
    method: 'GET',
    url: '/api/v1/reports?timeframe=24h',
    headers: tenant.admin,
  });
  expect(reports.statusCode, reports.body).toBe(200);
  const kpi = (id: string) => reports.json().data.kpis.find((k: { id: string }) => k.id === id).value;
  const all = HANDED_OVER + EARLY;
  expect([kpi('messages_delivered'), kpi('messages_failed')]).toEqual([all - all / 10, all / 10]);
  const dashboard = await ctx.app.inject({
    method: 'GET',
    url: '/api/v1/dashboard/stats',
    headers: tenant.admin,
  });
  expect(dashboard.statusCode, dashboard.body).toBe(200);
  expect(dashboard.json().data.totalMessages).toBe(all);
  const unmatched = await kept();
  // Only the ids nobody carries are still kept.
  expect(unmatched).toBe(UNKNOWN);
  console.info(
    `fault delivery reports: ${total} reports (${HANDED_OVER * 2} for handed-over recipients, ${DUPLICATES} duplicates, ` +
      `${EARLY} before their hand-over was recorded, ${UNKNOWN} unknown ids); worker killed at ${atKill} final, ` +
      `${inboxAtKill} waiting in the inbox; after the restart ${HANDED_OVER + EARLY} recipients final, lost 0, ` +
      `applied twice 0 (counters = direct count), ${unmatched} unknown ids kept`,
  );
});
