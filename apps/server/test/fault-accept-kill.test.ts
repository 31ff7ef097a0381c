import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { APP_ROLE } from '../src/db/database.ts';
import { bearer, createUser, signIn } from './support/factories.ts';
import {
  createSendingCompany,
  messagesUsed,
  numbers,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { kill, spawnServer, stopAll } from './support/spawned-server.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// SIGKILL of the API process while bulk sends are between "accepted" and "answered": in its
// transaction, committed but not answered, or still waiting for a connection. Each send is then
// entirely there (message, its send row, its queue job, its usage, its Idempotency-Key answer) or
// not at all; the client's retry with the same key makes exactly one of each, and every one sends.

const SENDS = 24;
const RECIPIENTS = 40;
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await stopAll();
  await ctx?.close();
});

type Attempt = { key: string; text: string; answered: number | 'no answer'; body?: string };

it('SIGKILL of the API between accepting a send and answering: each send is all there or not at all, and a retry with its key sends it once', {
  timeout: 120_000,
}, async () => {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, numbers(55, 0, RECIPIENTS));
  const admin = await createUser(ctx.ownerDb, { role: 'company_admin', companyId: tenant.company.id });
  const token = (await signIn(ctx.app, admin.email)).accessToken;
  const database = { databaseUrl: ctx.config.databaseUrl!, databaseAppUrl: ctx.config.databaseAppUrl! };
  const startApi = () =>
    spawnServer('api', database, {
      JWT_SECRET: ctx.config.jwtSecret!,
      DATABASE_POOL_SIZE: '4',
      // Answers are what is tested here, not the load shedding of a busy two-core test machine.
      MAX_EVENT_LOOP_DELAY_MS: '0',
    });
  const post = (base: string, attempt: Attempt) =>
    fetch(`${base}/api/v1/messages/bulk/send`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', 'idempotency-key': attempt.key },
      body: JSON.stringify({ serviceIds: [service.id], message: attempt.text }),
    });
  const attempts: Attempt[] = Array.from({ length: SENDS }, (_, i) => ({
    key: `fault-accept-${i}`,
    text: `Accepted or not ${i}`,
    answered: 'no answer',
  }));
  const fire = (base: string, batch: Attempt[]) =>
    batch.map((attempt) =>
      post(base, attempt).then(
        async (response) => {
          attempt.answered = response.status;
          attempt.body = await response.text().catch(() => '');
        },
        () => {},
      ),
    );

  // Round 1: the sends' transactions wait on a lock held on the queue's job table, after their
  // message rows are written: the kill lands inside them.
  const first = startApi();
  const firstBase = await first.ready;
  const locker = await ctx.ownerPool.connect();
  try {
    await locker.query('begin; lock table pgboss.job in exclusive mode');
    const inFlight = fire(firstBase, attempts.slice(0, SENDS / 2));
    await waitFor(
      async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
                                    where usename = ${APP_ROLE} and wait_event_type = 'Lock'`.execute(
            ctx.ownerDb,
          )
        ).rows[0].n,
      (waiting) => waiting >= 3,
      { what: 'sends to wait inside their transactions' },
    );
    await kill(first);
    await Promise.all(inFlight);
  } finally {
    await locker.query('rollback');
    locker.release();
  }

  // Round 2: no lock; the kill comes as the first answer arrives, the others anywhere on their way.
  const second = startApi();
  const secondBase = await second.ready;
  const rest = attempts.slice(SENDS / 2);
  const inFlight = fire(secondBase, rest);
  await new Promise<void>((resolve) => {
    for (const [i, sent] of inFlight.entries()) void sent.then(() => rest[i].answered === 201 && resolve());
    void Promise.all(inFlight).then(() => resolve());
  });
  await kill(second);

  // Every answer that came was an acceptance: none busy (a fresh process once stalled its first sends).
  expect(attempts.filter((a) => a.answered !== 201 && a.answered !== 'no answer')).toEqual([]);
  const state = await sendsAsStored(tenant.company.id);
  const stored = new Map(state.map((row) => [row.content, row]));
  for (const attempt of attempts) {
    const row = stored.get(attempt.text);
    // A send answered 201 is there; whatever was not answered is there entirely or not at all.
    if (attempt.answered === 201) expect(row, attempt.text).toBeDefined();
    if (row)
      expect(row, attempt.text).toEqual({
        content: attempt.text,
        messages: 1,
        status: 'queued',
        sends: 1,
        jobs: 1,
        answers: 1,
      });
  }
  const beforeRetry = state.length;
  // The usage reserved is exactly the stored sends'.
  expect(await messagesUsed(ctx.ownerDb, tenant.company.id)).toBe(beforeRetry * RECIPIENTS);

  // The client retries every send with its key on a new API process: one of each, no doubles.
  const third = startApi();
  const thirdBase = await third.ready;
  for (const attempt of attempts) {
    const response = await post(thirdBase, attempt);
    expect(response.status, `${attempt.text}: ${await response.clone().text()}`).toBe(201);
  }
  const after = await sendsAsStored(tenant.company.id);
  expect(after).toHaveLength(SENDS);
  expect(
    after.every((row) => row.messages === 1 && row.sends === 1 && row.jobs === 1 && row.answers === 1),
  ).toBe(true);
  expect(await messagesUsed(ctx.ownerDb, tenant.company.id)).toBe(SENDS * RECIPIENTS);

  // And each is a working send: a worker hands every one over.
  await startWorker(ctx);
  const handedOver = await waitFor(
    async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from delivery_reports
                                  where company_id = ${tenant.company.id} and status <> 'pending'`.execute(
          ctx.ownerDb,
        )
      ).rows[0].n,
    (n) => n === SENDS * RECIPIENTS,
    { timeoutMs: 60_000, what: 'every send handed over' },
  );
  const answered = attempts.filter((attempt) => attempt.answered === 201).length;
  console.info(
    `fault accept kill: ${SENDS} sends posted, ${answered} answered before the kills, ${beforeRetry} stored ` +
      `(${beforeRetry - answered} committed unanswered), ${SENDS - beforeRetry} not stored; after the retries ${after.length} ` +
      `sends, 0 doubled, ${handedOver} recipients handed over of ${SENDS * RECIPIENTS}`,
  );
});

/** Per message text: how many messages, send rows, queue jobs and stored Idempotency-Key answers exist. */
async function sendsAsStored(companyId: number) {
  const { rows } = await sql<{
    content: string;
    messages: number;
    status: string;
    sends: number;
    jobs: number;
    answers: number;
  }>`
    select m.content, count(*) over (partition by m.content)::int as messages, m.status,
           (select count(*)::int from message_sends s where s.company_id = m.company_id and s.message_id = m.id) as sends,
           (select count(*)::int from pgboss.job j where j.name = 'send-start' and j.id::text = m.queue_job_id) as jobs,
           (select count(*)::int from idempotency_keys k
             where k.company_id = m.company_id and k.status_code = 201
               and (k.response -> 'data' -> 'message' ->> 'id')::int = m.id) as answers
      from messages m where m.company_id = ${companyId} order by m.id`.execute(ctx.ownerDb);
  return rows;
}
