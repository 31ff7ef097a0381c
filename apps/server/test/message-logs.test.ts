import type { TRole } from '@sms/contracts/auth/roles';
import { PAGINATION_MESSAGES } from '@sms/contracts/common/pagination';
import { MESSAGE_COUNT_CAP } from '@sms/contracts/messages/list-messages';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import { enqueueSend } from '../src/messaging/send-jobs.ts';
import { readMessageDetails } from '../src/modules/messages/message-details.repository.ts';
import {
  type DeliveryReportRow,
  findMessageWithState,
  listMessagesWithCounts,
  type MessageFilter,
} from '../src/modules/messages/message-logs.repository.ts';
import { searchMessagesWithCounts } from '../src/modules/messages/message-search.repository.ts';
import { bearer, createTenantWithStaff } from './support/factories.ts';
import { insertManyMessages, insertMessage, recordSend } from './support/message-log-factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createTenantWithStaff>>;
let other: Awaited<ReturnType<typeof createTenantWithStaff>>;
const ids = {} as Record<
  'delivered' | 'scheduled' | 'queued' | 'inbound' | 'draft' | 'failed' | 'promo' | 'waiting',
  number
>;
let scheduledJobId: string;
let waitingJobId: string;
let third: Awaited<ReturnType<typeof createTenantWithStaff>>;
let otherMessageId: number;
let serviceName: string;

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  other = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  const service = await createService(ctx.ownerDb, tenant.company.id);
  const second = await createService(ctx.ownerDb, tenant.company.id);
  serviceName = service.name;
  const companyId = tenant.company.id;
  // Newest last: the list shows them in the reverse order.
  ids.draft = await insertMessage(ctx.ownerDb, {
    companyId,
    status: 'pending',
    content: 'Draft text',
    createdAt: minutesAgo(70),
  });
  ids.failed = await insertMessage(ctx.ownerDb, {
    companyId,
    status: 'failed',
    content: 'Failed send',
    createdAt: minutesAgo(60),
    serviceIds: [service.id],
  });
  ids.inbound = await insertMessage(ctx.ownerDb, {
    companyId,
    direction: 'inbound',
    status: 'received',
    content: 'STOP please',
    msisdn: '+254711222333',
    createdAt: minutesAgo(50),
  });
  ids.delivered = await insertMessage(ctx.ownerDb, {
    companyId,
    status: 'delivered',
    content: 'Match day: KICK-OFF at 8',
    serviceIds: [service.id, second.id],
    recipientCount: 3,
    queueJobId: 'job-delivered',
    createdAt: minutesAgo(40),
    sentAt: minutesAgo(39),
  });
  ids.promo = await insertMessage(ctx.ownerDb, {
    companyId,
    status: 'sent',
    content: '50% off_today',
    serviceIds: [service.id],
    recipientCount: 2,
    createdAt: minutesAgo(30),
    sentAt: minutesAgo(30),
  });
  ids.queued = await insertMessage(ctx.ownerDb, {
    companyId,
    status: 'queued',
    content: 'Going out now',
    serviceIds: [service.id],
    queueJobId: 'job-queued',
    createdAt: minutesAgo(20),
  });
  const tomorrow = new Date(Date.now() + 86_400_000);
  ids.scheduled = await insertMessage(ctx.ownerDb, {
    companyId,
    status: 'scheduled',
    content: 'Tomorrow’s news',
    serviceIds: [service.id],
    scheduledAt: tomorrow,
    createdAt: minutesAgo(10),
  });
  scheduledJobId = await enqueueSend(
    ctx.ownerDb,
    ctx.deps.messaging.queue,
    companyId,
    ids.scheduled,
    tomorrow,
  );
  // No worker runs here: a send queued for now waits for one.
  third = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  ids.waiting = await insertMessage(ctx.ownerDb, { companyId: third.company.id, status: 'queued' });
  waitingJobId = await enqueueSend(
    ctx.ownerDb,
    ctx.deps.messaging.queue,
    third.company.id,
    ids.waiting,
    null,
  );
  otherMessageId = await insertMessage(ctx.ownerDb, {
    companyId: other.company.id,
    content: 'Match day elsewhere',
  });

  await recordSend(ctx.ownerDb, { id: ids.delivered, companyId }, 'done', [
    { phone: '+254700000001', status: 'delivered', gatewayMessageId: 'sim-1', deliveredAt: minutesAgo(38) },
    { phone: '+254700000002', status: 'failed', errorMessage: 'UserInBlackList' },
    { phone: '+254700000003', status: 'delivered', gatewayMessageId: 'sim-3', deliveredAt: minutesAgo(38) },
  ]);
  await recordSend(ctx.ownerDb, { id: ids.queued, companyId }, 'dispatch', [
    { phone: '+254700000001', status: 'submitted', gatewayMessageId: 'sim-9' },
    { phone: '+254700000002', status: 'pending' },
    { phone: '+254700000003', status: 'pending' },
    { phone: '+254700000004', status: 'pending' },
  ]);
});
afterAll(() => ctx.close());

const get = (url: string, role: TRole, who = tenant) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers: bearer(who.staff[role].token) });
const listIds = async (query: string, role: TRole = 'company_admin', who = tenant) => {
  const response = await get(`/messages${query}`, role, who);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().data.messages as { id: number }[]).map((message) => message.id);
};

describe('GET /messages', () => {
  it('lists the company’s messages newest first with the spec’s fields, and counts the chips', async () => {
    const response = await get('/messages', 'company_admin');
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data.messages.map((message: { id: number }) => message.id)).toEqual([
      ids.scheduled,
      ids.queued,
      ids.promo,
      ids.delivered,
      ids.inbound,
      ids.failed,
      ids.draft,
    ]);
    expect(data.messages[3]).toMatchObject({
      id: ids.delivered,
      content: 'Match day: KICK-OFF at 8',
      message: 'Match day: KICK-OFF at 8',
      direction: 'outbound',
      status: 'delivered',
      recipient_count: 3,
      queue_job_id: 'job-delivered',
      service: { name: serviceName },
      companyId: tenant.company.id,
      company: { name: tenant.company.name },
      encoding: 'GSM-7',
      parts: 1,
    });
    expect(data.messages[3].serviceIds).toHaveLength(2);
    expect(data.messages[4]).toMatchObject({ direction: 'inbound', msisdn: '+254711222333', service: null });
    expect(data).toMatchObject({ currentPage: 1, totalPages: 1, totalItems: 7, totalIsExact: true });
    expect(data.counts).toEqual({
      scheduled: { total: 1, exact: true },
      pending: { total: 2, exact: true },
      sent: { total: 2, exact: true },
      all: { total: 7, exact: true },
    });
  });

  it('filters by chip, status and direction, alone and together', async () => {
    expect(await listIds('?chip=scheduled')).toEqual([ids.scheduled]);
    expect(await listIds('?chip=pending')).toEqual([ids.queued, ids.draft]);
    expect(await listIds('?chip=sent')).toEqual([ids.promo, ids.delivered]);
    expect(await listIds('?status=failed')).toEqual([ids.failed]);
    expect(await listIds('?status=queued&chip=pending')).toEqual([ids.queued]);
    expect(await listIds('?status=failed&chip=sent')).toEqual([]);
    expect(await listIds('?direction=inbound')).toEqual([ids.inbound]);
    expect(await listIds('?direction=outbound&chip=sent')).toEqual([ids.promo, ids.delivered]);
    expect(await listIds('?direction=&status=&chip=all')).toHaveLength(7);
    // Each filtered list's total is exact and its own, whatever the chips say.
    const totalOf = async (query: string) => (await get(`/messages${query}`, 'company_admin')).json().data;
    expect(await totalOf('?direction=outbound')).toMatchObject({ totalItems: 6, totalIsExact: true });
    expect(await totalOf('?direction=inbound')).toMatchObject({ totalItems: 1, totalIsExact: true });
    expect(await totalOf('?chip=pending&direction=outbound')).toMatchObject({ totalItems: 2 });
    expect(await totalOf('?status=failed&chip=sent')).toMatchObject({ totalItems: 0, totalPages: 1 });
  });

  it('searches content and msisdn ignoring case, with % and _ taken literally', async () => {
    expect(await listIds('?search=kick-off')).toEqual([ids.delivered]);
    expect(await listIds('?search=MATCH%20DAY')).toEqual([ids.delivered]);
    expect(await listIds('?search=711222')).toEqual([ids.inbound]);
    expect(await listIds('?search=50%25')).toEqual([ids.promo]);
    expect(await listIds('?search=off_today')).toEqual([ids.promo]);
    expect(await listIds('?search=f%25')).toEqual([]);
    expect(await listIds('?search=_')).toEqual([ids.promo]);
    const response = await get('/messages?search=match&direction=outbound', 'company_admin');
    const data = response.json().data;
    expect(data.totalItems).toBe(1);
    // The chips count the company's messages, whatever the search.
    expect(data.counts.all.total).toBe(7);
  });

  it('pages with limit, and refuses unknown filters with a clear 400', async () => {
    const second = (await get('/messages?limit=3&page=2', 'company_admin')).json().data;
    expect(second).toMatchObject({ currentPage: 2, totalPages: 3, totalItems: 7 });
    expect(second.messages.map((message: { id: number }) => message.id)).toEqual([
      ids.delivered,
      ids.inbound,
      ids.failed,
    ]);
    expect(await listIds('?limit=3&page=3')).toEqual([ids.draft]);
    const bad = await get('/messages?status=lost', 'company_admin');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('status must be one of');
    expect((await get('/messages?chip=old', 'company_admin')).statusCode).toBe(400);
    expect((await get('/messages?limit=1000', 'company_admin')).statusCode).toBe(400);
  });

  it('refuses a page or a limit that is not a whole number in range, saying which and what is allowed', async () => {
    for (const [query, message] of [
      ['page=abc', PAGINATION_MESSAGES.page],
      ['page=0', PAGINATION_MESSAGES.page],
      ['page=1.5', PAGINATION_MESSAGES.page],
      ['page=10001', PAGINATION_MESSAGES.page],
      ['limit=abc', PAGINATION_MESSAGES.limit],
      ['limit=101', PAGINATION_MESSAGES.limit],
      ['limit=-3', PAGINATION_MESSAGES.limit],
    ]) {
      const refused = await get(`/messages?${query}`, 'company_admin');
      expect(refused.statusCode, query).toBe(400);
      expect(refused.json().message, query).toBe(message);
      expect(refused.json().details, query).toEqual([message]);
    }
    expect((await get('/messages?page=2&limit=100', 'company_admin')).statusCode).toBe(200);
  });

  it('lets company admins and content managers read, refuses viewers, and keeps companies apart', async () => {
    expect(await listIds('', 'content_manager')).toHaveLength(7);
    expect((await get('/messages', 'viewer')).statusCode).toBe(403);
    expect((await ctx.app.inject({ method: 'GET', url: '/api/v1/messages' })).statusCode).toBe(401);
    expect(await listIds('', 'company_admin', other)).toEqual([otherMessageId]);
    // A company user's companyId is ignored: they read their own company only.
    expect(await listIds(`?companyId=${tenant.company.id}`, 'company_admin', other)).toEqual([
      otherMessageId,
    ]);
  });

  it('shows a system admin every company, or one with companyId', async () => {
    const all = await listIds('?limit=100', 'system_admin');
    expect(all).toEqual(expect.arrayContaining([otherMessageId, ids.delivered, ids.inbound]));
    expect(await listIds(`?companyId=${other.company.id}`, 'system_admin')).toEqual([otherMessageId]);
    expect(await listIds(`?companyId=${tenant.company.id}&chip=scheduled`, 'system_admin')).toEqual([
      ids.scheduled,
    ]);
    expect(await listIds('?chip=scheduled&limit=100', 'system_admin')).toContain(ids.scheduled);
    const platform = (await get('/messages?chip=pending', 'system_admin')).json().data;
    expect(platform.counts.scheduled.total).toBeGreaterThanOrEqual(1);
    expect(platform.messages.map((message: { id: number }) => message.id)).toEqual(
      expect.arrayContaining([ids.queued, ids.draft]),
    );
  });
});

describe('counts past the search window', () => {
  it('counts chips and filtered totals exactly however many messages; a search counts to the next thousand past its page', async () => {
    const big = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    await insertManyMessages(ctx.ownerDb, big.company.id, MESSAGE_COUNT_CAP + 5, new Date());
    await insertMessage(ctx.ownerDb, { companyId: big.company.id, status: 'scheduled', content: 'later' });
    const data = (await get('/messages?limit=50', 'company_admin', big)).json().data;
    expect(data.counts).toEqual({
      scheduled: { total: 1, exact: true },
      pending: { total: 0, exact: true },
      sent: { total: MESSAGE_COUNT_CAP + 5, exact: true },
      all: { total: MESSAGE_COUNT_CAP + 6, exact: true },
    });
    expect(data).toMatchObject({ totalItems: MESSAGE_COUNT_CAP + 6, totalIsExact: true, totalPages: 201 });
    const sentOnly = (await get('/messages?status=sent&direction=outbound', 'company_admin', big)).json()
      .data;
    expect(sentOnly).toMatchObject({ totalItems: MESSAGE_COUNT_CAP + 5, totalIsExact: true });
    expect((await get('/messages?direction=inbound', 'company_admin', big)).json().data).toMatchObject({
      totalItems: 0,
      totalIsExact: true,
      messages: [],
    });
    // The last page of an exact total, and one past it.
    const last = (await get('/messages?limit=50&page=201', 'company_admin', big)).json().data;
    expect(last.messages).toHaveLength(6);
    expect((await get('/messages?limit=50&page=202', 'company_admin', big)).json().data.messages).toEqual([]);
    // A search's total stops at the next thousand past the page asked for (searchCountCap).
    const searched = (await get('/messages?search=bulk%201', 'company_admin', big)).json().data;
    expect(searched).toMatchObject({ totalItems: 1000, totalIsExact: false, totalPages: 50 });
    const further = (await get('/messages?search=bulk%201&page=50', 'company_admin', big)).json().data;
    expect(further).toMatchObject({ totalItems: 1117, totalIsExact: true, totalPages: 56 });
    expect(further.messages).toHaveLength(20);
    expect((await get('/messages?search=bulk', 'company_admin', big)).json().data).toMatchObject({
      totalItems: 1000,
      totalIsExact: false,
    });
    expect((await get('/messages?search=bulk&page=120', 'company_admin', big)).json().data).toMatchObject({
      totalItems: 3000,
      totalIsExact: false,
    });
    // Never past MESSAGE_COUNT_CAP: past it, a count narrowed further is a floor too.
    const deepest = (await get('/messages?search=bulk&limit=100&page=100', 'company_admin', big)).json();
    expect(deepest.data).toMatchObject({ totalItems: MESSAGE_COUNT_CAP, totalIsExact: false });
    const narrowed = (await get('/messages?search=bulk&status=failed', 'company_admin', big)).json().data;
    expect(narrowed).toMatchObject({ totalItems: 0, totalIsExact: false, messages: [] });
    const deep = (
      await get('/messages?search=bulk&status=sent&limit=100&page=100', 'company_admin', big)
    ).json().data;
    expect(deep.messages).toHaveLength(100);
    const everyone = await sql<{ status: string; n: number }>`
      select status, count(*)::int as n from messages group by status`.execute(ctx.ownerDb);
    const direct = (statuses: string[] | null) =>
      everyone.rows
        .filter((row) => statuses === null || statuses.includes(row.status))
        .reduce((sum, row) => sum + row.n, 0);
    const platform = (await get('/messages', 'system_admin', big)).json().data;
    expect(platform.counts).toEqual({
      scheduled: { total: direct(['scheduled']), exact: true },
      pending: { total: direct(['pending', 'queued', 'processing']), exact: true },
      sent: { total: direct(['sent', 'delivered']), exact: true },
      all: { total: direct(null), exact: true },
    });
    expect(platform).toMatchObject({ totalItems: direct(null), totalIsExact: true });
    const oneCompany = (await get(`/messages?companyId=${big.company.id}`, 'system_admin', big)).json().data;
    expect(oneCompany.counts.all).toEqual({ total: MESSAGE_COUNT_CAP + 6, exact: true });
  });
});

describe('GET /messages/{id}/details, /delivery-reports and /job-status', () => {
  it('gives the message, its completed job, the summary from the counters and its recipients', async () => {
    const response = await get(`/messages/${ids.delivered}/details`, 'content_manager');
    expect(response.statusCode).toBe(200);
    const data = response.json().data;
    expect(data.message).toMatchObject({
      id: ids.delivered,
      status: 'delivered',
      queue_job_id: 'job-delivered',
    });
    expect(data.jobStatus).toMatchObject({
      id: 'job-delivered',
      status: 'completed',
      progress: 100,
      attempts: 1,
    });
    expect(data.jobStatus.processedOn).not.toBeNull();
    expect(data.jobStatus.finishedOn).not.toBeNull();
    expect(data.summary).toEqual({ total: 3, pending: 0, sent: 0, delivered: 2, failed: 1 });
    expect(data).toMatchObject({ currentPage: 1, totalPages: 1, totalItems: 3 });
    expect(data.deliveryReports).toHaveLength(3);
    expect(data.deliveryReports[1]).toMatchObject({
      recipient_phone: '+254700000002',
      status: 'failed',
      gateway_message_id: null,
      delivered_at: null,
      error_message: 'UserInBlackList',
    });
    expect(data.deliveryReports[0]).toMatchObject({ gateway_message_id: 'sim-1', status: 'delivered' });
  });

  it('pages the recipients and filters them by status, with totals from the counters', async () => {
    const page = (
      await get(`/messages/${ids.queued}/delivery-reports?limit=2&page=2`, 'company_admin')
    ).json().data;
    expect(page).toMatchObject({ currentPage: 2, totalPages: 2, totalItems: 4 });
    expect(page.deliveryReports.map((report: { recipient_phone: string }) => report.recipient_phone)).toEqual(
      ['+254700000003', '+254700000004'],
    );
    const pending = (
      await get(`/messages/${ids.queued}/delivery-reports?status=pending`, 'company_admin')
    ).json().data;
    expect(pending.totalItems).toBe(3);
    expect(pending.deliveryReports.every((report: { status: string }) => report.status === 'pending')).toBe(
      true,
    );
    const details = (await get(`/messages/${ids.queued}/details?limit=1`, 'company_admin')).json().data;
    expect(details).toMatchObject({ totalPages: 4, totalItems: 4 });
    expect(details.deliveryReports).toHaveLength(1);
    expect(
      (await get(`/messages/${ids.queued}/delivery-reports?status=lost`, 'company_admin')).statusCode,
    ).toBe(400);
  });

  it('reports the job in the spec’s state names: active with progress, delayed when scheduled, none for a direct message', async () => {
    const active = (await get(`/messages/${ids.queued}/job-status`, 'company_admin')).json().data.jobStatus;
    expect(active).toMatchObject({ id: 'job-queued', status: 'active', progress: 25, finishedOn: null });
    const delayed = (await get(`/messages/${ids.scheduled}/job-status`, 'company_admin')).json().data
      .jobStatus;
    expect(delayed).toMatchObject({ id: scheduledJobId, status: 'delayed', progress: 0, attempts: 0 });
    const waiting = (await get(`/messages/${ids.waiting}/job-status`, 'company_admin', third)).json().data
      .jobStatus;
    expect(waiting).toMatchObject({ id: waitingJobId, status: 'waiting', progress: 0, processedOn: null });
    // The queue's word, not the message's: a first attempt failed and the retry waits out its backoff.
    await sql`update pgboss.job set state = 'retry', retry_count = 0, started_on = now(),
                     start_after = now() + interval '1 minute' where id = ${waitingJobId}`.execute(
      ctx.ownerDb,
    );
    const retrying = (await get(`/messages/${ids.waiting}/job-status`, 'company_admin', third)).json().data
      .jobStatus;
    expect(retrying).toMatchObject({ status: 'delayed', attempts: 1 });
    expect(retrying.processedOn).not.toBeNull();
    const none = await get(`/messages/${ids.draft}/job-status`, 'company_admin');
    expect(none.statusCode).toBe(200);
    expect(none.json().data).toEqual({ jobStatus: null });
    const scheduled = (await get(`/messages/${ids.scheduled}/details`, 'company_admin')).json().data;
    expect(scheduled).toMatchObject({ deliveryReports: [], totalItems: 0, totalPages: 1 });
  });

  it('answers 404 for another company’s message and 403 for a viewer', async () => {
    for (const path of ['details', 'delivery-reports', 'job-status']) {
      const response = await get(`/messages/${otherMessageId}/${path}`, 'company_admin');
      expect(response.statusCode, path).toBe(404);
      expect(response.json().message).toBe('Message not found');
      expect((await get(`/messages/${ids.delivered}/${path}`, 'viewer')).statusCode).toBe(403);
    }
    expect((await get(`/messages/${otherMessageId}/details`, 'system_admin')).statusCode).toBe(200);
    expect((await get('/messages/999999999/details', 'system_admin')).statusCode).toBe(404);
    expect((await get('/messages/abc/details', 'system_admin')).statusCode).toBe(400);
  });

  it('reads a message with its state through row-level security, whichever company is asked for', async () => {
    // The message's statement runs under row-level security: bound to one company, another's
    // message is not there even when asked for by that company or by no company.
    const asking = (bound: number, companyId: number | null) =>
      inTenantTransaction(ctx.db, companyScope(bound), (trx) =>
        findMessageWithState(trx, otherMessageId, companyId),
      );
    expect(await asking(tenant.company.id, null)).toBeUndefined();
    expect(await asking(tenant.company.id, other.company.id)).toBeUndefined();
    const own = await asking(other.company.id, null);
    expect(own?.message).toMatchObject({ id: otherMessageId, company_id: other.company.id });
    expect(own?.counts).toEqual({
      pending: 0,
      submitted: 0,
      sent: 0,
      delivered: 0,
      failed: 0,
      rejected: 0,
      expired: 0,
    });
  });
});

describe('deep pages of a large send’s recipients', () => {
  const RECIPIENTS = 2_500;
  const phoneOf = (n: number) => `+2547${String(n).padStart(8, '0')}`;
  let largeId: number;
  beforeAll(async () => {
    largeId = await insertMessage(ctx.ownerDb, { companyId: tenant.company.id, status: 'delivered' });
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => ({
      phone: phoneOf(i + 1),
      status: (i % 10 === 9 ? 'failed' : 'delivered') as 'failed' | 'delivered',
      gatewayMessageId: i % 3 === 0 ? null : `GW-${i}`,
      deliveredAt: i % 10 === 9 ? null : new Date(Date.UTC(2026, 0, 1) + i * 1_001.7),
      errorMessage: i % 10 === 9 ? `Failed ${i}` : null,
    }));
    await recordSend(ctx.ownerDb, { id: largeId, companyId: tenant.company.id }, 'done', recipients);
  });
  const phones = async (query: string) => {
    const response = await get(`/messages/${largeId}/details${query}`, 'company_admin');
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().data.deliveryReports as { recipient_phone: string }[]).map(
      (r) => r.recipient_phone,
    );
  };
  const expected = (from: number, count: number, step = 1) =>
    Array.from({ length: count }, (_, i) => phoneOf(from + i * step));

  it('reads any page in the order the recipients were resolved, however deep', async () => {
    expect(await phones('?limit=100&page=1')).toEqual(expected(1, 100));
    expect(await phones('?limit=100&page=11')).toEqual(expected(1001, 100));
    expect(await phones('?limit=100&page=13')).toEqual(expected(1201, 100));
    expect(await phones('?limit=7&page=300')).toEqual(expected(2094, 7));
    expect(await phones('?limit=100&page=25')).toEqual(expected(2401, 100));
    expect(await phones('?limit=100&page=26')).toEqual([]);
    // A second read of the same send starts from what the first one remembered.
    expect(await phones('?limit=100&page=13')).toEqual(expected(1201, 100));
  });

  it('shows every field of a deep page’s recipients as the table holds them, read again from its anchors', async () => {
    const { rows } =
      await sql<DeliveryReportRow>`select id, recipient_phone, status, gateway_message_id, delivered_at, error_message, attempts, updated_at
         from delivery_reports where company_id = ${tenant.company.id} and message_id = ${largeId}
        order by id offset 1_900 limit 50`.execute(ctx.ownerDb);
    const expectedReports = rows.map((row) => ({
      id: Number(row.id),
      recipient_phone: row.recipient_phone,
      status: row.status,
      gateway_message_id: row.gateway_message_id,
      delivered_at: row.delivered_at?.toISOString() ?? null,
      error_message: row.error_message,
      attempts: row.attempts,
      updatedAt: row.updated_at.toISOString(),
    }));
    const details = async () => {
      const response = await get(`/messages/${largeId}/details?limit=50&page=39`, 'company_admin');
      expect(response.statusCode, response.body).toBe(200);
      return response.json().data;
    };
    const first = await details();
    expect(first.deliveryReports).toEqual(expectedReports);
    expect(first).toMatchObject({ currentPage: 39, totalPages: 50, totalItems: RECIPIENTS });
    expect(first.summary).toMatchObject({ total: RECIPIENTS, failed: RECIPIENTS / 10 });
    expect(first.message).toMatchObject({ id: largeId, status: 'delivered', companyId: tenant.company.id });
    expect(first.jobStatus).toMatchObject({ status: 'completed', progress: 100 });
    expect(await details()).toEqual(first);
  });

  it('starts a page from a remembered id only for the send it was read for, fanned out, without a status', async () => {
    const { rows } = await sql<{ id: number; created_at: Date }>`
      select id, created_at from delivery_reports where company_id = ${tenant.company.id} and message_id = ${largeId}
       order by id offset 1_200 limit 1`.execute(ctx.ownerDb);
    const [{ id: anchorId, created_at: recipientsAt }] = rows;
    const page = (status: string | null, start: { recipientsAt: Date; anchorId: number; skip: number }) =>
      inTenantTransaction(ctx.db, companyScope(tenant.company.id), async (trx) => {
        const found = await readMessageDetails(trx, largeId, tenant.company.id, status, 100, 5, start);
        return found?.reports.map((report) => report.recipient_phone);
      });
    // The start is taken as given (an id 1,200 rows in, two more skipped): the page it names.
    expect(await page(null, { recipientsAt, anchorId, skip: 2 })).toEqual(expected(1203, 5));
    // Another fan-out time, or a status: the page walks its offset from the top.
    const otherTime = new Date(recipientsAt.getTime() + 1);
    expect(await page(null, { recipientsAt: otherTime, anchorId, skip: 2 })).toEqual(expected(101, 5));
    expect(await page('failed', { recipientsAt, anchorId, skip: 2 })).toEqual(expected(1010, 5, 10));
  });

  it('pages one status deep as well', async () => {
    expect(await phones('?status=failed&limit=10&page=12')).toEqual(expected(1110, 10, 10));
  });
});

describe('a list without a search in one call (migration 0030)', () => {
  const STATUSES = ['pending', 'queued', 'scheduled', 'sent', 'delivered', 'failed'];
  let mixed: Awaited<ReturnType<typeof createTenantWithStaff>>;
  beforeAll(async () => {
    mixed = await createTenantWithStaff(ctx.app, ctx.ownerDb);
    // Statuses and directions interleaved, some at the same instant (then the newer id first).
    await sql`
      insert into messages (company_id, direction, content, msisdn, status, created_at, updated_at)
      select ${mixed.company.id}, case when g % 5 = 0 then 'inbound' else 'outbound' end, 'Mixed ' || g,
             case when g % 5 = 0 then '+254700000000' end,
             case when g % 5 = 0 then 'received' else (${STATUSES}::text[])[1 + (g * 7) % 6] end,
             now() - (g / 3) * interval '1 second', now()
        from generate_series(1, 90) g`.execute(ctx.ownerDb);
  });

  /** The same filter read directly as the owner, newest first. */
  const direct = async (companyId: number | null, direction: string | null, statuses: string[] | null) => {
    const { rows } = await sql<{ id: number }>`
      select id from messages
       where (${companyId}::bigint is null or company_id = ${companyId})
         and (${direction}::text is null or direction = ${direction})
         and (${statuses}::text[] is null or status = any(${statuses}))
       order by created_at desc, id desc`.execute(ctx.ownerDb);
    return rows.map((row) => row.id);
  };

  it('pages every filter newest first, as a direct read does, for a company and across companies', async () => {
    const filters: [string | undefined, string[] | null][] = [
      [undefined, null],
      [undefined, ['pending', 'queued', 'processing']],
      [undefined, ['sent', 'delivered']],
      ['outbound', null],
      ['outbound', ['failed']],
      ['inbound', null],
      ['inbound', ['sent']],
    ];
    for (const scope of [mixed.company.id, null]) {
      for (const [direction, statuses] of filters) {
        const expected = await direct(
          scope,
          direction ?? null,
          direction === 'inbound' && !statuses ? ['received'] : statuses,
        );
        const filter: MessageFilter = { companyId: scope, direction, statuses };
        const limit = 7;
        // Every page of a company's filter, the first pages across companies.
        const pages = scope === null ? 3 : Math.ceil(expected.length / limit) + 1;
        for (let page = 0; page < pages; page++) {
          const { rows } = await inTenantTransaction(
            ctx.db,
            scope === null ? platformScope : companyScope(scope),
            (trx) => listMessagesWithCounts(trx, filter, page * limit, limit),
          );
          expect(
            rows.map((row) => row.id),
            `${scope} ${direction} ${statuses} page ${page}`,
          ).toEqual(expected.slice(page * limit, (page + 1) * limit));
        }
      }
    }
  });

  it('reads through row-level security: bound to one company, another’s list is empty', async () => {
    const asking = (companyId: number | null) =>
      inTenantTransaction(ctx.db, companyScope(tenant.company.id), (trx) =>
        listMessagesWithCounts(trx, { companyId, statuses: null }, 0, 50),
      );
    expect(await asking(mixed.company.id)).toEqual({ byStatus: [], rows: [] });
    // A search's matches too (joined to messages under row-level security).
    const searching = (companyId: number | null) =>
      inTenantTransaction(ctx.db, companyScope(tenant.company.id), (trx) =>
        searchMessagesWithCounts(trx, { companyId, statuses: null, search: 'mixed' }, 0, 50, 1000),
      );
    expect(await searching(mixed.company.id)).toEqual({
      byStatus: [],
      searched: { total: 0, exact: true },
      rows: [],
    });
    expect((await searching(null)).rows).toEqual([]);
    const everyone = await asking(null);
    expect(new Set(everyone.rows.map((row) => row.company_id))).toEqual(new Set([tenant.company.id]));
    // Its own company's counters only: their sum is its page of 50 (it has fewer).
    expect(everyone.rows.length).toBeGreaterThan(0);
    expect(everyone.byStatus.reduce((sum, count) => sum + count.messages, 0)).toBe(everyone.rows.length);
  });
});
