import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { TRANSACTIONAL_MESSAGES } from '@sms/contracts/messages/transactional-send';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_SEND_PRIORITY } from '../src/messaging/direct-send.ts';
import { auditEntries } from './support/admin-factories.ts';
import { bearer } from './support/factories.ts';
import { createSendingCompany, numbers, subscribe } from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/** The API side only: no worker runs here, so the send's batch jobs stay in the queue to be inspected. */
let ctx: TestContext;
let tenant: Awaited<ReturnType<typeof createSendingCompany>>;
let alerts: { id: number; company_id: number; name: string };

beforeAll(async () => {
  ctx = await createTestContext();
  tenant = await createSendingCompany(ctx, { messagesLimit: 1000 });
  alerts = await tenant.service({ name: 'Alerts' });
  await subscribe(ctx.ownerDb, alerts, numbers(30, 0, 2));
  await subscribe(ctx.ownerDb, alerts, numbers(30, 10, 1), 'unsubscribed');
});
afterAll(async () => ctx?.close());

type Headers = Record<string, string>;
const post = (headers: Headers, payload: object, extra: Headers = {}) =>
  ctx.app.inject({ method: 'POST', url: '/api/v1/messages', headers: { ...headers, ...extra }, payload });
const get = (headers: Headers, url: string) =>
  ctx.app.inject({ method: 'GET', url: `/api/v1${url}`, headers });

const recipientsOf = async (messageId: number) =>
  (
    await sql<{ recipient_phone: string; subscriber_id: string | null; status: string; service_id: string }>`
      select recipient_phone, subscriber_id::text, status, service_id::text from delivery_reports
       where message_id = ${messageId} order by id`.execute(ctx.ownerDb)
  ).rows;
const batchJobsOf = async (messageId: number) =>
  (
    await sql<{ priority: number; group_id: string | null; data: { firstId: string; lastId: string } }>`
      select priority, group_id, data from pgboss.job
       where name = 'send-batch' and (data->>'messageId')::bigint = ${messageId}`.execute(ctx.ownerDb)
  ).rows;
const usage = async (companyId: number) =>
  (
    await sql<{ used: number }>`select coalesce(sum(messages_used), 0)::int as used from company_monthly_usage
                                 where company_id = ${companyId}`.execute(ctx.ownerDb)
  ).rows[0].used;

describe('POST /messages with `to`: a transactional send', () => {
  it('normalises, dedupes, skips opted-out numbers, lists invalid ones and queues the rest ahead of bulk', async () => {
    const [known, other] = numbers(30, 0, 2);
    const [optedOut] = numbers(30, 10, 1);
    const usedBefore = await usage(tenant.company.id);
    const sent = await post(tenant.admin, {
      to: [known, '0730000001', '254730000001', optedOut, 'not a number', '+254799', '0711222333'],
      message: 'Your code is 123456',
      serviceId: alerts.id,
    });
    expect(sent.statusCode, sent.body).toBe(201);
    const { message, recipients } = sent.json().data;
    expect(recipients).toEqual([
      { to: known, status: 'queued' },
      { to: other, status: 'queued' },
      { to: optedOut, status: 'skipped_opted_out', reason: TRANSACTIONAL_MESSAGES.optedOut },
      { to: 'not a number', status: 'invalid', reason: TRANSACTIONAL_MESSAGES.invalidNumber('not a number') },
      { to: '+254799', status: 'invalid', reason: TRANSACTIONAL_MESSAGES.invalidNumber('+254799') },
      { to: '+254711222333', status: 'queued' },
    ]);
    expect(message).toMatchObject({
      status: 'processing',
      direction: 'outbound',
      recipient_count: 3,
      serviceIds: [alerts.id],
      parts: 1,
    });

    // Known numbers carry their subscriber; a number that is nobody's subscriber is sent to all the same.
    const rows = await recipientsOf(message.id);
    expect(rows.map((row) => [row.recipient_phone, row.status, row.service_id])).toEqual([
      [known, 'pending', String(alerts.id)],
      [other, 'pending', String(alerts.id)],
      ['+254711222333', 'pending', String(alerts.id)],
    ]);
    expect(rows[0].subscriber_id).not.toBeNull();
    expect(rows[2].subscriber_id).toBeNull();

    const jobs = await batchJobsOf(message.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0].priority).toBe(DIRECT_SEND_PRIORITY);
    expect(jobs[0].group_id).toBe(String(tenant.company.id));
    expect(await usage(tenant.company.id)).toBe(usedBefore + 3);

    const [send] = (
      await sql<{ state: string; recipients: number; reserved_units: number }>`
        select state, recipients, reserved_units from message_sends where message_id = ${message.id}`.execute(
        ctx.ownerDb,
      )
    ).rows;
    expect(send).toEqual({ state: 'dispatch', recipients: 3, reserved_units: 3 });

    const [audit] = await auditEntries(ctx.ownerDb, { entity: 'MESSAGE', entityId: message.id });
    expect(audit.action).toBe('CREATE');
    expect(audit.details).toMatchObject({
      transactional: true,
      recipientCount: 3,
      skippedOptedOut: 1,
      invalid: 2,
    });
  });

  it('accepts one number as a string, and shows the message in Message Logs and its details', async () => {
    const sent = await post(tenant.admin, {
      to: '0722000111',
      message: 'Your parcel is ready',
      serviceId: alerts.id,
    });
    expect(sent.statusCode, sent.body).toBe(201);
    const { message, recipients } = sent.json().data;
    expect(recipients).toEqual([{ to: '+254722000111', status: 'queued' }]);

    const list = await get(tenant.admin, '/messages');
    expect(list.json().data.messages.find((row: { id: number }) => row.id === message.id)).toMatchObject({
      content: 'Your parcel is ready',
      status: 'processing',
    });
    const details = await get(tenant.admin, `/messages/${message.id}/details`);
    expect(details.statusCode, details.body).toBe(200);
    expect(JSON.stringify(details.json().data)).toContain('+254722000111');
  });

  it('answers a retry with the same Idempotency-Key with the first answer, and sends once', async () => {
    const body = { to: ['0733000222'], message: 'Login code 999', serviceId: alerts.id };
    const key = { 'idempotency-key': `otp-${Date.now()}` };
    const first = await post(tenant.admin, body, key);
    const again = await post(tenant.admin, body, key);
    expect(first.statusCode, first.body).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from messages where company_id = ${tenant.company.id} and content = 'Login code 999'`.execute(
      ctx.ownerDb,
    );
    expect(rows[0].n).toBe(1);
    const reused = await post(tenant.admin, { ...body, message: 'Another' }, key);
    expect(reused.statusCode).toBe(409);
  });

  it('refuses with the list, and writes nothing, when nobody can be sent to', async () => {
    const [optedOut] = numbers(30, 10, 1);
    const before = await usage(tenant.company.id);
    const refused = await post(tenant.admin, {
      to: [optedOut, 'abc'],
      message: 'Nobody',
      serviceId: alerts.id,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      success: false,
      message: TRANSACTIONAL_MESSAGES.nobodyToSend,
      details: [
        `${optedOut}: ${TRANSACTIONAL_MESSAGES.optedOut}`,
        `abc: ${TRANSACTIONAL_MESSAGES.invalidNumber('abc')}`,
      ],
    });
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from messages where content = 'Nobody'`.execute(ctx.ownerDb);
    expect(rows[0].n).toBe(0);
    expect(await usage(tenant.company.id)).toBe(before);
  });

  it('refuses bad bodies with their own messages, and keeps POST /messages without `to` a draft', async () => {
    const tooMany = await post(tenant.admin, {
      to: Array.from({ length: 1001 }, (_, i) => `07220${String(i).padStart(5, '0')}`),
      message: 'x',
      serviceId: alerts.id,
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().message).toBe(TRANSACTIONAL_MESSAGES.tooManyNumbers);
    const empty = await post(tenant.admin, { to: [], message: 'x', serviceId: alerts.id });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message).toBe(TRANSACTIONAL_MESSAGES.toRequired);
    const noService = await post(tenant.admin, { to: '0722000111', message: 'x' });
    expect(noService.statusCode).toBe(400);
    expect(noService.json().message).toBe(TRANSACTIONAL_MESSAGES.serviceRequired);

    const draft = await post(tenant.admin, { serviceIds: [alerts.id], message: 'A draft' });
    expect(draft.statusCode, draft.body).toBe(201);
    expect(draft.json().data).toMatchObject({ message: { status: 'pending' }, recipientCount: 2 });
    const badDraft = await post(tenant.admin, { serviceIds: [], message: 'A draft' });
    expect(badDraft.json().message).toBe(MESSAGE_MESSAGES.servicesRequired);
  });

  it('refuses a send over the monthly limit (403), an inactive service (400) and another company’s (404)', async () => {
    const small = await createSendingCompany(ctx, { messagesLimit: 1 });
    const service = await small.service();
    const over = await post(small.admin, {
      to: ['0722000001', '0722000002'],
      message: 'x',
      serviceId: service.id,
    });
    expect(over.statusCode).toBe(403);
    expect(over.json().message).toBe(MESSAGE_MESSAGES.monthlyLimitReached(1, 0, 2));

    const paused = await small.service({ status: 'inactive' });
    const inactive = await post(small.admin, { to: '0722000001', message: 'x', serviceId: paused.id });
    expect(inactive.statusCode).toBe(400);
    expect(inactive.json().message).toBe(MESSAGE_MESSAGES.serviceInactive(paused.name));

    const theirs = await post(small.admin, { to: '0722000001', message: 'x', serviceId: alerts.id });
    expect(theirs.statusCode).toBe(404);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from messages where company_id = ${small.company.id}`.execute(ctx.ownerDb);
    expect(rows[0].n).toBe(0);

    expect(
      (await post(tenant.editor, { to: '0722000001', message: 'x', serviceId: alerts.id })).statusCode,
    ).toBe(403);
  });

  it('works with an API key of scope messages:send', async () => {
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/api-keys',
      headers: tenant.admin,
      payload: { name: 'OTP sender', scopes: ['messages:send'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const sent = await post(bearer(created.json().data.key), {
      to: '+254744000123',
      message: 'Key code 1',
      serviceId: alerts.id,
    });
    expect(sent.statusCode, sent.body).toBe(201);
    expect(sent.json().data.recipients).toEqual([{ to: '+254744000123', status: 'queued' }]);
  });

  it('documents both bodies of POST /messages in OpenAPI', async () => {
    const spec = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const body = JSON.stringify(spec.paths['/api/v1/messages'].post.requestBody);
    expect(body).toContain('"to"');
    expect(body).toContain('"serviceIds"');
    expect(JSON.stringify(spec.paths['/api/v1/messages'].post.responses['201'])).toContain(
      'skipped_opted_out',
    );
  });
});
