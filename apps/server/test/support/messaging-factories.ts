import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { connectDatabase, type Database } from '../../src/db/database.ts';
import { acceptDeliveryReports } from '../../src/messaging/delivery-report-intake.ts';
import { runFanOutStep } from '../../src/messaging/fan-out.ts';
import { createMessaging, type WorkerOptions } from '../../src/messaging/messaging.ts';
import type {
  DeliveryUpdate,
  OutboundSms,
  SmsProvider,
  SubmitOutcome,
} from '../../src/messaging/providers/provider.ts';
import { startSend } from '../../src/messaging/send-jobs.ts';
import { regenerateCallbackTokens } from '../../src/modules/callbacks/callback-tokens.ts';
import { receiveSmppInbound } from '../../src/modules/provider-callbacks/smpp-inbound.service.ts';
import { applyWaitingReports } from './delivery-report-inbox.ts';
import { bearer, createCompany, createUser, signIn } from './factories.ts';
import { createService } from './services-factories.ts';
import { TEST_ENCRYPTION_KEY, type TestContext } from './test-app.ts';

export const ENCRYPTION_KEY = Buffer.from(TEST_ENCRYPTION_KEY, 'hex');

/** Kenyan numbers +2547PPNNNNNN for a range of indexes. */
export const numbers = (prefix: number, from: number, count: number) =>
  Array.from(
    { length: count },
    (_, i) => `+2547${String(prefix).padStart(2, '0')}${String(from + i).padStart(6, '0')}`,
  );

/** Subscribes numbers to a service (set-based), with the subscriber status given. */
export async function subscribe(
  db: Database,
  service: { id: number; company_id: number },
  msisdns: string[],
  status: 'active' | 'unsubscribed' | 'pending' = 'active',
) {
  await sql`
    insert into subscribers (company_id, msisdn, status)
    select ${service.company_id}, m, ${status} from unnest(${msisdns}::text[]) as u(m)
    on conflict (company_id, msisdn) do nothing`.execute(db);
  await sql`
    insert into subscriptions (company_id, service_id, subscriber_id, status, source)
    select ${service.company_id}, ${service.id}, s.id, 'active', 'console'
      from subscribers s where s.company_id = ${service.company_id} and s.msisdn = any(${msisdns}::text[])
    on conflict do nothing`.execute(db);
}

/** A company with callback URLs, a company admin and a content manager, all signed in. */
export async function createSendingCompany(ctx: TestContext, overrides: { messagesLimit?: number } = {}) {
  const company = await createCompany(ctx.ownerDb);
  if (overrides.messagesLimit !== undefined)
    await ctx.ownerDb
      .updateTable('companies')
      .set({ messages_limit: overrides.messagesLimit })
      .where('id', '=', company.id)
      .execute();
  const tokens = await regenerateCallbackTokens(ctx.ownerDb, company.id, ENCRYPTION_KEY);
  const admin = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
  const editor = await createUser(ctx.ownerDb, { role: 'content_manager', companyId: company.id });
  const viewer = await createUser(ctx.ownerDb, { role: 'viewer', companyId: company.id });
  return {
    company,
    tokens,
    admin: bearer((await signIn(ctx.app, admin.email)).accessToken),
    adminId: admin.id,
    editor: bearer((await signIn(ctx.app, editor.email)).accessToken),
    viewer: bearer((await signIn(ctx.app, viewer.email)).accessToken),
    service: (overrides2: Parameters<typeof createService>[2] = {}) =>
      createService(ctx.ownerDb, company.id, overrides2),
  };
}

/**
 * A bulk send of one service to `recipients` generated subscribers (+2547 and 8 digits), accepted
 * through the API; the crash and outage tests then run the engine in processes of their own.
 */
export async function acceptedSendToGeneratedSubscribers(
  ctx: TestContext,
  recipients: number,
  message: string,
) {
  const company = await createCompany(ctx.ownerDb);
  const admin = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
  const headers = bearer((await signIn(ctx.app, admin.email)).accessToken);
  const service = await createService(ctx.ownerDb, company.id);
  await sql`
    insert into subscribers (company_id, msisdn, status)
    select ${company.id}, '+2547' || lpad(g::text, 8, '0'), 'active' from generate_series(1, ${recipients}) g`.execute(
    ctx.ownerDb,
  );
  await sql`
    insert into subscriptions (company_id, service_id, subscriber_id, status, source)
    select ${company.id}, ${service.id}, id, 'active', 'import' from subscribers where company_id = ${company.id}`.execute(
    ctx.ownerDb,
  );
  await sql`analyze subscribers; analyze subscriptions`.execute(ctx.ownerDb);
  await ctx.ownerDb
    .updateTable('companies')
    .set({ messages_limit: 1_000_000 })
    .where('id', '=', company.id)
    .execute();
  const sent = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers,
    payload: { serviceIds: [service.id], message },
  });
  if (sent.statusCode !== 201) throw new Error(`The send was refused: ${sent.statusCode} ${sent.body}`);
  return { company, messageId: sent.json().data.message.id as number };
}

export async function signInSystemAdmin(ctx: TestContext) {
  const admin = await createUser(ctx.ownerDb, { role: 'system_admin' });
  return bearer((await signIn(ctx.app, admin.email)).accessToken);
}

/** Listens on a free port (the simulator posts delivery reports there) and runs the worker. */
export async function startWorker(ctx: TestContext, options: Partial<WorkerOptions> = {}) {
  const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  return ctx.deps.messaging.startWorker({
    callbackBase: () => address,
    // As main.ts wires it: handset messages over SMPP are stored as inbound messages.
    onInboundMessage: async (companyId, message) => {
      await receiveSmppInbound(ctx.deps, companyId, message);
    },
    ...options,
  });
}

/** A promise that code under test waits on (a job handler, a held answer), until the test releases it. */
export function holdUntilReleased() {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { held, release };
}

export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 20_000, everyMs = 50, what = 'condition' } = {},
) {
  const started = Date.now();
  let value = await read();
  while (!done(value)) {
    if (Date.now() - started > timeoutMs)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(value)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    value = await read();
  }
  return value;
}

export async function messageRow(db: Database, id: number) {
  return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function recipientsOf(db: Database, messageId: number) {
  return db
    .selectFrom('delivery_reports')
    .selectAll()
    .where('message_id', '=', messageId)
    .orderBy('id')
    .execute();
}

export async function statusCounts(db: Database, messageId: number) {
  const { rows } = await sql<{ status: string; n: number }>`
    select status, count(*)::int as n from delivery_reports where message_id = ${messageId} group by status`.execute(
    db,
  );
  return Object.fromEntries(rows.map((row) => [row.status, row.n])) as Record<string, number>;
}

export async function countTotals(db: Database, messageId: number) {
  return db
    .selectFrom('message_delivery_totals')
    .selectAll()
    .where('message_id', '=', messageId)
    .executeTakeFirst();
}

/** Another process on the test's database: its own pool, queue and (when started) worker. */
export async function openProcess(ctx: TestContext) {
  const handle = connectDatabase(ctx.config.databaseAppUrl!, 5);
  const messaging = createMessaging({
    db: handle.jobDb,
    pool: handle.jobPool,
    config: ctx.config,
    encryptionKey: ENCRYPTION_KEY,
    log: () => {},
  });
  const app = await buildApp({ ...ctx.deps, db: handle.db, messaging }, { serveConsole: false });
  await app.ready();
  return {
    app,
    messaging,
    db: handle.db,
    async startWorker(options: Partial<WorkerOptions> = {}) {
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      return messaging.startWorker({ callbackBase: () => address, ...options });
    },
    async close() {
      await app.close();
      await messaging.close();
      await handle.close();
    },
  };
}

/**
 * A bulk send of `count` recipients (numbers with `prefix`) of a new company's service, started and
 * fanned out by the test itself (no worker), ready for its hand-over: one batch job of them all.
 */
export async function fannedOutSend(
  ctx: TestContext,
  count: number,
  { prefix, message }: { prefix: number; message: string },
) {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, numbers(prefix, 0, count));
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message },
  });
  const messageId: number = response.json().data.message.id;
  const companyId = tenant.company.id;
  const queued = await messageRow(ctx.ownerDb, messageId);
  const queue = ctx.deps.messaging.queue;
  if (!(await startSend(ctx.db, queue, companyId, messageId, queued?.queue_job_id ?? '')))
    throw new Error('send not started');
  const sizes = { stepSize: 1000, batchSize: count + 1 };
  let after = '0';
  for (;;) {
    await runFanOutStep(ctx.db, queue, { companyId, messageId, after }, sizes);
    const send = await ctx.ownerDb
      .selectFrom('message_sends')
      .select(['state', 'fanout_cursor'])
      .where('message_id', '=', messageId)
      .executeTakeFirstOrThrow();
    if (send.state !== 'fanout') break;
    after = String(send.fanout_cursor);
  }
  const ids = await sql<{ first: string; last: string }>`
    select min(id)::text as first, max(id)::text as last from delivery_reports where message_id = ${messageId}`.execute(
    ctx.ownerDb,
  );
  return { companyId, messageId, firstId: ids.rows[0].first, lastId: ids.rows[0].last };
}

/**
 * A provider that answers from a script: per recipient key, the outcome of each offer in turn
 * (the last one repeats); every offer is recorded with its time.
 */
export function scriptedProvider(script: (sms: OutboundSms, offer: number) => SubmitOutcome['outcome']) {
  const offers: { key: string; at: number; batch: number }[] = [];
  const counts = new Map<string, number>();
  let batches = 0;
  const provider: SmsProvider & { offers: typeof offers; batchSizes: number[] } = {
    kind: 'simulator',
    maxBatchSize: 1000,
    offers,
    batchSizes: [],
    async sendBatch(messages) {
      batches++;
      provider.batchSizes.push(messages.length);
      return messages.map((sms) => {
        const offer = (counts.get(sms.recipientKey) ?? 0) + 1;
        counts.set(sms.recipientKey, offer);
        offers.push({ key: sms.recipientKey, at: Date.now(), batch: batches });
        const outcome = script(sms, offer);
        if (outcome === 'accepted')
          return { recipientKey: sms.recipientKey, outcome, providerMessageId: `SCRIPT-${sms.recipientKey}` };
        if (outcome === 'rejected')
          return { recipientKey: sms.recipientKey, outcome, reason: 'InvalidPhoneNumber' };
        return { recipientKey: sms.recipientKey, outcome, reason: 'GatewayError' };
      });
    },
    async close() {},
  };
  return provider;
}

/**
 * A sent message of the company with one recipient per provider id in `gids`, handed over and
 * waiting (submitted), and its counters; with `send`, also its send, done (so reports settle it).
 */
export async function insertHandedOverMessage(
  db: Database,
  companyId: number,
  gids: string[],
  options: { send: boolean },
) {
  const message = await db
    .insertInto('messages')
    .values({ company_id: companyId, content: 'Hello', status: 'sent', encoding: 'GSM-7', parts: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  // As the hand-over writes them: the recipient rows and their provider ids (migration 0029).
  await sql`
    with handed_over as (
      insert into delivery_reports (company_id, created_at, message_id, recipient_phone, status, gateway_message_id, attempts, submitted_at)
      select ${companyId}, date_trunc('milliseconds', now()), ${message.id}, '+254700000001', 'submitted', gid, 1, now()
        from unnest(${gids}::text[]) gid
      returning company_id, gateway_message_id, created_at, message_id, id)
    insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
    select company_id, gateway_message_id, created_at, message_id, id from handed_over`.execute(db);
  await sql`
    insert into message_delivery_counts (company_id, message_id, shard, submitted)
    values (${companyId}, ${message.id}, 0, ${gids.length})`.execute(db);
  if (options.send)
    await sql`
      insert into message_sends (company_id, message_id, state, recipients)
      values (${companyId}, ${message.id}, 'done', ${gids.length})`.execute(db);
  return message.id;
}

/** Schedules a send of the tenant's services an hour ahead; the test makes it due (fallDue). */
export async function scheduleSend(
  ctx: TestContext,
  tenant: { admin: Record<string, string> },
  serviceIds: number[],
  message: string,
) {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: {
      serviceIds,
      message,
      scheduleType: 'scheduled',
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
    },
  });
  if (response.statusCode !== 201) throw new Error(`not scheduled: ${response.body}`);
  return response.json().data.message as { id: number; queue_job_id: string; parts: number };
}

/** Scheduled sends fall due now: their queue jobs may start, and the worker looks at once. */
export async function fallDue(ctx: TestContext, ...messages: { queue_job_id: string }[]) {
  const jobIds = messages.map((message) => message.queue_job_id);
  await sql`update pgboss.job set start_after = now() where id::text = any(${jobIds}::text[])`.execute(
    ctx.ownerDb,
  );
}

/** The engine's state of a message's send (message_sends.state). */
export async function sendState(db: Database, messageId: number) {
  const row = await db
    .selectFrom('message_sends')
    .select('state')
    .where('message_id', '=', messageId)
    .executeTakeFirst();
  return row?.state;
}

/** What the company has used of its monthly messages, all months together. */
export async function messagesUsed(db: Database, companyId: number) {
  const { rows } = await sql<{ used: number }>`
    select coalesce(sum(messages_used), 0)::int as used from company_monthly_usage
     where company_id = ${companyId}`.execute(db);
  return rows[0].used;
}

/**
 * Applies delivery reports as the engine does: stored in the company's inbox (as receipts the engine
 * read itself, no callback URL), then applied. Returns the reports applied.
 */
export async function applyReports(db: Database, companyId: number, updates: DeliveryUpdate[]) {
  await acceptDeliveryReports(
    db,
    companyId,
    updates,
    updates.map(() => null),
  );
  return applyWaitingReports(db);
}

/** The provider ids of the company's reports kept because no recipient carried them (yet). */
export async function unmatchedIds(db: Database, companyId: number) {
  const { rows } = await sql<{ gid: string }>`
    select gateway_message_id as gid from unmatched_delivery_reports where company_id = ${companyId} order by 1`.execute(
    db,
  );
  return rows.map((row) => row.gid);
}
