import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acceptedSendToGeneratedSubscribers, messageRow, waitFor } from './support/messaging-factories.ts';
import { kill, readLedger, spawnServer, stopAll } from './support/spawned-server.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// SIGTERM to a worker in the middle of a send's hand-over (a deployment's rolling restart): it
// exits 0 having recorded every offer it made and released every batch it held, so the next
// worker carries on at once (not after the claims' 60 s) and offers nobody twice.

const RECIPIENTS = 6000;
let ctx: TestContext;
let dir: string;

beforeAll(async () => {
  ctx = await createTestContext();
  dir = await mkdtemp(path.join(os.tmpdir(), 'sms-fault-sigterm-'));
});
afterAll(async () => {
  await stopAll();
  await ctx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const counts = async (messageId: number) =>
  (
    await sql<{ handedOver: number; claims: number }>`
      select (select count(*)::int from delivery_reports where message_id = ${messageId} and status <> 'pending') as "handedOver",
             (select count(*)::int from hand_over_claims where message_id = ${messageId}) as claims`.execute(
      ctx.ownerDb,
    )
  ).rows[0];

it('SIGTERM to a worker mid-send: it exits 0 with its batches recorded and released; the next worker completes the send, nobody offered twice', {
  timeout: 120_000,
}, async () => {
  const { messageId } = await acceptedSendToGeneratedSubscribers(
    ctx,
    RECIPIENTS,
    'Survive a rolling restart',
  );
  const ledger = path.join(dir, 'ledger.txt');
  const env = {
    WORKER_CONCURRENCY: '4',
    // The claims' own length: a batch the stopped worker did not release would hold the send a minute.
    SEND_CLAIM_SECONDS: '60',
    FANOUT_BATCH_SIZE: '5000',
    SIMULATOR_BATCH_SIZE: '250',
    // Slow enough that batches are mid-way when the signal comes (4 s for everyone).
    SIMULATOR_MESSAGES_PER_SECOND: '1500',
    SIMULATOR_LEDGER: ledger,
  };
  const first = spawnServer('worker', ctx.config as never, env);
  await first.ready;
  await waitFor(
    () => counts(messageId),
    (now) => now.handedOver >= 1500 && now.claims > 0,
    { timeoutMs: 60_000, everyMs: 20, what: `batches to be under way (${first.output()})` },
  );
  const ended = await kill(first, 'SIGTERM');
  expect(ended, first.output()).toEqual({ code: 0, signal: null });
  const atStop = await counts(messageId);
  // Every batch released, and the send not finished: the next worker has work to do.
  expect(atStop.claims).toBe(0);
  expect(atStop.handedOver).toBeLessThan(RECIPIENTS);
  const afterStop = await readLedger(ledger);
  // Everything the simulator accepted was recorded before the exit.
  expect(afterStop.accepted.length).toBe(atStop.handedOver);

  const second = spawnServer('worker', ctx.config as never, env);
  await second.ready;
  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'sent',
    // Well under the claims' 60 s: the stopped worker's batches were free at once.
    { timeoutMs: 40_000, everyMs: 100, what: `the send to complete (${second.output()})` },
  );
  await kill(second, 'SIGTERM');

  const { rows } = await sql<{ id: string; status: string; attempts: number }>`
    select id::text, status, attempts from delivery_reports where message_id = ${messageId}`.execute(
    ctx.ownerDb,
  );
  expect(rows.filter((row) => row.status !== 'submitted' || row.attempts !== 1)).toEqual([]);
  const { accepted, reoffered, acceptedTwice } = await readLedger(ledger);
  expect(acceptedTwice).toBe(0);
  expect(reoffered).toHaveLength(0);
  expect(new Set(accepted)).toEqual(new Set(rows.map((row) => row.id)));
  console.info(
    `fault worker SIGTERM: ${RECIPIENTS} sent, ${atStop.handedOver} handed over by the stopped worker (exit 0, ` +
      `${atStop.claims} claims left), ${accepted.length} handed over in all, ${acceptedTwice} duplicates, ` +
      `${reoffered.length} re-offered, ${RECIPIENTS - accepted.length} lost, final: ${rows.length} submitted`,
  );
});
