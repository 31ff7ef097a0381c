import { WEBHOOK_MESSAGES } from '@sms/contracts/webhooks/webhook';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicAddressPolicy } from '../src/lib/public-address.ts';
import {
  deliverWebhookEvents,
  pruneWebhookOutbox,
  type WebhookDeliveryDeps,
  WebhookDeliveryFailed,
} from '../src/modules/webhooks/webhook-delivery.ts';
import { auditEntries } from './support/admin-factories.ts';
import { createTenantWithStaff } from './support/factories.ts';
import { startWorker, waitFor } from './support/messaging-factories.ts';
import { createService, kenyanNumber, subscribeNumbers } from './support/services-factories.ts';
import { createTestContext, TEST_ENCRYPTION_KEY, type TestContext } from './support/test-app.ts';
import { type ReceivedEvent, startWebhookReceiver, verifySignature } from './support/webhook-receiver.ts';

let ctx: TestContext;
let home: Awaited<ReturnType<typeof createTenantWithStaff>>;
let other: Awaited<ReturnType<typeof createTenantWithStaff>>;
let deliverer: WebhookDeliveryDeps;
const receivers: Awaited<ReturnType<typeof startWebhookReceiver>>[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  home = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  other = await createTenantWithStaff(ctx.app, ctx.ownerDb);
  // The worker's handler itself, called step by step where a test plays with time and failures.
  deliverer = {
    db: ctx.jobDb,
    encryptionKey: Buffer.from(TEST_ENCRYPTION_KEY, 'hex'),
    policy: createPublicAddressPolicy(ctx.config.messaging.providerAllowedPrivateHosts),
  };
});
afterAll(async () => {
  await ctx.close();
  for (const receiver of receivers) await receiver.close();
});

type Tenant = typeof home;
const api = (token: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  ctx.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${token}` },
    ...(payload ? { payload } : {}),
  });

/** A receiver and an endpoint of the tenant's pointing at it. */
async function endpointFor(tenant: Tenant, eventTypes: string[]) {
  const receiver = await startWebhookReceiver();
  receivers.push(receiver);
  const response = await api(tenant.staff.company_admin.token, 'POST', '/webhooks', {
    url: receiver.url,
    eventTypes,
  });
  expect(response.statusCode, response.body).toBe(201);
  const { endpoint, secret } = response.json().data as { endpoint: { id: number }; secret: string };
  receiver.useSecret(secret);
  return {
    receiver,
    id: endpoint.id,
    secret,
    target: { companyId: tenant.company.id, endpointId: endpoint.id },
  };
}

/** Runs the deliver job's handler until it has nothing left (each run posts up to 20 batches). */
async function deliverAll(target: { companyId: number; endpointId: number }) {
  let requests = 0;
  for (;;) {
    const delivered = await deliverWebhookEvents(deliverer, target);
    requests += delivered;
    if (delivered === 0) return requests;
  }
}

const eventsOf = (companyId: number) =>
  sql<{ id: string; type: string; subject: string }>`
    select e.id::text as id, e.type, e.subject from webhook_events e where e.company_id = ${companyId} order by e.id`
    .execute(ctx.ownerDb)
    .then((result) => result.rows);

let numbers = 0;
const nextNumbers = (count: number) => Array.from({ length: count }, () => kenyanNumber(55, numbers++));

describe('webhook endpoints in the console', () => {
  it('creates an endpoint whose secret is shown once and stored encrypted; edits, lists and deletes it', async () => {
    const owner = home.staff.company_admin.token;
    const created = await api(owner, 'POST', '/webhooks', {
      url: 'http://127.0.0.1:9/console',
      eventTypes: ['subscriber.unsubscribed', 'message.sent', 'message.sent'],
      description: 'CRM',
    });
    expect(created.statusCode, created.body).toBe(201);
    const { endpoint, secret } = created.json().data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(endpoint).toMatchObject({
      eventTypes: ['message.sent', 'subscriber.unsubscribed'],
      description: 'CRM',
      enabled: true,
      secretPrefix: secret.slice(0, 10),
    });
    const stored = await sql<Record<string, unknown>>`
      select * from webhook_endpoints where id = ${endpoint.id}`.execute(ctx.ownerDb);
    expect(JSON.stringify(stored.rows)).not.toContain(secret.slice(10));

    const listed = await api(owner, 'GET', '/webhooks');
    expect(listed.body).not.toContain(secret);
    expect(listed.json().data.endpoints.map((e: { id: number }) => e.id)).toContain(endpoint.id);

    const edited = await api(owner, 'PATCH', `/webhooks/${endpoint.id}`, {
      eventTypes: ['message.delivered'],
      enabled: false,
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().data.endpoint).toMatchObject({ eventTypes: ['message.delivered'], enabled: false });

    expect((await api(owner, 'DELETE', `/webhooks/${endpoint.id}`)).statusCode).toBe(200);
    expect((await api(owner, 'GET', `/webhooks/${endpoint.id}/deliveries`)).statusCode).toBe(404);
    expect(
      (await auditEntries(ctx.ownerDb, { entity: 'WEBHOOK_ENDPOINT', entityId: endpoint.id })).map(
        (e) => e.action,
      ),
    ).toEqual(['DELETE', 'UPDATE', 'CREATE']);
  });

  it('refuses bad input, private addresses and plain http to the internet with a 400, creating nothing', async () => {
    const owner = home.staff.company_admin.token;
    const before = (await api(owner, 'GET', '/webhooks')).body;
    for (const [body, message] of [
      [{ url: 'not a url', eventTypes: ['message.sent'] }, WEBHOOK_MESSAGES.urlInvalid],
      [{ url: 'ftp://hooks.example.com/x', eventTypes: ['message.sent'] }, WEBHOOK_MESSAGES.urlInvalid],
      [{ url: 'https://hooks.example.com/x', eventTypes: [] }, WEBHOOK_MESSAGES.eventsRequired],
      [{ url: 'https://hooks.example.com/x', eventTypes: ['message.deleted'] }, null],
      [{ url: 'http://hooks.example.com/x', eventTypes: ['message.sent'] }, WEBHOOK_MESSAGES.urlNotHttps],
      [
        { url: 'https://user:pw@hooks.example.com/x', eventTypes: ['message.sent'] },
        WEBHOOK_MESSAGES.urlCredentials,
      ],
      [{ url: 'https://10.0.0.8/x', eventTypes: ['message.sent'] }, WEBHOOK_MESSAGES.urlNotPublic],
      [
        { url: 'https://169.254.169.254/latest', eventTypes: ['message.sent'] },
        WEBHOOK_MESSAGES.urlNotPublic,
      ],
      [{ url: 'https://[::1]/x', eventTypes: ['message.sent'] }, WEBHOOK_MESSAGES.urlNotPublic],
      [{ url: 'https://localhost/x', eventTypes: ['message.sent'] }, WEBHOOK_MESSAGES.urlNotPublic],
      [{ url: 'https://2130706434/x', eventTypes: ['message.sent'] }, WEBHOOK_MESSAGES.urlNotPublic],
    ] as const) {
      const response = await api(owner, 'POST', '/webhooks', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().success).toBe(false);
      if (message) expect(response.json().message, JSON.stringify(body)).toContain(message);
    }
    expect((await api(owner, 'GET', '/webhooks')).body).toBe(before);
  });

  it('is a company admin’s own: other roles get 403, another company’s endpoint reads as missing', async () => {
    for (const role of ['content_manager', 'viewer', 'system_admin'] as const)
      expect((await api(home.staff[role].token, 'GET', '/webhooks')).statusCode).toBe(403);
    const theirs = await endpointFor(other, ['message.sent']);
    const owner = home.staff.company_admin.token;
    for (const [method, url] of [
      ['PATCH', `/webhooks/${theirs.id}`],
      ['DELETE', `/webhooks/${theirs.id}`],
      ['GET', `/webhooks/${theirs.id}/deliveries`],
      ['POST', `/webhooks/${theirs.id}/test`],
    ] as const) {
      const response = await api(owner, method, url, method === 'PATCH' ? { enabled: false } : undefined);
      expect(response.statusCode, `${method} ${url}`).toBe(404);
    }
    expect(theirs.receiver.requests).toEqual([]);
    await api(other.staff.company_admin.token, 'DELETE', `/webhooks/${theirs.id}`);
  });
});

describe('deliveries', () => {
  it('"Send test event" posts one signed event now and lists it with its response code', async () => {
    const { receiver, id } = await endpointFor(home, ['message.sent']);
    const owner = home.staff.company_admin.token;
    const sent = await api(owner, 'POST', `/webhooks/${id}/test`);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().data.delivery).toMatchObject({ isTest: true, statusCode: 200, succeeded: true });
    expect(receiver.received).toEqual([expect.objectContaining({ type: 'webhook.test' })]);
    expect(receiver.requests[0]?.verified).toBe(true);

    receiver.state.down = true;
    const failed = await api(owner, 'POST', `/webhooks/${id}/test`);
    expect(failed.json().data.delivery).toMatchObject({
      statusCode: 503,
      succeeded: false,
      error: 'HTTP 503',
    });
    const listed = await api(owner, 'GET', `/webhooks/${id}/deliveries`);
    expect(listed.json().data.deliveries.map((d: { statusCode: number }) => d.statusCode)).toEqual([
      503, 200,
    ]);
    await api(owner, 'DELETE', `/webhooks/${id}`);
  });

  it('a receiver down for 10 minutes gets every event afterwards, in order per subscriber', async () => {
    const { receiver, target, id } = await endpointFor(home, [
      'subscriber.subscribed',
      'subscriber.unsubscribed',
    ]);
    const owner = home.staff.company_admin.token;
    const service = await createService(ctx.ownerDb, home.company.id);
    const phones = nextNumbers(3);
    receiver.state.down = true;
    // Subscribe, unsubscribe and subscribe again through the API while the receiver is down.
    for (const round of [0, 1]) {
      for (const phone of phones) {
        const subscribed = await api(owner, 'POST', `/services/${service.id}/subscribe`, {
          phoneNumber: phone,
        });
        expect(subscribed.statusCode, subscribed.body).toBe(200);
      }
      for (const phone of phones.slice(round)) {
        const gone = await api(owner, 'DELETE', `/services/${service.id}/unsubscribe`, {
          phoneNumber: phone,
        });
        expect(gone.statusCode, gone.body).toBe(200);
      }
      await expect(deliverWebhookEvents(deliverer, target)).rejects.toBeInstanceOf(WebhookDeliveryFailed);
    }
    // Ten minutes of failures, as the clock would have them.
    await sql`update webhook_endpoints set failing_since = now() - interval '10 minutes' where id = ${id}`.execute(
      ctx.ownerDb,
    );
    await expect(deliverWebhookEvents(deliverer, target)).rejects.toBeInstanceOf(WebhookDeliveryFailed);

    receiver.state.down = false;
    await deliverAll(target);
    const written = await eventsOf(home.company.id);
    const mine = written.filter((event) => event.subject.startsWith('subscriber:'));
    expect(mine.length).toBe(3 + 3 + 3 + 2);
    // Every event, once, in the order written: so in order for each subscriber.
    expect(receiver.received.map((event) => event.id)).toEqual(mine.map((event) => `evt_${event.id}`));
    const bySubscriber = new Map<unknown, string[]>();
    for (const event of receiver.received)
      bySubscriber.set(event.data.msisdn, [...(bySubscriber.get(event.data.msisdn) ?? []), event.type]);
    expect(bySubscriber.get(phones[0])).toEqual([
      'subscriber.subscribed',
      'subscriber.unsubscribed',
      'subscriber.subscribed',
    ]);
    expect(bySubscriber.get(phones[1])).toEqual([
      'subscriber.subscribed',
      'subscriber.unsubscribed',
      'subscriber.subscribed',
      'subscriber.unsubscribed',
    ]);
    expect(receiver.requests.every((request) => request.verified)).toBe(true);

    const endpoint = (await api(owner, 'GET', '/webhooks'))
      .json()
      .data.endpoints.find((e: { id: number }) => e.id === id);
    expect(endpoint).toMatchObject({ enabled: true, failingSince: null, pendingEvents: 0 });
    const deliveries = (await api(owner, 'GET', `/webhooks/${id}/deliveries`)).json().data.deliveries;
    expect(deliveries[0]).toMatchObject({ statusCode: 200, succeeded: true, attempt: 4 });
    expect(deliveries.slice(1).map((d: { statusCode: number }) => d.statusCode)).toEqual([503, 503, 503]);
    await api(owner, 'DELETE', `/webhooks/${id}`);
  });

  it('batches a burst: 1,000 subscriptions in one statement reach the endpoint in 2 requests', async () => {
    const { receiver, target, id } = await endpointFor(home, ['subscriber.subscribed']);
    const service = await createService(ctx.ownerDb, home.company.id);
    await subscribeNumbers(ctx.ownerDb, service, nextNumbers(1000));
    expect(await deliverAll(target)).toBe(2);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.received).toHaveLength(1000);
    expect(new Set(receiver.received.map((event) => event.id)).size).toBe(1000);
    await api(home.staff.company_admin.token, 'DELETE', `/webhooks/${id}`);
  });

  it('prunes what nobody needs: events every endpoint took, a week-old backlog, month-old deliveries', async () => {
    const first = await endpointFor(other, ['subscriber.subscribed']);
    const service = await createService(ctx.ownerDb, other.company.id);
    await subscribeNumbers(ctx.ownerDb, service, nextNumbers(5));
    expect(await deliverAll(first.target)).toBe(1);
    // A second endpoint, added after those five: it wants only what comes next.
    const second = await endpointFor(other, ['subscriber.subscribed']);
    await sql`update webhook_endpoints set after_event_id = (select max(id) from webhook_events
               where company_id = ${other.company.id}) where id = ${second.id}`.execute(ctx.ownerDb);
    await subscribeNumbers(ctx.ownerDb, service, nextNumbers(3));
    expect(await deliverAll(first.target)).toBe(1);
    const waiting = (await eventsOf(other.company.id)).slice(-3);

    // Taken by the first endpoint, not yet by the second: only the first five go, in batches of 2.
    expect(await pruneWebhookOutbox(ctx.jobDb, 2)).toBe(5);
    expect(await eventsOf(other.company.id)).toEqual(waiting);

    // The second endpoint is disabled and its backlog grows old; its month-old requests go too.
    await sql`update webhook_events set created_at = now() - interval '8 days' where company_id = ${other.company.id}`.execute(
      ctx.ownerDb,
    );
    await sql`update webhook_deliveries set created_at = now() - interval '31 days' where endpoint_id = ${first.id}`.execute(
      ctx.ownerDb,
    );
    expect(await pruneWebhookOutbox(ctx.jobDb, 2)).toBe(3 + 2);
    expect(await eventsOf(other.company.id)).toEqual([]);
    // Another company's events are untouched (home's, written by the tests above).
    expect((await eventsOf(home.company.id)).length).toBeGreaterThan(0);
    for (const endpoint of [first, second])
      await api(other.staff.company_admin.token, 'DELETE', `/webhooks/${endpoint.id}`);
  });

  it('never passes an event still uncommitted when a later one is committed first', async () => {
    // Two services, so that the two transactions below lock no row in common (its subscriber count).
    const first = await createService(ctx.ownerDb, home.company.id);
    const second = await createService(ctx.ownerDb, home.company.id);
    const [early, late] = nextNumbers(2);
    await subscribeNumbers(ctx.ownerDb, first, [early!]);
    await subscribeNumbers(ctx.ownerDb, second, [late!]);
    const { receiver, target, id } = await endpointFor(home, ['subscriber.unsubscribed']);
    const unsubscribeAll = `update subscriptions set status = 'unsubscribed', unsubscribed_at = now()
                             where company_id = ${home.company.id} and service_id = $1`;
    const open = await ctx.ownerPool.connect();
    try {
      // The first event's id is taken in a transaction that stays open...
      await open.query('begin');
      await open.query(unsubscribeAll, [first.id]);
      // ...while a later one commits.
      await ctx.ownerPool.query(unsubscribeAll, [second.id]);
      expect(await deliverWebhookEvents(deliverer, target)).toBe(0);
      expect(receiver.requests).toEqual([]);
      await open.query('commit');
    } finally {
      // Discarded, not returned: a failed expectation must not leave its transaction (and lock) open.
      open.release(true);
    }
    await deliverAll(target);
    expect(receiver.received.map((event) => event.data.msisdn)).toEqual([early, late]);
    await api(home.staff.company_admin.token, 'DELETE', `/webhooks/${id}`);
  });

  it('disables an endpoint after 24 hours of failures and says so; enabling it again resumes its events', async () => {
    const { receiver, target, id } = await endpointFor(home, ['message.sent']);
    const owner = home.staff.company_admin.token;
    const service = await createService(ctx.ownerDb, home.company.id);
    const message = await sql<{ id: number }>`
      insert into messages (company_id, service_id, service_ids, content, status)
      values (${home.company.id}, ${service.id}, ${[service.id]}, 'Down for a day', 'processing') returning id`.execute(
      ctx.ownerDb,
    );
    await sql`update messages set status = 'sent' where id = ${message.rows[0]!.id}`.execute(ctx.ownerDb);
    receiver.state.down = true;
    await expect(deliverWebhookEvents(deliverer, target)).rejects.toBeInstanceOf(WebhookDeliveryFailed);
    await sql`update webhook_endpoints set failing_since = now() - interval '24 hours 1 minute' where id = ${id}`.execute(
      ctx.ownerDb,
    );
    // The failure past 24 hours disables it: the job ends instead of being retried.
    await expect(deliverWebhookEvents(deliverer, target)).resolves.toBe(0);
    const listed = (await api(owner, 'GET', '/webhooks'))
      .json()
      .data.endpoints.find((e: { id: number }) => e.id === id);
    expect(listed).toMatchObject({ enabled: false, disabledReason: WEBHOOK_MESSAGES.disabledAfterFailures });

    receiver.state.down = false;
    const enabled = await api(owner, 'PATCH', `/webhooks/${id}`, { enabled: true });
    expect(enabled.json().data.endpoint).toMatchObject({
      enabled: true,
      disabledReason: null,
      failingSince: null,
    });
    await deliverAll(target);
    expect(receiver.received).toEqual([
      expect.objectContaining({
        type: 'message.sent',
        data: expect.objectContaining({ messageId: message.rows[0]!.id }),
      }),
    ]);
    await api(owner, 'DELETE', `/webhooks/${id}`);
  });

  it('never connects to a private address, even one stored before the rule', async () => {
    const { target, id } = await endpointFor(home, ['message.sent']);
    // As if saved before the rule, or under an operator's list that has changed since.
    await sql`update webhook_endpoints set url = 'http://10.20.30.40/hook' where id = ${id}`.execute(
      ctx.ownerDb,
    );
    const owner = home.staff.company_admin.token;
    const tested = await api(owner, 'POST', `/webhooks/${id}/test`);
    expect(tested.json().data.delivery).toMatchObject({ statusCode: null, succeeded: false });
    expect(tested.json().data.delivery.error).toContain('private');
    // The job refuses it the same way: a failure, retried, never a connection.
    const service = await createService(ctx.ownerDb, home.company.id);
    await sql`insert into messages (company_id, service_id, content, status)
              values (${home.company.id}, ${service.id}, 'Private', 'sent')`.execute(ctx.ownerDb);
    await expect(deliverWebhookEvents(deliverer, target)).rejects.toThrow(/private/);
    await api(owner, 'DELETE', `/webhooks/${id}`);
  });

  it('writes no events for a company without an endpoint wanting them, and posts a company’s only to its own', async () => {
    // Home has an endpoint wanting subscriptions only; the other company has none yet.
    const mine = await endpointFor(home, ['subscriber.subscribed']);
    const before = (await eventsOf(other.company.id)).length;
    const theirService = await createService(ctx.ownerDb, other.company.id);
    await subscribeNumbers(ctx.ownerDb, theirService, nextNumbers(5));
    expect((await eventsOf(other.company.id)).length).toBe(before);
    // Nor a type no endpoint wants.
    const homeBefore = (await eventsOf(home.company.id)).length;
    await sql`update subscriptions set status = 'unsubscribed', unsubscribed_at = now()
               where company_id = ${home.company.id} and status = 'active'`.execute(ctx.ownerDb);
    expect((await eventsOf(home.company.id)).length).toBe(homeBefore);

    const theirs = await endpointFor(other, ['subscriber.subscribed']);
    const myService = await createService(ctx.ownerDb, home.company.id);
    const myPhones = nextNumbers(2);
    const theirPhones = nextNumbers(3);
    await subscribeNumbers(ctx.ownerDb, myService, myPhones);
    await subscribeNumbers(ctx.ownerDb, theirService, theirPhones);
    await deliverAll(mine.target);
    await deliverAll(theirs.target);
    const phonesOf = (events: ReceivedEvent[]) => events.map((event) => event.data.msisdn);
    expect(phonesOf(mine.receiver.received)).toEqual(myPhones);
    expect(phonesOf(theirs.receiver.received)).toEqual(theirPhones);
    // A job naming another company's endpoint finds nothing under that company's wall.
    expect(await deliverWebhookEvents(deliverer, { companyId: home.company.id, endpointId: theirs.id })).toBe(
      0,
    );
    await api(home.staff.company_admin.token, 'DELETE', `/webhooks/${mine.id}`);
    await api(other.staff.company_admin.token, 'DELETE', `/webhooks/${theirs.id}`);
  });
});

describe('message events', () => {
  it('come once per change: an inbound arrival, each new status of an outbound message, nothing else', async () => {
    const { id } = await endpointFor(home, [
      'message.received',
      'message.sent',
      'message.delivered',
      'message.failed',
    ]);
    const service = await createService(ctx.ownerDb, home.company.id);
    const [from, alsoFrom] = nextNumbers(2);
    const { rows: arrived } = await sql<{ id: string }>`
      insert into messages (company_id, service_id, direction, content, msisdn, status)
      values (${home.company.id}, ${service.id}, 'inbound', 'HELLO', ${from}, 'received'),
             (${home.company.id}, ${service.id}, 'inbound', 'HI', ${alsoFrom}, 'received')
      returning id::text`.execute(ctx.ownerDb);
    const { rows: sent } = await sql<{ id: string }>`
      insert into messages (company_id, service_id, service_ids, direction, content, status)
      values (${home.company.id}, ${service.id}, array[${service.id}]::bigint[], 'outbound', 'News', 'queued'),
             (${home.company.id}, ${service.id}, array[${service.id}]::bigint[], 'outbound', 'More', 'queued')
      returning id::text`.execute(ctx.ownerDb);
    const [inbound, outbound] = [arrived.map((row) => row.id), sent.map((row) => row.id)];
    const setStatus = (status: string, ids: string[]) =>
      sql`update messages set status = ${status}, updated_at = now()
           where company_id = ${home.company.id} and id = any(${ids}::bigint[])`.execute(ctx.ownerDb);
    await setStatus('processing', outbound);
    await setStatus('sent', outbound);
    // A statement that changes the status of one and not the other, and one that changes none.
    await sql`update messages set status = case when id = ${outbound[0]}::bigint then 'delivered' else status end
               where company_id = ${home.company.id} and id = any(${outbound}::bigint[])`.execute(
      ctx.ownerDb,
    );
    await sql`update messages set updated_at = now() where company_id = ${home.company.id}
               and id = any(${[...inbound, ...outbound]}::bigint[])`.execute(ctx.ownerDb);
    await setStatus('failed', [outbound[1]!]);
    const ours = new Set([...inbound, ...outbound].map((messageId) => `message:${messageId}`));
    const events = (await eventsOf(home.company.id)).filter((event) => ours.has(event.subject));
    expect(events.map((event) => [event.type, event.subject])).toEqual([
      ['message.received', `message:${inbound[0]}`],
      ['message.received', `message:${inbound[1]}`],
      ['message.sent', `message:${outbound[0]}`],
      ['message.sent', `message:${outbound[1]}`],
      ['message.delivered', `message:${outbound[0]}`],
      ['message.failed', `message:${outbound[1]}`],
    ]);
    await api(home.staff.company_admin.token, 'DELETE', `/webhooks/${id}`);
  });
});

describe('the worker', () => {
  it('delivers events by itself: it looks for waiting events and runs the deliver job', async () => {
    await startWorker(ctx);
    const { receiver, id } = await endpointFor(home, ['subscriber.subscribed', 'message.received']);
    const service = await createService(ctx.ownerDb, home.company.id);
    const phones = nextNumbers(3);
    await subscribeNumbers(ctx.ownerDb, service, phones);
    await sql`
      insert into messages (company_id, service_id, direction, content, msisdn, status)
      values (${home.company.id}, ${service.id}, 'inbound', 'STOP', ${phones[0]}, 'received')`.execute(
      ctx.ownerDb,
    );
    await waitFor(
      async () => receiver.received.length,
      (count) => count === 4,
      { what: 'the four events at the receiver' },
    );
    expect(receiver.received.map((event) => event.type)).toEqual([
      'subscriber.subscribed',
      'subscriber.subscribed',
      'subscriber.subscribed',
      'message.received',
    ]);
    expect(receiver.requests.every((request) => request.verified)).toBe(true);
    await api(home.staff.company_admin.token, 'DELETE', `/webhooks/${id}`);
  });
});

describe('OpenAPI', () => {
  it('documents the webhook routes and the signed request they lead to', async () => {
    const spec = (await ctx.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    for (const [path, method] of [
      ['/api/v1/webhooks', 'get'],
      ['/api/v1/webhooks', 'post'],
      ['/api/v1/webhooks/{id}', 'patch'],
      ['/api/v1/webhooks/{id}', 'delete'],
      ['/api/v1/webhooks/{id}/deliveries', 'get'],
      ['/api/v1/webhooks/{id}/test', 'post'],
    ] as const)
      expect(spec.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(['webhooks']);
    const tag = spec.tags.find((entry: { name: string }) => entry.name === 'webhooks');
    expect(tag.description).toContain('Webhook-Signature: t=<unix seconds>,v1=');
    expect(
      spec.paths['/api/v1/webhooks'].post.requestBody.content['application/json'].schema.properties
        .eventTypes,
    ).toBeDefined();
  });
});

describe('the README recipe', () => {
  it('refuses a signature outside the 5-minute replay window, or over another body', () => {
    const header = (t: number) => `t=${t},v1=${signature('secret', `${t}.{}`)}`;
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature('{}', header(now), 'secret')).toBe(true);
    expect(verifySignature('{}', header(now - 301), 'secret')).toBe(false);
    expect(verifySignature('{ }', header(now), 'secret')).toBe(false);
  });
});

import { createHmac } from 'node:crypto';

const signature = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');
