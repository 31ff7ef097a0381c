import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { acceptedSendToGeneratedSubscribers, messageRow, waitFor } from './support/messaging-factories.ts';
import { kill, readLedger, spawnServer, stopAll } from './support/spawned-server.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// SIGKILL of the only worker while a 10,000-recipient send is still being fanned out (a step's
// transaction open, the step's job active in the queue): a worker started after it finishes the
// fan-out and the hand-over by itself. The SIGKILL during the hand-over is messaging-crash.test.ts.

const RECIPIENTS = 10_000;
let ctx: TestContext;
let dir: string;

beforeAll(async () => {
  ctx = await createTestContext();
  dir = await mkdtemp(path.join(os.tmpdir(), 'sms-fault-fanout-'));
});
afterAll(async () => {
  await stopAll();
  await ctx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const sendOf = async (messageId: number) =>
  (
    await sql<{ state: string; cursor: string; recipients: number }>`
      select state, fanout_cursor::text as cursor, recipients from message_sends where message_id = ${messageId}`.execute(
      ctx.ownerDb,
    )
  ).rows[0];

it('SIGKILL of the worker mid-fan-out: the next worker completes the send, every recipient written and handed over exactly once', {
  timeout: 120_000,
}, async () => {
  const { messageId } = await acceptedSendToGeneratedSubscribers(ctx, RECIPIENTS, 'Survive a fan-out crash');
  const ledger = path.join(dir, 'ledger.txt');
  const env = {
    WORKER_CONCURRENCY: '2',
    SEND_CLAIM_SECONDS: '5',
    // 50 steps of 200: the kill lands between two of them or inside one.
    FANOUT_BATCH_SIZE: '200',
    SIMULATOR_BATCH_SIZE: '500',
    SIMULATOR_MESSAGES_PER_SECOND: '1000000',
    SIMULATOR_LEDGER: ledger,
  };
  const first = spawnServer('worker', ctx.config as never, env);
  await first.ready;
  const atKill = await waitFor(
    () => sendOf(messageId),
    (send) => send?.state === 'fanout' && Number(send.cursor) >= 1000,
    { timeoutMs: 60_000, everyMs: 5, what: `the fan-out to be under way (${first.output()})` },
  );
  await kill(first);
  const afterKill = await sendOf(messageId);
  expect(afterKill.state, 'killed during the fan-out').toBe('fanout');

  const second = spawnServer('worker', ctx.config as never, env);
  await second.ready;
  await waitFor(
    () => messageRow(ctx.ownerDb, messageId),
    (row) => row?.status === 'sent',
    { timeoutMs: 90_000, everyMs: 100, what: `the send to complete (${second.output()})` },
  );
  await kill(second, 'SIGTERM');

  const { rows } = await sql<{ written: number; subscribers: number; submitted: number; attempts: number }>`
    select count(*)::int as written, count(distinct subscriber_id)::int as subscribers,
           count(*) filter (where status = 'submitted')::int as submitted, max(attempts)::int as attempts
      from delivery_reports where message_id = ${messageId}`.execute(ctx.ownerDb);
  // Each subscriber became one recipient: no step written twice, none skipped.
  expect(rows[0]).toEqual({
    written: RECIPIENTS,
    subscribers: RECIPIENTS,
    submitted: RECIPIENTS,
    attempts: 1,
  });
  const { accepted, reoffered, acceptedTwice } = await readLedger(ledger);
  expect(acceptedTwice).toBe(0);
  expect(accepted).toHaveLength(RECIPIENTS);
  // The kill came before any hand-over: nothing was offered twice.
  expect(reoffered).toHaveLength(0);
  console.info(
    `fault fan-out kill: killed at cursor ${atKill.cursor} (${afterKill.recipients} written); ` +
      `${RECIPIENTS} sent, ${accepted.length} handed over, ${acceptedTwice} accepted twice, ${reoffered.length} re-offered, ` +
      `${RECIPIENTS - accepted.length} lost, final: ${rows[0].submitted} submitted`,
  );
});
