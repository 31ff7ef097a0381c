import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acceptedSendToGeneratedSubscribers, messageRow, waitFor } from './support/messaging-factories.ts';
import { createTestContext, TEST_ENCRYPTION_KEY, type TestContext } from './support/test-app.ts';

const RECIPIENTS = 50_000;
const LANES = 2;
const BATCH = 500;
const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

let ctx: TestContext;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  dir = await mkdtemp(path.join(os.tmpdir(), 'sms-crash-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await ctx?.close();
  await rm(dir, { recursive: true, force: true });
});

/** `node src/main.ts --role worker` on the test's database, as a real deployment starts it. */
function spawnWorker(ledger: string) {
  const child = spawn(process.execPath, [MAIN, '--role', 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.config.databaseUrl,
      DATABASE_APP_URL: ctx.config.databaseAppUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      JWT_SECRET: 'j'.repeat(40),
      SEED_DEMO: '0',
      LOG_LEVEL: 'warn',
      WORKER_CONCURRENCY: String(LANES),
      // The killed worker's claims are taken up again after 5 s, not 60.
      SEND_CLAIM_SECONDS: '5',
      FANOUT_BATCH_SIZE: '5000',
      SIMULATOR_BATCH_SIZE: String(BATCH),
      SIMULATOR_MESSAGES_PER_SECOND: '1000000',
      SIMULATOR_LEDGER: ledger,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  children.push(child);
  return { child, errors: () => errors };
}

const handedOver = async (messageId: number) =>
  (
    await sql<{ n: number }>`select count(*)::int as n from delivery_reports
                              where message_id = ${messageId} and status <> 'pending'`.execute(ctx.ownerDb)
  ).rows[0].n;

it('SIGKILL of a worker mid-send: the restarted worker completes it, everyone handed over once, re-offers only from the batches in flight', {
  timeout: 120_000,
}, async () => {
  // A company without a DLR callback URL: the simulator posts no reports, the hand-over is what counts.
  const { messageId } = await acceptedSendToGeneratedSubscribers(ctx, RECIPIENTS, 'Survive a crash');
  const ledger = path.join(dir, 'simulator-ledger.txt');

  const first = spawnWorker(ledger);
  await waitFor(
    () => handedOver(messageId),
    (n) => n >= 8000,
    { timeoutMs: 60_000, everyMs: 10, what: `hand-over to start (${first.errors()})` },
  );
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  const atKill = await handedOver(messageId);
  expect(atKill).toBeLessThan(RECIPIENTS);

  const second = spawnWorker(ledger);
  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'sent',
    { timeoutMs: 90_000, everyMs: 100, what: `the send to complete (${second.errors()})` },
  );
  second.child.kill('SIGTERM');

  const rows = await sql<{ id: number; status: string; attempts: number; gateway_message_id: string }>`
      select id, status, attempts, gateway_message_id from delivery_reports where message_id = ${messageId}`.execute(
    ctx.ownerDb,
  );
  expect(rows.rows).toHaveLength(RECIPIENTS);
  expect(rows.rows.every((row) => row.status === 'submitted' && row.gateway_message_id)).toBe(true);

  const lines = (await readFile(ledger, 'utf8')).split('\n').filter(Boolean);
  const accepted = lines.filter((line) => line.startsWith('A ')).map((line) => line.slice(2));
  const reoffered = lines.filter((line) => line.startsWith('R ')).map((line) => line.slice(2));
  // Every recipient was handed over at least once, and none was accepted twice.
  expect(new Set(accepted).size).toBe(accepted.length);
  expect(new Set(accepted)).toEqual(new Set(rows.rows.map((row) => String(row.id))));
  // Re-offers are the batches that were in flight when the worker died: at most one per lane.
  expect(reoffered.length).toBeLessThanOrEqual(LANES * BATCH);
  expect(new Set(reoffered).size).toBe(reoffered.length);
  // A re-offered recipient's first hand-over was never recorded (its batch rolled back).
  expect(rows.rows.every((row) => row.attempts === 1)).toBe(true);
  console.info(
    `crash test: ${atKill} handed over at the kill, ${reoffered.length} re-offered after the restart (at most ${LANES * BATCH})`,
  );
});
