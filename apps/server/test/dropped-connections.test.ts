import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { APP_ROLE } from '../src/db/database.ts';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../src/plugins/database-unavailable.ts';
import { bearer, createCompany, createUser, signIn } from './support/factories.ts';
import { acceptedSendToGeneratedSubscribers, messageRow, waitFor } from './support/messaging-factories.ts';
import { createService } from './support/services-factories.ts';
import { createTestContext, TEST_ENCRYPTION_KEY, type TestContext } from './support/test-app.ts';

// A database connection lost under the application (a postmaster restart, a failover, an admin's
// pg_terminate_backend) fails the unit of work that was using it, never the process. Real server
// processes (`node src/main.ts --role ...`), since an unhandled 'error' ends exactly such a process.

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

let ctx: TestContext;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  dir = await mkdtemp(path.join(os.tmpdir(), 'sms-dropped-'));
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await ctx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `node src/main.ts --role <role>` on the test's database; `ready` resolves with its URL (or 'worker'). */
function spawnServer(role: 'api' | 'worker', env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, '--role', role], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.config.databaseUrl,
      DATABASE_APP_URL: ctx.config.databaseAppUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      // The test signs in on its own app: its tokens are good here too.
      JWT_SECRET: ctx.config.jwtSecret,
      SEED_DEMO: '0',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      const api = /SMS Console is running at (http:\/\/\S+)/.exec(line);
      if (api) resolve(api[1]);
      else if (line.includes('worker is running')) resolve('worker');
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`${role} process ended before it was ready (${signal ?? code}): ${output}`)),
    );
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  return { child, ready, alive, output: () => output };
}

/** Ends every backend of the application's role, as an administrator (or a failover) would. */
async function terminateAppBackends() {
  const { rows } = await sql<{ ended: boolean }>`
    select pg_terminate_backend(pid) as ended from pg_stat_activity
     where usename = ${APP_ROLE} and datname = current_database() and pid <> pg_backend_pid()`.execute(
    ctx.ownerDb,
  );
  return rows.length;
}

it('a connection ended under a request in a transaction: that request answers 503, the API lives on and answers the next', {
  timeout: 60_000,
}, async () => {
  const company = await createCompany(ctx.ownerDb);
  const admin = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: company.id });
  const headers = {
    ...bearer((await signIn(ctx.app, admin.email)).accessToken),
    'content-type': 'application/json',
  };
  const service = await createService(ctx.ownerDb, company.id);
  const api = spawnServer('api');
  const base = await api.ready;
  const subscribe = (phoneNumber: string) =>
    fetch(`${base}/api/v1/services/${service.id}/subscribe`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ phoneNumber }),
    });

  // The subscribe's insert waits on the owner's lock, inside the request's transaction, on a
  // connection checked out of the API's pool: then that connection is ended.
  const locker = await ctx.ownerPool.connect();
  let answer: Response;
  try {
    await locker.query('begin; lock table subscribers in exclusive mode');
    const pending = subscribe('+254711000001');
    await waitFor(
      async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                                    where usename = ${APP_ROLE} and wait_event_type = 'Lock'`.execute(
            ctx.ownerDb,
          )
        ).rows[0].n,
      (waiting) => waiting > 0,
      { what: 'the request to wait on the lock' },
    );
    expect(await terminateAppBackends()).toBeGreaterThan(0);
    answer = await pending;
  } finally {
    await locker.query('rollback');
    locker.release();
  }
  const body = await answer.text();
  expect(answer.status, body).toBe(503);
  expect(answer.headers.get('retry-after')).toBe(String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  expect(JSON.parse(body)).toEqual({
    success: false,
    message: REQUEST_LIMIT_MESSAGES.serviceUnavailable,
    error: 'unavailable',
  });

  const next = await subscribe('+254711000002');
  expect(next.status, await next.text()).toBe(200);
  expect(api.alive(), api.output()).toBe(true);
});

it('connections ended under a worker mid-send, three times: the send completes, everyone handed over exactly once, the worker lives on', {
  timeout: 120_000,
}, async () => {
  const recipients = 20_000;
  const { messageId } = await acceptedSendToGeneratedSubscribers(
    ctx,
    recipients,
    'Survive a dropped connection',
  );
  const handedOver = async () =>
    (
      await sql<{ n: number }>`select count(*)::int as n from delivery_reports
                                where message_id = ${messageId} and status <> 'pending'`.execute(ctx.ownerDb)
    ).rows[0].n;

  const ledger = path.join(dir, 'simulator-ledger.txt');
  const worker = spawnServer('worker', {
    WORKER_CONCURRENCY: '4',
    // A run cut off by a dropped connection may leave its claim: taken up again after 5 s, not 60.
    SEND_CLAIM_SECONDS: '5',
    FANOUT_BATCH_SIZE: '500',
    SIMULATOR_BATCH_SIZE: '200',
    SIMULATOR_MESSAGES_PER_SECOND: '1000000',
    SIMULATOR_LEDGER: ledger,
  });
  await worker.ready;
  for (const atLeast of [2000, 6000, 12_000]) {
    await waitFor(handedOver, (n) => n >= atLeast || !worker.alive(), {
      timeoutMs: 60_000,
      everyMs: 10,
      what: `${atLeast} handed over (alive: ${worker.alive()}; ${worker.output()})`,
    });
    expect(worker.alive(), worker.output()).toBe(true);
    await terminateAppBackends();
  }
  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'sent' || !worker.alive(),
    { timeoutMs: 90_000, everyMs: 100, what: `the send to complete (${worker.output()})` },
  );
  expect(worker.alive(), worker.output()).toBe(true);
  expect((await messageRow(ctx.ownerDb, messageId))?.status).toBe('sent');

  const { rows } = await sql<{ id: number; status: string }>`
    select id, status from delivery_reports where message_id = ${messageId}`.execute(ctx.ownerDb);
  expect(rows).toHaveLength(recipients);
  expect(rows.filter((row) => row.status !== 'submitted')).toEqual([]);
  const accepted = (await readFile(ledger, 'utf8'))
    .split('\n')
    .filter((line) => line.startsWith('A '))
    .map((line) => line.slice(2));
  expect(new Set(accepted).size).toBe(accepted.length);
  expect(new Set(accepted)).toEqual(new Set(rows.map((row) => String(row.id))));
});
