import pg from 'pg';
import { signIn } from '../support/bulk-send-fixture.ts';
import { type ConcurrentGetsResult, driveConcurrentGets } from '../support/concurrent-gets.ts';
import {
  CONSOLE_READS_PASSWORD,
  type ConsoleReadsFixture,
  type ConsoleReadsSize,
  loadConsoleReads,
  rareSearchText,
} from '../support/console-reads-fixture.ts';
import {
  machinePaceRows,
  measureCorePace,
  measureMachinePace,
  settleBefore,
} from '../support/machine-pace.ts';
import type { BenchContext, BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';

const CLIENTS = 50;
/**
 * Seconds each read is measured in a round (after its warm-up, below). 4 s held 4,000-8,000 requests,
 * so one stall of the machine of a few hundred ms moved a p95 by 10-30 ms between runs of the same
 * code (ADR 0012, 2026-11-24); 10 s made the p95 the read's own, when the machine kept its pace.
 */
const SECONDS_PER_READ = 8;
/**
 * Every read is measured once in each round, and its row is the round with the median p95. The host
 * has slow spells of minutes (ADR 0015, 28 November): measured once, a read that fell into one missed
 * by 10-30%, a different read in each full run. Rounds minutes apart put a spell into one of a read's
 * three measurements, and the median leaves it out; the row lists all three p95s.
 */
const ROUNDS = 3;
/**
 * Seconds each read runs before it is measured. After 1 s the first 1-2 s measured were still the
 * read's start, not its steady state (answers per 0.5 s of a details page: 398, 428, 476, 515, then
 * 576-712; medians 66, 55, 54, 48, then 32-42 ms): the first requests of a read read its page
 * anchors, prepare its statements on each connection, and run its code before V8 has optimised it.
 * After 3 s the first half-second measured is like the last (ADR 0012, 27 November, afternoon).
 */
const WARM_UP_SECONDS = 3;
/** p95 target for every read: lists, details, searches, dashboard and reports (issue 35). */
const TARGET_P95_MS = 100;

type Read = {
  measure: string;
  who: 'admin' | 'platform';
  pathOf: (i: number) => string;
};

export const scenario: BenchScenario = {
  name: 'console-reads',
  description:
    "the console's reads at 50 concurrent clients (API process, sms_app under row-level security) over 1,000,000 subscribers, 1,000,000 messages and 10,000,000 delivery reports",
  async run(ctx) {
    // CONSOLE_READS_SCALE=0.1 builds a tenth of the full data: quicker to load while tuning a read.
    const scale = Number(process.env.CONSOLE_READS_SCALE ?? 1);
    const size = ctx.quick
      ? { subscribers: 10_000, messages: 10_000, deliveryReports: 100_000, largeSend: 5_000 }
      : {
          subscribers: Math.round(1_000_000 * scale),
          messages: Math.round(1_000_000 * scale),
          deliveryReports: Math.round(10_000_000 * scale),
          largeSend: Math.round(100_000 * scale),
        };
    const fixture = await loadConsoleReads(ctx.databaseUrl, size, ctx.log);
    ctx.log(
      `${fixture.counts.subscribers.toLocaleString('en-US')} subscribers, ${fixture.counts.messages.toLocaleString('en-US')} messages, ` +
        `${fixture.counts.deliveryReports.toLocaleString('en-US')} delivery reports`,
    );
    // CONSOLE_READS_PROFILE_DIR=<dir>: the API process writes a CPU profile there (--cpu-prof) when it stops.
    const profileDir = process.env.CONSOLE_READS_PROFILE_DIR;
    const env: Record<string, string> = profileDir
      ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` }
      : {};
    // The reads measure themselves, not the machine still busy after the load (machine-pace.ts).
    const settled = await settleBefore(ctx, 'console-reads', 'the reads');
    // The machine's pace beside the reads: a slower host moves every read's p95 (see machine-pace.ts).
    const paceBefore = await measureMachinePace(ctx.databaseUrl);
    await measureConsoleReads(ctx, fixture, size, env);
    const paceAfter = await measureMachinePace(ctx.databaseUrl);
    for (const row of [
      settled,
      ...machinePaceRows('console-reads', 'before the reads', paceBefore),
      ...machinePaceRows('console-reads', 'after the reads', paceAfter),
    ])
      ctx.report(row);
  },
};

/** Each read at CLIENTS concurrent clients against a real API process on the loaded database. */
export async function measureConsoleReads(
  ctx: BenchContext,
  fixture: ConsoleReadsFixture,
  size: ConsoleReadsSize,
  env: Record<string, string> = {},
) {
  const { counts } = fixture;
  const server = await startServerProcess({ databaseUrl: ctx.databaseUrl, role: 'api', env });
  const owner = new pg.Client({ connectionString: ctx.databaseUrl });
  await owner.connect();
  // The API process, its database backends and the clients: what a request costs in CPU, whatever else runs.
  const cpuPids = async () => {
    const { rows } = await owner.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    // This bench process is the 50 clients: on 2 cores their CPU is taken from the server's.
    return [[server.pid], rows.map((row) => row.pid), [process.pid]];
  };
  try {
    const url = server.url as string;
    const tokens = {
      admin: await signIn(url, fixture.adminEmail, CONSOLE_READS_PASSWORD),
      platform: await signIn(url, fixture.platformEmail, CONSOLE_READS_PASSWORD),
    };
    // The big company holds 70% of the subscribers; its deep page is most of the way down.
    const bigSubscribers = Math.round(size.subscribers * 0.7);
    // Pages of 100, most of the way down (MAX_PAGE allows 10,000).
    const deepSubscriberPage = Math.min(10_000, Math.floor((bigSubscribers / 100) * 0.8));
    const deepDetailsPage = Math.floor((size.largeSend / 25) * 0.8);
    // A national number as people type it (0 and the first digits), one more digit each time.
    const national = `0${fixture.knownNumber.slice(4, 9)}`;
    const details = `/api/v1/messages/${fixture.largeSendId}/details`;
    const reads: Read[] = [
      { measure: 'GET /messages', who: 'admin', pathOf: () => '/api/v1/messages' },
      {
        measure: 'GET /messages page 50',
        who: 'admin',
        pathOf: () => '/api/v1/messages?page=50',
      },
      {
        measure: 'GET /messages chip=pending',
        who: 'admin',
        pathOf: () => '/api/v1/messages?chip=pending',
      },
      {
        measure: 'GET /messages direction=outbound status=failed',
        who: 'admin',
        pathOf: () => '/api/v1/messages?direction=outbound&status=failed',
      },
      {
        measure: 'GET /messages search=weekend (common word)',
        who: 'admin',
        pathOf: () => '/api/v1/messages?search=weekend',
      },
      {
        measure: 'GET /messages search=%231234 (rare)',
        who: 'admin',
        // '#<number>' of one of the admin's outbound messages: a few matches each, a different text each request.
        pathOf: (i) => `/api/v1/messages?search=${encodeURIComponent(rareSearchText(size, i))}`,
      },
      {
        measure: 'GET /messages search=zzqx (no match)',
        who: 'admin',
        pathOf: () => '/api/v1/messages?search=zzqx',
      },
      {
        measure: 'GET /messages (system admin)',
        who: 'platform',
        pathOf: () => '/api/v1/messages',
      },
      {
        measure: 'GET /messages chip=pending (system admin)',
        who: 'platform',
        pathOf: () => '/api/v1/messages?chip=pending',
      },
      {
        measure: 'GET /subscriptions/subscribers',
        who: 'admin',
        pathOf: () => '/api/v1/subscriptions/subscribers',
      },
      {
        measure: `GET /subscriptions/subscribers page ${deepSubscriberPage.toLocaleString('en-US')} of 100`,
        who: 'admin',
        pathOf: () => `/api/v1/subscriptions/subscribers?page=${deepSubscriberPage}&limit=100`,
      },
      {
        measure: 'GET /subscriptions/subscribers search (leading or last digits, varied)',
        who: 'admin',
        pathOf: (i) =>
          i % 2 === 0
            ? `/api/v1/subscriptions/subscribers?search=${national}${i % 10}`
            : `/api/v1/subscriptions/subscribers?search=${100_000 + ((i * 7919) % 900_000)}`,
      },
      {
        measure: `GET /messages/{id}/details (${size.largeSend.toLocaleString('en-US')} recipients)`,
        who: 'admin',
        pathOf: () => details,
      },
      {
        measure: `GET /messages/{id}/details page ${deepDetailsPage.toLocaleString('en-US')}`,
        who: 'admin',
        pathOf: () => `${details}?page=${deepDetailsPage}`,
      },
      {
        measure: 'GET /search?q=weekend (top bar)',
        who: 'admin',
        pathOf: () => '/api/v1/search?q=weekend',
      },
      {
        measure: 'GET /dashboard/stats',
        who: 'admin',
        pathOf: () => '/api/v1/dashboard/stats',
      },
      {
        measure: 'GET /dashboard/stats (system admin)',
        who: 'platform',
        pathOf: () => '/api/v1/dashboard/stats',
      },
      {
        measure: 'GET /reports?timeframe=30d',
        who: 'admin',
        pathOf: () => '/api/v1/reports?timeframe=30d',
      },
      {
        measure: 'GET /reports?timeframe=30d (system admin)',
        who: 'platform',
        pathOf: () => '/api/v1/reports?timeframe=30d',
      },
    ];
    // CONSOLE_READS_ONLY=<text>|<text>...: the reads whose name contains one of them; =<name>: the read of that name.
    const only = process.env.CONSOLE_READS_ONLY?.split('|');
    const chosen = (measure: string) =>
      !only ||
      only.some((part) => (part.startsWith('=') ? measure === part.slice(1) : measure.includes(part)));
    const work = `${(counts.messages / 1e6).toFixed(2)}M messages, ${(counts.deliveryReports / 1e6).toFixed(1)}M reports, ${CLIENTS} clients`;
    const failed: string[] = [];
    const chosenReads = reads.filter((read) => chosen(read.measure));
    const resultsByRead = chosenReads.map(() => [] as ConcurrentGetsResult[]);
    const roundCount = ctx.quick ? 1 : Number(process.env.CONSOLE_READS_ROUNDS ?? ROUNDS);
    for (let round = 0; round < roundCount; round++) {
      ctx.log(`round ${round + 1}: machine pace: ${await measureCorePace(ctx.databaseUrl)}`);
      for (const [i, read] of chosenReads.entries()) {
        const result = await driveConcurrentGets({
          baseUrl: url,
          token: tokens[read.who],
          clients: CLIENTS,
          seconds: ctx.quick ? 0.2 : Number(process.env.CONSOLE_READS_SECONDS ?? SECONDS_PER_READ),
          warmUpSeconds: ctx.quick ? 0.05 : WARM_UP_SECONDS,
          pathOf: read.pathOf,
          cpuPids,
        });
        resultsByRead[i].push(result);
        if (result.failures > 0)
          failed.push(`${read.measure}: ${result.failures} failed, first ${result.firstFailure}`);
        ctx.log(`round ${round + 1}: ${read.measure}: p95 ${result.p95.toFixed(1)} ms`);
      }
    }
    for (const [i, read] of chosenReads.entries()) {
      const byP95 = [...resultsByRead[i]].sort((a, b) => a.p95 - b.p95);
      const result = byP95[Math.floor(byP95.length / 2)];
      const [apiCpu, databaseCpu, clientCpu] = result.cpuMsPerRequest;
      const roundsText =
        resultsByRead[i].length > 1
          ? `; median of ${resultsByRead[i].length} rounds, p95s ${resultsByRead[i].map((r) => r.p95.toFixed(1)).join(', ')} ms`
          : '';
      ctx.report({
        scenario: 'console-reads',
        measure:
          `${read.measure} (${Math.round(result.perSecond).toLocaleString('en-US')} req/s, p50 ${result.p50.toFixed(1)} ms, ` +
          `CPU/request: API ${apiCpu.toFixed(2)} ms, PostgreSQL ${databaseCpu.toFixed(2)} ms, clients ${clientCpu.toFixed(2)} ms${roundsText})`,
        work,
        figure: Number(result.p95.toFixed(1)),
        unit: 'ms p95',
        baseline: { name: 'target', figure: TARGET_P95_MS },
        target: `p95 < ${TARGET_P95_MS} ms`,
        met: result.p95 < TARGET_P95_MS,
      });
    }
    ctx.log(`API process peak RSS ${Math.round(server.peakRssMiB())} MiB`);
    if (failed.length > 0) throw new Error(`answers other than 2xx:\n${failed.join('\n')}`);
  } finally {
    await owner.end();
    await server.stop();
  }
}
