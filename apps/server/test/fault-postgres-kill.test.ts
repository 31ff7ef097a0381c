import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../src/plugins/database-unavailable.ts';
import { bearer, createUser, signIn } from './support/factories.ts';
import { startKillablePostgres } from './support/killable-postgres.ts';
import { acceptedSendToGeneratedSubscribers, messageRow, waitFor } from './support/messaging-factories.ts';
import { readLedger, spawnServer, stopAll } from './support/spawned-server.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// SIGKILL of the PostgreSQL postmaster in the middle of a send, then a start of it again (crash
// recovery). The API and worker processes are not restarted: they must come back by themselves.
// The cluster is this file's own (killable-postgres.ts); every other test file keeps the run's.

const RECIPIENTS = 8_000;
let cluster: Awaited<ReturnType<typeof startKillablePostgres>>;
let ctx: TestContext;
let dir: string;

beforeAll(async () => {
  cluster = await startKillablePostgres();
  ctx = await createTestContext({}, cluster.server);
  dir = await mkdtemp(path.join(os.tmpdir(), 'sms-fault-pg-'));
}, 120_000);
afterAll(async () => {
  await stopAll();
  await ctx?.close().catch(() => {});
  await cluster?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const handedOver = async (messageId: number) =>
  (
    await sql<{ n: number }>`select count(*)::int as n from delivery_reports
                              where message_id = ${messageId} and status <> 'pending'`.execute(ctx.ownerDb)
  ).rows[0].n;

it('SIGKILL of PostgreSQL mid-send: the API answers 503 with Retry-After while it is down, then API and worker recover by themselves; the send completes, nobody lost or handed over twice', {
  timeout: 180_000,
}, async () => {
  const { company, messageId } = await acceptedSendToGeneratedSubscribers(
    ctx,
    RECIPIENTS,
    'Survive the database',
  );
  const admin = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
  const headers = {
    ...bearer((await signIn(ctx.app, admin.email)).accessToken),
    'content-type': 'application/json',
  };
  const database = { databaseUrl: ctx.config.databaseUrl!, databaseAppUrl: ctx.config.databaseAppUrl! };
  const ledger = path.join(dir, 'ledger.txt');
  // The test's own app signed the token: the API process shares its key.
  const api = spawnServer('api', database, { JWT_SECRET: ctx.config.jwtSecret! });
  const worker = spawnServer('worker', database, {
    WORKER_CONCURRENCY: '4',
    SEND_CLAIM_SECONDS: '5',
    FANOUT_BATCH_SIZE: '5000',
    SIMULATOR_BATCH_SIZE: '200',
    // Slow enough that the kill lands mid-hand-over (2 s for everyone, the kill a fifth of the way in).
    SIMULATOR_MESSAGES_PER_SECOND: '4000',
    SIMULATOR_LEDGER: ledger,
  });
  const base = await api.ready;
  await worker.ready;
  const call = (method: string, url: string, body?: unknown) =>
    fetch(`${base}/api/v1${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      // "Never hangs": a request that got no answer in this long fails the test.
      signal: AbortSignal.timeout(30_000),
    });

  await waitFor(
    () => handedOver(messageId),
    (n) => n >= 1600,
    { timeoutMs: 60_000, everyMs: 20, what: `the hand-over to be under way (${worker.output()})` },
  );
  const started = Date.now();
  const at: Record<string, number> = {};
  await cluster.kill();

  // While it is down: every request is answered, 503 with Retry-After and the envelope.
  for (const [method, url, body] of [
    ['GET', '/messages?page=1&limit=10'],
    ['GET', `/messages/${messageId}/details`],
    ['POST', '/messages/bulk/send', { serviceIds: [1], message: 'While the database is down' }],
    ['GET', '/dashboard/stats'],
  ] as const) {
    const response = await call(method, url, body);
    const text = await response.text();
    expect(response.status, `${method} ${url}: ${text}`).toBe(503);
    expect(response.headers.get('retry-after'), url).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    expect(JSON.parse(text), url).toEqual({
      success: false,
      message: REQUEST_LIMIT_MESSAGES.serviceUnavailable,
      error: 'unavailable',
    });
  }
  const atRestart = await (async () => {
    at.answered503 = Date.now() - started;
    await cluster.restart();
    at.restarted = Date.now() - started;
    return handedOver(messageId);
  })();

  // The same processes, never restarted: the API answers again, and the worker finishes the send.
  await waitFor(
    async () => (await call('GET', '/messages?page=1&limit=10')).status,
    (status) => status === 200,
    { timeoutMs: 60_000, everyMs: 250, what: `the API to answer again (${api.output()})` },
  );
  at.apiBack = Date.now() - started;
  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'sent',
    { timeoutMs: 90_000, everyMs: 250, what: `the send to complete (${worker.output()})` },
  );
  at.sent = Date.now() - started;
  expect(api.alive(), api.output()).toBe(true);
  expect(worker.alive(), worker.output()).toBe(true);

  const { rows } = await sql<{ id: string; status: string }>`
    select id::text, status from delivery_reports where message_id = ${messageId}`.execute(ctx.ownerDb);
  expect(rows).toHaveLength(RECIPIENTS);
  expect(rows.filter((row) => row.status !== 'submitted')).toEqual([]);
  const { accepted, reoffered, acceptedTwice } = await readLedger(ledger);
  expect(acceptedTwice).toBe(0);
  expect(new Set(accepted)).toEqual(new Set(rows.map((row) => row.id)));
  // The counters agree with the rows.
  const totals = await sql<{ submitted: number }>`
    select submitted::int from message_delivery_totals where message_id = ${messageId}`.execute(ctx.ownerDb);
  expect(totals.rows[0].submitted).toBe(RECIPIENTS);
  console.info(
    `fault postgres kill: ${RECIPIENTS} sent, ${accepted.length} handed over (${atRestart} recorded when it came back), ` +
      `${acceptedTwice} accepted twice, ${reoffered.length} re-offered to the simulator (recognised), ` +
      `${RECIPIENTS - new Set(accepted).size} lost, final: ${rows.length} submitted; ms after the kill: ${JSON.stringify(at)}`,
  );
});
