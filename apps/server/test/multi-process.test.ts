import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { regenerateCallbackTokens } from '../src/modules/callbacks/callback-tokens.ts';
import { createCompany, createUser, TEST_PASSWORD } from './support/factories.ts';
import { ENCRYPTION_KEY, messageRow, waitFor } from './support/messaging-factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, TEST_ENCRYPTION_KEY, type TestContext } from './support/test-app.ts';

// The deployment of docs/decisions/0010 without containers: two API processes and two worker
// processes (`node src/main.ts --role ...`, as compose.yaml starts them) on one fresh database.
// A user signs in on API 1 and sends through API 2; the workers share the send; the simulator's
// delivery reports go to API 1. Each worker's simulator keeps its own ledger of what it accepted,
// so the ledgers show both who did the work and that nobody was handed over twice.

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const SUBSCRIBERS = 3000;
// Three services over 1..3000 with overlaps: 1-1500, 1001-2500, 2001-3000 (3,500 subscriptions).
const SERVICE_RANGES = [
  [1, 1500],
  [1001, 2500],
  [2001, 3000],
] as const;

type Child = { child: ChildProcess; output: () => string };

let ctx: TestContext;
let dir: string;
const children: Child[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  dir = await mkdtemp(path.join(os.tmpdir(), 'sms-multi-'));
});

afterAll(async () => {
  await Promise.all(children.map(({ child }) => stopChild(child)));
  await ctx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function stopChild(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** `node src/main.ts --role <role>`; resolves with the line that says it is running. */
function spawnServer(role: 'api' | 'worker', env: Record<string, string>) {
  const child = spawn(process.execPath, [MAIN, '--role', role], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.config.databaseUrl!,
      DATABASE_APP_URL: ctx.config.databaseAppUrl!,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      // The same key in every process: a token issued by one API process is good at the other.
      JWT_SECRET: 'm'.repeat(48),
      SEED_DEMO: '0',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: '5',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const entry: Child = { child, output: () => output };
  children.push(entry);
  const ready = new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      output += `${line}\n`;
      const api = /SMS Console is running at (http:\/\/\S+)/.exec(line);
      if (api) resolve(api[1]);
      else if (line.includes('worker is running')) resolve('worker');
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`${role} process ended before it was ready (${signal ?? code}): ${output}`)),
    );
  });
  return { ...entry, ready };
}

async function call(base: string, method: string, url: string, token?: string, body?: unknown) {
  const response = await fetch(`${base}/api/v1${url}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text, json: () => JSON.parse(text) };
}

/** A company with callback URLs and a company admin; subscribers across three services, with overlaps. */
async function seedCompany() {
  const company = await createCompany(ctx.ownerDb);
  await ctx.ownerDb
    .updateTable('companies')
    .set({ messages_limit: 1_000_000, subscribers_limit: 1_000_000 })
    .where('id', '=', company.id)
    .execute();
  await regenerateCallbackTokens(ctx.ownerDb, company.id, ENCRYPTION_KEY);
  const admin = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
  await sql`
    insert into subscribers (company_id, msisdn, status)
    select ${company.id}, '+2547' || lpad(g::text, 8, '0'), 'active' from generate_series(1, ${SUBSCRIBERS}) g`.execute(
    ctx.ownerDb,
  );
  const services = [];
  for (const [from, to] of SERVICE_RANGES) {
    const service = await createService(ctx.ownerDb, company.id);
    await sql`
      insert into subscriptions (company_id, service_id, subscriber_id, status, source)
      select ${company.id}, ${service.id}, id, 'active', 'import' from subscribers
       where company_id = ${company.id} and msisdn between ${`+2547${String(from).padStart(8, '0')}`}
                                                      and ${`+2547${String(to).padStart(8, '0')}`}`.execute(
      ctx.ownerDb,
    );
    services.push(service);
  }
  await sql`analyze subscribers; analyze subscriptions`.execute(ctx.ownerDb);
  return { company, admin, services };
}

const acceptedIn = async (ledger: string) =>
  (await readFile(ledger, 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => line.startsWith('A '))
    .map((line) => line.slice(2));
const reofferedIn = async (ledger: string) =>
  (await readFile(ledger, 'utf8').catch(() => '')).split('\n').filter((line) => line.startsWith('R ')).length;

it('two API and two worker processes on one database: one send shared by the workers, everyone handed over once, the same reads on both APIs', {
  timeout: 150_000,
}, async () => {
  const { company, admin, services } = await seedCompany();

  const [api1, api2] = await Promise.all([
    spawnServer('api', { PUBLIC_URL: 'http://sms.test' }).ready,
    spawnServer('api', { PUBLIC_URL: 'http://sms.test' }).ready,
  ]);
  expect(api1).not.toBe(api2);
  const ledgers = [path.join(dir, 'worker-1.ledger'), path.join(dir, 'worker-2.ledger')];
  const workers = ledgers.map((ledger) =>
    spawnServer('worker', {
      // As compose.yaml: the workers' simulator posts delivery reports to an API process (API 1 here).
      PUBLIC_URL: api1,
      SIMULATOR_CALLBACK_URL: api1,
      SIMULATOR_LEDGER: ledger,
      SIMULATOR_MESSAGES_PER_SECOND: '1000000',
      SIMULATOR_BATCH_SIZE: '100',
      SIMULATOR_DELIVERY_DELAY_MS: '50',
      SIMULATOR_FAIL_RATE: '0',
      FANOUT_BATCH_SIZE: '500',
      WORKER_CONCURRENCY: '2',
    }),
  );
  await Promise.all(workers.map((worker) => worker.ready));

  // Signed in on API 1; the session is good on API 2 (JWT), and its refresh token too (a row).
  const login = await call(api1, 'POST', '/auth/login', undefined, {
    email: admin.email,
    password: TEST_PASSWORD,
  });
  expect(login.status, login.body).toBe(200);
  const { accessToken, refreshToken } = login.json().data;
  const refreshed = await call(api2, 'POST', '/auth/refresh', undefined, { refreshToken });
  expect(refreshed.status, refreshed.body).toBe(200);

  const sent = await call(api2, 'POST', '/messages/bulk/send', accessToken, {
    serviceIds: services.map((service) => service.id),
    message: 'Two APIs, two workers',
  });
  expect(sent.status, sent.body).toBe(201);
  expect(sent.json().data.recipientCount).toBe(SUBSCRIBERS);
  const messageId: number = sent.json().data.message.id;

  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'delivered',
    {
      timeoutMs: 100_000,
      everyMs: 200,
      what: `the send to be delivered (${children.map((entry) => entry.output()).join(' | ')})`,
    },
  );

  const { rows } = await sql<{ id: string; status: string; attempts: number }>`
    select id::text, status, attempts from delivery_reports where company_id = ${company.id} and message_id = ${messageId}`.execute(
    ctx.ownerDb,
  );
  expect(rows).toHaveLength(SUBSCRIBERS);
  expect(rows.filter((row) => row.attempts !== 1 || row.status !== 'delivered')).toEqual([]);

  // Each worker's simulator accepted part of the send; together all of it, and no one twice.
  const [first, second] = await Promise.all(ledgers.map(acceptedIn));
  expect(first.length).toBeGreaterThan(0);
  expect(second.length).toBeGreaterThan(0);
  const both = [...first, ...second];
  expect(new Set(both).size).toBe(both.length);
  expect(new Set(both)).toEqual(new Set(rows.map((row) => row.id)));
  expect((await reofferedIn(ledgers[0])) + (await reofferedIn(ledgers[1]))).toBe(0);
  console.info(
    `multi-process: ${SUBSCRIBERS} recipients, worker 1 handed over ${first.length}, worker 2 ${second.length}`,
  );

  // The same reads through either API process.
  for (const url of [
    `/messages/${messageId}/details`,
    `/messages/${messageId}/job-status`,
    '/messages?page=1&limit=10',
    '/subscriptions/subscribers?page=1&limit=10',
  ]) {
    const [one, two] = await Promise.all([
      call(api1, 'GET', url, accessToken),
      call(api2, 'GET', url, accessToken),
    ]);
    expect(one.status, `${url}: ${one.body}`).toBe(200);
    expect(two.json(), url).toEqual(one.json());
  }
  const details = (await call(api1, 'GET', `/messages/${messageId}/details`, accessToken)).json();
  expect(JSON.stringify(details)).toContain('"delivered"');
});
