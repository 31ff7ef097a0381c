import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createSendingCompany,
  messageRow,
  numbers,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { kill, spawnServer, stopAll } from './support/spawned-server.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// A message scheduled through a running server, which is then SIGKILLed: nothing runs when the
// message falls due. The next start of the server sends it, after its time, once.

const RECIPIENTS = 30;
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await stopAll();
  await ctx?.close();
});

it('a scheduled message that fell due while everything was down is sent on the next start', {
  timeout: 90_000,
}, async () => {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, numbers(57, 0, RECIPIENTS));
  const database = { databaseUrl: ctx.config.databaseUrl!, databaseAppUrl: ctx.config.databaseAppUrl! };
  const env = {
    JWT_SECRET: ctx.config.jwtSecret!,
    SIMULATOR_DELIVERY_DELAY_MS: '10',
    SIMULATOR_FAIL_RATE: '0',
  };

  const first = spawnServer('both', database, env);
  const base = await first.ready;
  // Far enough ahead that the kill surely comes first, on a busy machine too.
  const scheduledAt = new Date(Date.now() + 4000);
  const response = await fetch(`${base}/api/v1/messages/bulk/send`, {
    method: 'POST',
    headers: { ...tenant.admin, 'content-type': 'application/json' },
    body: JSON.stringify({
      serviceIds: [service.id],
      message: 'Due while down',
      scheduleType: 'scheduled',
      scheduledAt: scheduledAt.toISOString(),
    }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  const id: number = ((await response.json()) as { data: { message: { id: number } } }).data.message.id;
  await kill(first);
  expect((await messageRow(ctx.ownerDb, id))?.status).toBe('scheduled');

  // Down until well past the due time (the database's clock is the queue's).
  await waitFor(
    async () =>
      (
        await sql<{
          due: boolean;
        }>`select now() > ${scheduledAt}::timestamptz + interval '1 second' as due`.execute(ctx.ownerDb)
      ).rows[0].due,
    (due) => due,
    { timeoutMs: 30_000, everyMs: 200, what: 'the due time to pass' },
  );
  expect((await messageRow(ctx.ownerDb, id))?.status).toBe('scheduled');

  const second = spawnServer('both', database, env);
  await second.ready;
  const row = await waitFor(
    () => messageRow(ctx.ownerDb, id),
    (found) => found?.status === 'delivered',
    { timeoutMs: 45_000, everyMs: 100, what: `the missed message to be sent (${second.output()})` },
  );
  const { rows } = await sql<{ recipients: number; delivered: number; started_at: Date }>`
    select count(*)::int as recipients, count(*) filter (where d.status = 'delivered')::int as delivered,
           min(s.started_at) as started_at
      from delivery_reports d join message_sends s on s.message_id = d.message_id
     where d.message_id = ${id}`.execute(ctx.ownerDb);
  expect(rows[0]).toMatchObject({ recipients: RECIPIENTS, delivered: RECIPIENTS });
  expect(rows[0].started_at.getTime()).toBeGreaterThanOrEqual(scheduledAt.getTime());
  console.info(
    `fault scheduled while down: 1 message of ${RECIPIENTS} recipients due while down, sent on the next start ` +
      `(${rows[0].recipients} handed over once, ${rows[0].delivered} delivered, status ${row?.status})`,
  );
});
