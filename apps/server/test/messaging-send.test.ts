import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEND_START_JOB } from '../src/messaging/queue/jobs.ts';
import { startSend } from '../src/messaging/send-jobs.ts';
import {
  createSendingCompany,
  messageRow,
  numbers,
  signInSystemAdmin,
  subscribe,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/** The API side only: no worker runs here, so queued and scheduled jobs stay in the queue to be inspected. */
let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createSendingCompany>>;
let news: { id: number; company_id: number; name: string };
let sports: { id: number; company_id: number; name: string };

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createSendingCompany(ctx);
  news = await tenant.service({ name: 'News' });
  sports = await tenant.service({ name: 'Sports' });
  await subscribe(ctx.ownerDb, news, numbers(20, 0, 6));
  await subscribe(ctx.ownerDb, sports, numbers(20, 4, 4));
});
afterAll(async () => ctx?.close());

type Headers = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Headers, payload?: object) =>
  ctx.app.inject({ method, url: `/api/v1${url}`, headers, payload });
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
const job = (id: string) => ctx.deps.messaging.queue.find(SEND_START_JOB, id);
const usage = async (companyId: number) =>
  Number(
    (
      await sql<{
        used: number;
      }>`select coalesce(sum(messages_used), 0)::int as used from company_monthly_usage
                                   where company_id = ${companyId}`.execute(ctx.ownerDb)
    ).rows[0].used,
  );
const messagesOf = async (companyId: number) =>
  ctx.ownerDb.selectFrom('messages').select(['id', 'status']).where('company_id', '=', companyId).execute();

describe('hand-over progress on the list and the details', () => {
  it('shows a send in progress as handed over X of Y, and nothing once it is no longer in progress', async () => {
    const company = await createSendingCompany(ctx);
    const service = await company.service();
    await subscribe(ctx.ownerDb, service, numbers(30, 100, 8));
    const sent = await call('POST', '/messages/bulk/send', company.admin, {
      serviceIds: [service.id],
      message: 'Progress',
      scheduleType: 'now',
    });
    const message = sent.json().data.message;
    const rowOf = async () =>
      (await call('GET', '/messages', company.admin))
        .json()
        .data.messages.find((row: { id: number }) => row.id === message.id);
    // Queued: nothing handed over yet, of the recipients counted when it was requested.
    expect((await rowOf()).handover).toEqual({ handedOver: 0, recipients: 8 });

    // Started, with 5 of its 8 recipients handed to the provider (as the counters keep them).
    expect(
      await startSend(
        ctx.deps.db,
        ctx.deps.messaging.queue,
        company.company.id,
        message.id,
        message.queue_job_id,
      ),
    ).toBe(true);
    await ctx.ownerDb
      .insertInto('message_delivery_counts')
      .values({
        company_id: company.company.id,
        message_id: message.id,
        shard: 0,
        pending: 3,
        submitted: 2,
        delivered: 3,
      })
      .execute();
    expect(await rowOf()).toMatchObject({ status: 'processing', handover: { handedOver: 5, recipients: 8 } });
    const details = await call('GET', `/messages/${message.id}/details`, company.admin);
    expect(details.json().data.message.handover).toEqual({ handedOver: 5, recipients: 8 });

    await ctx.ownerDb.updateTable('messages').set({ status: 'sent' }).where('id', '=', message.id).execute();
    expect((await rowOf()).handover).toBeNull();
  });
});

describe('POST /messages/bulk/send', () => {
  it('writes the message and its queue job together and answers with the message and its recipient count', async () => {
    const response = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [news.id, sports.id],
      message: 'Morning headlines',
      scheduleType: 'now',
    });
    expect(response.statusCode, response.body).toBe(201);
    const { message, recipientCount } = response.json().data;
    // 6 on news, 4 on sports of which 2 also on news.
    expect(recipientCount).toBe(8);
    expect(message).toMatchObject({
      status: 'queued',
      direction: 'outbound',
      content: 'Morning headlines',
      serviceIds: [news.id, sports.id],
      recipient_count: 8,
      encoding: 'GSM-7',
      parts: 1,
      companyId: tenant.company.id,
    });
    const queued = await job(message.queue_job_id);
    expect(queued?.data).toEqual({ companyId: tenant.company.id, messageId: message.id });
    expect(queued?.state).toBe('created');
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .selectAll()
      .where('entity', '=', 'MESSAGE')
      .where('entity_id', '=', String(message.id))
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'CREATE', company_id: tenant.company.id });
  });

  it('refuses viewers and content managers, with the spec’s words for the latter', async () => {
    const body = { serviceIds: [news.id], message: 'Hi', scheduleType: 'now' };
    expect((await call('POST', '/messages/bulk/send', tenant.viewer, body)).statusCode).toBe(403);
    const editor = await call('POST', '/messages/bulk/send', tenant.editor, body);
    expect(editor.statusCode).toBe(403);
    expect(editor.json().message).toBe(MESSAGE_MESSAGES.contentManagerSend);
    expect((await call('POST', '/messages', tenant.editor, body)).statusCode).toBe(403);
  });

  it('validates as the send form does, with its messages', async () => {
    const cases: [object, string][] = [
      [{ serviceIds: [], message: 'Hi' }, MESSAGE_MESSAGES.servicesRequired],
      [{ serviceIds: [news.id], message: '   ' }, MESSAGE_MESSAGES.contentRequiredOnSubmit],
      [{ serviceIds: [news.id], message: 'x'.repeat(161) }, MESSAGE_MESSAGES.contentTooLong],
      [{ serviceIds: [news.id], message: 'Hi', scheduleType: 'scheduled' }, MESSAGE_MESSAGES.dateRequired],
      [
        {
          serviceIds: [news.id],
          message: 'Hi',
          scheduleType: 'scheduled',
          scheduledAt: new Date(Date.now() - 1000).toISOString(),
        },
        MESSAGE_MESSAGES.scheduleInPast,
      ],
      [{ serviceIds: ['1'], message: 'Hi' }, 'Service ids must be integers'],
    ];
    for (const [body, text] of cases) {
      const response = await call('POST', '/messages/bulk/send', tenant.admin, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.body).toContain(text);
    }
  });

  it('refuses another company’s service (not found), inactive services, and services of two companies', async () => {
    const other = await createSendingCompany(ctx);
    const theirs = await other.service();
    await subscribe(ctx.ownerDb, theirs, numbers(21, 0, 2));
    const foreign = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [theirs.id],
      message: 'Hi',
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe(MESSAGE_MESSAGES.serviceNotFound);

    const paused = await tenant.service({ name: 'Paused', status: 'maintenance' });
    const inactive = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [news.id, paused.id],
      message: 'Hi',
    });
    expect(inactive.statusCode).toBe(400);
    expect(inactive.json().message).toBe(MESSAGE_MESSAGES.serviceInactive('Paused'));

    const admin = await signInSystemAdmin(ctx);
    const mixed = await call('POST', '/messages/bulk/send', admin, {
      serviceIds: [news.id, theirs.id],
      message: 'Hi',
    });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().message).toBe(MESSAGE_MESSAGES.servicesOfOneCompany);
    // A system admin sends for any company: the message belongs to the services' company.
    const platform = await call('POST', '/messages/bulk/send', admin, {
      serviceIds: [theirs.id],
      message: 'Hi',
    });
    expect(platform.statusCode, platform.body).toBe(201);
    expect(platform.json().data.message.companyId).toBe(other.company.id);
  });

  it('refuses a send to nobody', async () => {
    const empty = await tenant.service({ name: 'Empty' });
    const response = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [empty.id],
      message: 'Hi',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(MESSAGE_MESSAGES.noRecipients);
  });
});

describe('the monthly message limit', () => {
  it('counts recipients x parts this month and refuses a send that would pass it before anything is queued', async () => {
    const small = await createSendingCompany(ctx, { messagesLimit: 20 });
    const service = await small.service();
    await subscribe(ctx.ownerDb, service, numbers(22, 0, 8));
    const first = await call('POST', '/messages/bulk/send', small.admin, {
      serviceIds: [service.id],
      message: 'One',
    });
    expect(first.statusCode).toBe(201);
    expect(await usage(small.company.id)).toBe(8);
    // 161-character texts are not allowed, but a Unicode text of 71+ characters takes two parts.
    const twoParts = `${'é'.repeat(40)}${'ß'.repeat(40)}✓`;
    const refused = await call('POST', '/messages/bulk/send', small.admin, {
      serviceIds: [service.id],
      message: twoParts,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toBe(MESSAGE_MESSAGES.monthlyLimitReached(20, 8, 16));
    expect(await messagesOf(small.company.id)).toHaveLength(1);
    expect(await usage(small.company.id)).toBe(8);
    const fits = await call('POST', '/messages/bulk/send', small.admin, {
      serviceIds: [service.id],
      message: 'Two',
    });
    expect(fits.statusCode).toBe(201);
    expect(await usage(small.company.id)).toBe(16);
  });
});

describe('Idempotency-Key', () => {
  it('gives a retried send the first answer and creates one message', async () => {
    const company = await createSendingCompany(ctx);
    const service = await company.service();
    await subscribe(ctx.ownerDb, service, numbers(23, 0, 3));
    const headers = { ...company.admin, 'idempotency-key': 'send-123' };
    const body = { serviceIds: [service.id], message: 'Once only' };
    const first = await call('POST', '/messages/bulk/send', headers, body);
    const retry = await call('POST', '/messages/bulk/send', headers, body);
    expect(first.statusCode).toBe(201);
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual(first.json());
    expect(await messagesOf(company.company.id)).toHaveLength(1);

    const reused = await call('POST', '/messages/bulk/send', headers, { ...body, message: 'Something else' });
    expect(reused.statusCode).toBe(409);
    expect(reused.json().message).toBe(MESSAGE_MESSAGES.idempotencyKeyReused);
    expect(await messagesOf(company.company.id)).toHaveLength(1);
  });

  it('holds for a double click: two concurrent requests, one message, the same answer', async () => {
    const company = await createSendingCompany(ctx);
    const service = await company.service();
    await subscribe(ctx.ownerDb, service, numbers(24, 0, 3));
    const headers = { ...company.admin, 'idempotency-key': 'double-click' };
    const body = { serviceIds: [service.id], message: 'Clicked twice' };
    const [a, b] = await Promise.all([
      call('POST', '/messages/bulk/send', headers, body),
      call('POST', '/messages/bulk/send', headers, body),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json()).toEqual(b.json());
    expect(await messagesOf(company.company.id)).toHaveLength(1);
    expect(await usage(company.company.id)).toBe(3);
  });

  it('refuses a malformed key', async () => {
    const response = await call(
      'POST',
      '/messages/bulk/send',
      { ...tenant.admin, 'idempotency-key': 'x'.repeat(300) },
      { serviceIds: [news.id], message: 'Hi' },
    );
    expect(response.statusCode).toBe(400);
  });
});

describe('drafts, edits, send and cancel', () => {
  it('saves a draft without queuing it, edits it, then sends it once', async () => {
    const created = await call('POST', '/messages', tenant.admin, {
      serviceIds: [news.id],
      message: 'Draft',
    });
    expect(created.statusCode, created.body).toBe(201);
    const draft = created.json().data.message;
    expect(draft).toMatchObject({ status: 'pending', queue_job_id: null });

    const edited = await call('PUT', `/messages/${draft.id}`, tenant.admin, {
      serviceIds: [news.id, sports.id],
      message: 'Draft, edited',
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data).toMatchObject({
      recipientCount: 8,
      message: { content: 'Draft, edited', status: 'pending' },
    });

    const sent = await call('POST', `/messages/${draft.id}/send`, tenant.admin);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().data.message.status).toBe('queued');
    expect((await job(sent.json().data.message.queue_job_id))?.state).toBe('created');
    const again = await call('POST', `/messages/${draft.id}/send`, tenant.admin);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(MESSAGE_MESSAGES.notSendable);
    const late = await call('PUT', `/messages/${draft.id}`, tenant.admin, {
      serviceIds: [news.id],
      message: 'Too late',
    });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toBe(MESSAGE_MESSAGES.notEditable);
  });

  it('schedules with the job starting at the time, moves it, and cancels it (job removed, reservation given back)', async () => {
    const company = await createSendingCompany(ctx);
    const service = await company.service();
    await subscribe(ctx.ownerDb, service, numbers(25, 0, 5));
    const at = inAnHour();
    const scheduled = await call('POST', '/messages/bulk/send', company.admin, {
      serviceIds: [service.id],
      message: 'Later',
      scheduleType: 'scheduled',
      scheduledAt: at,
    });
    expect(scheduled.statusCode, scheduled.body).toBe(201);
    const message = scheduled.json().data.message;
    expect(message).toMatchObject({ status: 'scheduled', scheduledAt: at });
    const firstJob = await job(message.queue_job_id);
    expect(firstJob?.startAfter.toISOString()).toBe(at);
    expect(await usage(company.company.id)).toBe(5);

    const later = new Date(Date.now() + 7200_000).toISOString();
    const moved = await call('PUT', `/messages/${message.id}`, company.admin, {
      serviceIds: [service.id],
      message: 'Later still',
      scheduleType: 'scheduled',
      scheduledAt: later,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const movedMessage = moved.json().data.message;
    expect(movedMessage).toMatchObject({ status: 'scheduled', scheduledAt: later, content: 'Later still' });
    expect(movedMessage.queue_job_id).not.toBe(message.queue_job_id);
    expect(await job(message.queue_job_id)).toBeNull();
    expect((await job(movedMessage.queue_job_id))?.startAfter.toISOString()).toBe(later);
    expect(await usage(company.company.id)).toBe(5);

    const cancelled = await call('DELETE', `/messages/${message.id}`, company.admin);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().data).toEqual({ id: message.id, deleted: false, cancelled: true });
    expect(await job(movedMessage.queue_job_id)).toBeNull();
    // Kept, not deleted: cancelled, with who and when.
    const kept = await messageRow(ctx.ownerDb, message.id);
    expect(kept).toMatchObject({ status: 'cancelled', cancelled_by: company.adminId });
    expect(kept?.cancelled_by_name).toBeTruthy();
    expect(kept?.cancelled_at).toBeInstanceOf(Date);
    expect(await usage(company.company.id)).toBe(0);

    // The list (All Messages and the Cancelled filter) and the details show it, with who and when.
    const cancelledView = { at: kept?.cancelled_at?.toISOString(), by: kept?.cancelled_by_name };
    const all = await call('GET', '/messages?chip=all', company.admin);
    expect(all.json().data.messages.find((row: { id: number }) => row.id === message.id)).toMatchObject({
      status: 'cancelled',
      cancelled: cancelledView,
    });
    expect(all.json().data.counts.all.total).toBe(1);
    const filtered = await call('GET', '/messages?status=cancelled', company.admin);
    expect(filtered.json().data.messages.map((row: { id: number }) => row.id)).toEqual([message.id]);
    const details = await call('GET', `/messages/${message.id}/details`, company.admin);
    expect(details.json().data.message).toMatchObject({ status: 'cancelled', cancelled: cancelledView });

    // A cancelled send never starts, even if its old job ran after all; nor is it cancelled twice.
    expect(
      await startSend(
        ctx.deps.db,
        ctx.deps.messaging.queue,
        company.company.id,
        message.id,
        movedMessage.queue_job_id,
      ),
    ).toBe(false);
    expect((await messageRow(ctx.ownerDb, message.id))?.status).toBe('cancelled');
    const again = await call('DELETE', `/messages/${message.id}`, company.admin);
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toBe(MESSAGE_MESSAGES.notCancellable);
    expect(await usage(company.company.id)).toBe(0);
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .select('action')
      .where('entity', '=', 'MESSAGE')
      .where('entity_id', '=', String(message.id))
      .orderBy('id')
      .execute();
    expect(audit.map((entry) => entry.action)).toEqual(['CREATE', 'UPDATE', 'UPDATE']);
  });

  it('deletes a draft outright', async () => {
    const draft = await call('POST', '/messages', tenant.admin, {
      serviceIds: [news.id],
      message: 'Never mind',
    });
    const id = draft.json().data.message.id;
    const deleted = await call('DELETE', `/messages/${id}`, tenant.admin);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json().data).toEqual({ id, deleted: true, cancelled: false });
    expect(await messageRow(ctx.ownerDb, id)).toBeUndefined();
  });

  it('sends a scheduled message now on request, and refuses to cancel a message that is no longer scheduled', async () => {
    const scheduled = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [news.id],
      message: 'Soon',
      scheduleType: 'scheduled',
      scheduledAt: inAnHour(),
    });
    const message = scheduled.json().data.message;
    const now = await call('POST', `/messages/${message.id}/send`, tenant.admin);
    expect(now.statusCode, now.body).toBe(200);
    expect(now.json().data.message).toMatchObject({ status: 'queued', scheduledAt: null });
    expect(await job(message.queue_job_id)).toBeNull();
    expect((await job(now.json().data.message.queue_job_id))?.state).toBe('created');
    const cancel = await call('DELETE', `/messages/${message.id}`, tenant.admin);
    expect(cancel.statusCode).toBe(409);
    expect(cancel.json().message).toBe(MESSAGE_MESSAGES.notCancellable);
  });

  it('refuses to send a pending message that names no service, with the send form’s words', async () => {
    const [row] = await ctx.ownerDb
      .insertInto('messages')
      .values({ company_id: news.company_id, content: 'No services', status: 'pending', service_ids: [] })
      .returning('id')
      .execute();
    const answer = await call('POST', `/messages/${row.id}/send`, tenant.admin);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().message).toBe(MESSAGE_MESSAGES.servicesRequired);
    expect((await messagesOf(news.company_id)).find((message) => message.id === row.id)?.status).toBe(
      'pending',
    );
  });

  it('answers 404 for another company’s message', async () => {
    const other = await createSendingCompany(ctx);
    const draft = await call('POST', '/messages', tenant.admin, { serviceIds: [news.id], message: 'Mine' });
    const id = draft.json().data.message.id;
    expect((await call('DELETE', `/messages/${id}`, other.admin)).statusCode).toBe(404);
    expect((await call('POST', `/messages/${id}/send`, other.admin)).statusCode).toBe(404);
    expect(
      (await call('PUT', `/messages/${id}`, other.admin, { serviceIds: [news.id], message: 'Theirs' }))
        .statusCode,
    ).toBe(404);
  });
});

describe('GET /messages/subscribers', () => {
  it('previews the distinct active recipients of the services', async () => {
    const response = await call(
      'GET',
      `/messages/subscribers?serviceIds=${news.id},${sports.id}`,
      tenant.admin,
    );
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data).toMatchObject({ recipientCount: 8, exact: true });
    expect(data.subscribers).toHaveLength(8);
    expect(new Set(data.subscribers.map((s: { msisdn: string }) => s.msisdn)).size).toBe(8);
    const repeated = await call(
      'GET',
      `/messages/subscribers?serviceIds=${news.id}&serviceIds=${sports.id}`,
      tenant.admin,
    );
    expect(repeated.json().data.recipientCount).toBe(8);
    expect((await call('GET', '/messages/subscribers?serviceIds=abc', tenant.admin)).statusCode).toBe(400);
    expect((await call('GET', '/messages/subscribers?serviceIds=999999', tenant.admin)).statusCode).toBe(404);
    expect((await call('GET', `/messages/subscribers?serviceIds=${news.id}`, tenant.viewer)).statusCode).toBe(
      403,
    );
  });
});
