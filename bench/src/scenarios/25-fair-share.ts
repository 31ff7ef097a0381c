import { sql } from 'kysely';
import { connectDatabase, type DatabaseHandle } from '../../../apps/server/src/db/database.ts';
import {
  type BulkSendFixture,
  postBulkSend,
  prepareBulkSend,
  sendToEveryone,
  signIn,
  waitForHandOver,
} from '../support/bulk-send-fixture.ts';
import { copyDatabase, dropDatabaseCopy } from '../support/database-copy.ts';
import { databaseNow, jobCounts, queueTimings, recipientTimings } from '../support/engine-timings.ts';
import { settleBefore } from '../support/machine-pace.ts';
import { percentileOf } from '../support/percentile.ts';
import type { BenchContext, BenchRow, BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';
import { prepareSmallCompanies, type SmallCompany } from '../support/small-companies-fixture.ts';

/**
 * Scenario fair-share (issue 35 item 8): one company's huge send does not hold back anyone else's.
 * A company's fan-out steps and hand-over batches are pg-boss jobs carrying the company as their
 * group, and a worker runs at most WORKER_CONCURRENCY_PER_COMPANY of one company's jobs at once
 * (docs/engine.md), so the other slots stay free for other companies. Measured through the real
 * server (one process, role both) and the simulator, in two parts, each with a server process and
 * a database of its own:
 *
 * 1. A small send beside a big one: company A sends to 1,000,000 subscribers; once A's hand-over
 *    has begun, company B sends to its one subscriber, and B's message must be delivered (status
 *    'delivered', the simulator's delivery report applied) within 5 s of B's POST.
 * 2. Many small sends at once: 100 companies with 5 subscribers each send 20 messages each, 2,000
 *    POSTs 64 at a time, and every one of them must be delivered, none refused.
 */

/** The simulator at an unlimited rate, never failing, reporting deliveries soon after hand-over. */
const SERVER_ENV = {
  SIMULATOR_MESSAGES_PER_SECOND: '100000000',
  SIMULATOR_DELIVERY_DELAY_MS: '200',
  SIMULATOR_FAIL_RATE: '0',
};

/** Part 1's promise: B's one-recipient send delivered this soon after its POST. */
const SMALL_BESIDE_BIG_TARGET_MS = 5_000;
/** How long part 1 waits for B's delivery before it reports it missing. */
const SMALL_BESIDE_BIG_TIMEOUT_MS = 120_000;
/** Part 2's POSTs in flight at once (a busy console's users, an integration's callers). */
const CLIENT_CONCURRENCY = 64;
const SUBSCRIBERS_EACH = 5;

const sizesOf = (quick: boolean) =>
  quick
    ? { bigSend: 30_000, companies: 20, sendsEach: 10, manySendsTimeoutMs: 120_000 }
    : { bigSend: 1_000_000, companies: 100, sendsEach: 20, manySendsTimeoutMs: 300_000 };

const count = (n: number) => n.toLocaleString('en-US');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A send's recipients so far, those handed over (no longer pending) and those still pending. */
async function progressOf(owner: DatabaseHandle, messageId: number) {
  const { rows } = await sql<{ handed_over: number; pending: number }>`
    select coalesce(total - pending, 0)::int as handed_over, coalesce(pending, 0)::int as pending
      from message_delivery_totals where message_id = ${messageId}`.execute(owner.db);
  return rows[0] ?? { handed_over: 0, pending: 0 };
}

async function messageStatusOf(owner: DatabaseHandle, messageId: number) {
  const { rows } = await sql<{ status: string }>`select status from messages where id = ${messageId}`.execute(
    owner.db,
  );
  return rows[0]?.status;
}

/** Runs `work` on each item, at most `concurrency` at once. */
async function eachAtMost<T>(
  items: T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<void>,
) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/**
 * Part 1. A's big send through the API; as soon as some of A's recipients are handed over, B's
 * one-recipient send, timed from its POST to its message's status 'delivered'.
 */
async function smallSendBesideBigOne(
  ctx: BenchContext,
  apiUrl: string,
  big: BulkSendFixture,
  small: SmallCompany,
): Promise<BenchRow[]> {
  const owner = big.owner;
  const bigToken = await signIn(apiUrl, big.adminEmail);
  const smallToken = await signIn(apiUrl, small.adminEmail);

  const bigStartedAt = performance.now();
  const { messageId: bigId } = await sendToEveryone(apiUrl, bigToken, big.serviceIds);
  const bigHandOver = waitForHandOver(owner, bigId, bigStartedAt, 20 * 60_000);
  bigHandOver.catch(() => {});

  let bigAtPost = await progressOf(owner, bigId);
  while (bigAtPost.handed_over === 0) {
    if (performance.now() - bigStartedAt > 20 * 60_000)
      throw new Error("A's hand-over did not begin in 20 min");
    await pause(20);
    bigAtPost = await progressOf(owner, bigId);
  }
  ctx.log(
    `A's hand-over began ${((performance.now() - bigStartedAt) / 1000).toFixed(1)} s after its POST; jobs: ${await jobCounts(owner)}`,
  );

  const smallSince = await databaseNow(owner);
  const postedAt = performance.now();
  const smallSend = await postBulkSend(
    apiUrl,
    smallToken,
    [small.serviceId],
    'Fair share: one recipient beside a big send',
  );
  const answeredMs = performance.now() - postedAt;
  if (!smallSend.messageId) throw new Error(`B's send was refused: ${smallSend.status} ${smallSend.answer}`);
  let status = await messageStatusOf(owner, smallSend.messageId);
  while (status !== 'delivered' && performance.now() - postedAt < SMALL_BESIDE_BIG_TIMEOUT_MS) {
    if (status === 'failed' || status === 'cancelled') break;
    await pause(20);
    status = await messageStatusOf(owner, smallSend.messageId);
  }
  const delivered = status === 'delivered';
  const deliveredMs = performance.now() - postedAt;
  const bigAtDelivery = await progressOf(owner, bigId);
  ctx.log(
    `B's send answered in ${answeredMs.toFixed(0)} ms, ${delivered ? 'delivered' : `still ${status}`} after ${deliveredMs.toFixed(0)} ms; ` +
      `A then ${count(bigAtDelivery.handed_over)} handed over, ${count(bigAtDelivery.pending)} pending; jobs: ${await jobCounts(owner)}`,
  );

  ctx.log(`B's jobs (p50 / p95): ${await queueTimings(owner, smallSince, small.companyId)}`);
  ctx.log(`B's message: ${await recipientTimings(owner, [smallSend.messageId])}`);

  const bigTimings = await bigHandOver;
  const work = `1 recipient beside ${count(big.recipients)} of another company`;
  return [
    {
      scenario: 'fair-share',
      measure:
        "a one-recipient send delivered after (POST to the message's status 'delivered'), beside a big send",
      work,
      figure: deliveredMs / 1000,
      unit: delivered ? 's' : `s (${status}, not delivered)`,
      baseline: { name: 'target', figure: SMALL_BESIDE_BIG_TARGET_MS / 1000 },
      target: `<= ${SMALL_BESIDE_BIG_TARGET_MS / 1000} s`,
      met: delivered && deliveredMs <= SMALL_BESIDE_BIG_TARGET_MS,
    },
    {
      scenario: 'fair-share',
      measure: "the big send's recipients handed over when the small send was posted",
      work,
      figure: bigAtPost.handed_over,
      unit: `of ${count(big.recipients)}`,
    },
    {
      scenario: 'fair-share',
      measure:
        "the big send's recipients handed over when the small send was delivered (all: the big send had finished)",
      work,
      figure: bigAtDelivery.handed_over,
      unit: `of ${count(big.recipients)}`,
    },
    {
      scenario: 'fair-share',
      measure: 'the big send all handed to the simulator after (from its POST)',
      work,
      figure: bigTimings.handedOverMs / 1000,
      unit: 's',
    },
  ];
}

type SmallSend = {
  company: SmallCompany;
  text: string;
  postedAt: number;
  answeredAt: number;
  status: number;
  messageId?: number;
  deliveredAt?: number;
};

/**
 * Part 2. Every company's admin signs in once; then `sendsEach` sends per company, interleaved
 * (every company's first, then every company's second, ...), CLIENT_CONCURRENCY POSTs in flight,
 * while the messages' statuses are polled until every accepted send is delivered.
 */
async function manySmallSends(
  ctx: BenchContext,
  apiUrl: string,
  owner: DatabaseHandle,
  companies: SmallCompany[],
  sendsEach: number,
  timeoutMs: number,
): Promise<BenchRow[]> {
  const since = await databaseNow(owner);
  const tokens = new Map<number, string>();
  await eachAtMost(companies, 4, async (company) => {
    tokens.set(company.companyId, await signIn(apiUrl, company.adminEmail));
  });

  const sends: SmallSend[] = [];
  for (let round = 1; round <= sendsEach; round++)
    for (const company of companies)
      sends.push({
        company,
        text: `Fair share: small send ${round} of company ${company.companyId}`,
        postedAt: 0,
        answeredAt: 0,
        status: 0,
      });

  const awaiting = new Map<number, SmallSend>();
  const refusalsLogged = new Set<number>();
  let posting = true;
  const startedAt = performance.now();
  const watching = (async () => {
    while ((posting || awaiting.size > 0) && performance.now() - startedAt < timeoutMs) {
      await pause(100);
      if (awaiting.size === 0) continue;
      const { rows } = await sql<{ id: number; status: string }>`
        select id::int, status from messages
         where id = any(${[...awaiting.keys()]}::bigint[]) and status in ('delivered', 'failed', 'cancelled')`.execute(
        owner.db,
      );
      const now = performance.now();
      for (const row of rows) {
        const send = awaiting.get(row.id);
        awaiting.delete(row.id);
        if (send && row.status === 'delivered') send.deliveredAt = now;
      }
    }
  })();

  await eachAtMost(sends, CLIENT_CONCURRENCY, async (send) => {
    send.postedAt = performance.now();
    const answer = await postBulkSend(
      apiUrl,
      tokens.get(send.company.companyId) as string,
      [send.company.serviceId],
      send.text,
    ).catch((error: Error) => ({ status: 0, messageId: undefined, answer: error.message }));
    send.answeredAt = performance.now();
    send.status = answer.status;
    send.messageId = answer.messageId;
    if (answer.messageId) awaiting.set(answer.messageId, send);
    else if (!refusalsLogged.has(answer.status)) {
      refusalsLogged.add(answer.status);
      ctx.log(`a send was answered ${answer.status || '(no answer)'}: ${answer.answer}`);
    }
  });
  posting = false;
  const postedMs = performance.now() - startedAt;
  await watching;
  const watchedUntil = performance.now();

  const refused = sends.filter((send) => send.status < 200 || send.status >= 300);
  const delivered = sends.filter((send) => send.deliveredAt !== undefined);
  const allDelivered = delivered.length === sends.length;
  // Not all delivered: the wait ended at the time-out, and the per-send figures are of those delivered.
  const endedAt = allDelivered
    ? Math.max(...delivered.map((send) => send.deliveredAt as number))
    : watchedUntil;
  const perSendUnit = allDelivered ? 'ms' : `ms (of the ${count(delivered.length)} delivered)`;
  const perSend = Float64Array.from(
    delivered.map((send) => (send.deliveredAt as number) - send.answeredAt),
  ).sort();
  const answers = Float64Array.from(sends.map((send) => send.answeredAt - send.postedAt)).sort();
  // Fair share within the crowd: each company's time from the first POST to its own last delivery.
  const companiesDone = Float64Array.from(
    companies
      .map((company) => sends.filter((send) => send.company === company))
      .filter((own) => own.every((send) => send.deliveredAt !== undefined))
      .map((own) => (Math.max(...own.map((send) => send.deliveredAt as number)) - startedAt) / 1000),
  ).sort();
  const spread =
    companiesDone.length > 0
      ? `, theirs last delivered after ${companiesDone[0].toFixed(1)}-${companiesDone[companiesDone.length - 1].toFixed(1)} s (median ${percentileOf(companiesDone, 0.5).toFixed(1)} s)`
      : '';
  ctx.log(
    `${count(sends.length)} POSTs answered within ${(postedMs / 1000).toFixed(1)} s; ${count(delivered.length)} delivered, ` +
      `${awaiting.size} still waiting, ${refused.length} refused; ${companiesDone.length} of ${companies.length} companies had every send delivered${spread}; ` +
      `jobs: ${await jobCounts(owner)}`,
  );

  ctx.log(`jobs (p50 / p95): ${await queueTimings(owner, since)}`);
  ctx.log(
    `messages: ${await recipientTimings(
      owner,
      delivered.map((send) => send.messageId as number),
    )}`,
  );

  const work = `${count(sends.length)} sends of ${SUBSCRIBERS_EACH} recipients (${sendsEach} each from ${companies.length} companies), ${CLIENT_CONCURRENCY} POSTs in flight`;
  return [
    {
      scenario: 'fair-share',
      measure: "small sends delivered (message status 'delivered')",
      work,
      figure: delivered.length,
      unit: `of ${count(sends.length)}`,
      target: 'every one',
      met: allDelivered,
    },
    {
      scenario: 'fair-share',
      measure: 'all small sends delivered after (first POST to last delivery)',
      work,
      figure: (endedAt - startedAt) / 1000,
      unit: allDelivered ? 's' : 's (timed out)',
    },
    {
      scenario: 'fair-share',
      measure: 'a small send: POST answered to delivered, p50',
      work,
      figure: percentileOf(perSend, 0.5),
      unit: perSendUnit,
    },
    {
      scenario: 'fair-share',
      measure: 'a small send: POST answered to delivered, p95',
      work,
      figure: percentileOf(perSend, 0.95),
      unit: perSendUnit,
    },
    {
      scenario: 'fair-share',
      measure: 'POST /messages/bulk/send answered, p95',
      work,
      figure: percentileOf(answers, 0.95),
      unit: 'ms',
    },
    {
      scenario: 'fair-share',
      measure: 'POSTs answered other than 2xx (or not at all)',
      work,
      figure: refused.length,
      unit: 'answers',
      target: '0',
      met: refused.length === 0,
    },
  ];
}

export const scenario: BenchScenario = {
  name: 'fair-share',
  description:
    "a one-recipient send beside another company's 1,000,000-recipient send, then 2,000 small sends from 100 companies, through the real server (role both) and the simulator",
  async run(ctx) {
    const sizes = sizesOf(ctx.quick);
    // The small sends get a database of their own, copied while this one is still empty: the big
    // send's million delivery reports are durable queue jobs, which a process on this database
    // would go on posting and applying long after part 1, and they are not part 2's measure.
    const crowdUrl = await copyDatabase(ctx.databaseUrl, 'crowd');
    const big = await prepareBulkSend(ctx.databaseUrl, sizes.bigSend);
    const crowdOwner = connectDatabase(crowdUrl, 4);
    try {
      const [solo] = await prepareSmallCompanies(big.owner.db, {
        count: 1,
        subscribersEach: 1,
        label: 'Solo',
      });
      const crowd = await prepareSmallCompanies(crowdOwner.db, {
        count: sizes.companies,
        subscribersEach: SUBSCRIBERS_EACH,
        label: 'Crowd',
      });
      ctx.log(
        `A: ${count(big.recipients)} subscribers; B: 1 subscriber; ${sizes.companies} companies of ${SUBSCRIBERS_EACH} subscribers`,
      );

      const settledBeforeBig = await settleBefore(ctx, 'fair-share', 'the big send');
      const first = await startServerProcess({ databaseUrl: ctx.databaseUrl, role: 'both', env: SERVER_ENV });
      const besideBig = await smallSendBesideBigOne(ctx, first.url as string, big, solo).finally(() =>
        first.stop(),
      );
      ctx.report(settledBeforeBig);
      for (const row of besideBig) ctx.report(row);

      const settledBeforeCrowd = await settleBefore(ctx, 'fair-share', 'the small sends');
      const second = await startServerProcess({ databaseUrl: crowdUrl, role: 'both', env: SERVER_ENV });
      const crowdRows = await manySmallSends(
        ctx,
        second.url as string,
        crowdOwner,
        crowd,
        sizes.sendsEach,
        sizes.manySendsTimeoutMs,
      ).finally(() => second.stop());
      ctx.report(settledBeforeCrowd);
      for (const row of crowdRows) ctx.report(row);
    } finally {
      await big.owner.close();
      await crowdOwner.close();
      await dropDatabaseCopy(crowdUrl);
    }
  },
};
