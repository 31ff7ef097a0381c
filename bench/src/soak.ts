/**
 * `npm run soak`: ten minutes of mixed traffic against the real server processes (an API process
 * and a worker with the simulator provider) on a fresh embedded database: bulk and transactional
 * sends, delivery reports (the simulator's, over HTTP, and unknown ones posted directly), console
 * reads and a subscriber import every few minutes. Every SOAK_SAMPLE_SECONDS (30) it samples each
 * process's RSS and heap (after a full collection), PostgreSQL's connection count and the queue's
 * depth; it fails on any error (an unexpected answer, a failed request, an error logged by a
 * server, a process that exits) or on a rising trend (soak/trend.ts, docs/soak.md).
 *
 * "heap" is what a full collection leaves: the V8 heap plus external memory (buffers).
 * SOAK_SECONDS (600) sets the length; CI runs `SOAK_SECONDS=60 SOAK_SAMPLE_SECONDS=5`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { risingTrend, type Sample, type TrendRule } from './soak/trend.ts';
import { startBenchCluster } from './support/bench-database.ts';
import { prepareBulkSend, signIn } from './support/bulk-send-fixture.ts';
import { type ServerProcess, startServerProcess, stopServerProcesses } from './support/server-process.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 30);
/** Samples before this are the warm-up (caches filling, code compiled): no trend is read from them. */
const WARM_UP_SECONDS = Number(process.env.SOAK_WARM_UP_SECONDS ?? Math.max(2 * SAMPLE_SECONDS, SECONDS / 5));
/**
 * RSS climbs for the first minutes as the allocator takes arenas and gives some back (a minute's
 * run saw +60 % and -25 % swings with a flat heap): it is judged only over a window this long
 * after the warm-up, and only reported in a shorter run (CI's), where the heap catches a leak.
 */
const RSS_JUDGED_OVER_MINUTES = 3;
const SUBSCRIBERS = 1_000;
const IMPORT_ROWS = 2_000;
const IMPORT_EVERY_SECONDS = 180;

const MiB = 2 ** 20;
/** What counts as rising, per metric (docs/soak.md). */
const RULES: Record<'rss' | 'heap' | 'connections' | 'queue', TrendRule> = {
  // RSS steps up now and then as the allocator takes more arenas: only a steep, large rise counts.
  rss: { slopePerMinute: 4, riseFraction: 0.25, riseAtLeast: 16 },
  // What is still held after a full collection, JavaScript objects and buffers alike: the leak's own measure.
  heap: { slopePerMinute: 1, riseFraction: 0.1, riseAtLeast: 4 },
  connections: { slopePerMinute: 0.5, riseFraction: 0, riseAtLeast: 3 },
  queue: { slopePerMinute: 100, riseFraction: 0.5, riseAtLeast: 200 },
};

const log = (line: string) => process.stderr.write(`${line}\n`);
const errors: string[] = [];
const counts = { sends: 0, transactional: 0, reports: 0, reads: 0, imports: 0 };

const cluster = await startBenchCluster(log);
const probeDir = await mkdtemp(path.join(os.tmpdir(), 'sms-soak-'));
let databaseUrl: string | undefined;
let failed = true;
try {
  databaseUrl = await cluster.createDatabase('soak');
  const fixture = await prepareBulkSend(databaseUrl, SUBSCRIBERS);
  const probe = {
    SOAK_PROBE_DIR: probeDir,
    NODE_OPTIONS:
      `${process.env.NODE_OPTIONS ?? ''} --import=${path.join(import.meta.dirname, 'soak/heap-probe.ts')}`.trim(),
  };
  const api = await startServerProcess({ databaseUrl, role: 'api', env: probe });
  const apiUrl = api.url as string;
  const worker = await startServerProcess({
    databaseUrl,
    role: 'worker',
    env: {
      ...probe,
      SIMULATOR_CALLBACK_URL: apiUrl,
      SIMULATOR_MESSAGES_PER_SECOND: '1000',
      SIMULATOR_DELIVERY_DELAY_MS: '500',
    },
  });
  const processes: [string, ServerProcess][] = [
    ['api', api],
    ['worker', worker],
  ];
  log(
    `soak: ${SECONDS} s of mixed traffic, a sample every ${SAMPLE_SECONDS} s (warm-up ${WARM_UP_SECONDS} s)`,
  );

  let token = await signIn(apiUrl, fixture.adminEmail);
  const headers = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const call = async (
    what: string,
    method: string,
    route: string,
    body?: string,
    extra: Record<string, string> = {},
  ) => {
    try {
      const response = await fetch(`${apiUrl}/api/v1${route}`, {
        method,
        headers: { ...headers(), ...extra },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      if (response.status >= 300)
        errors.push(`${what}: ${method} ${route} answered ${response.status} ${text.slice(0, 200)}`);
      return response.status < 300 ? (JSON.parse(text) as { data: Record<string, unknown> }) : undefined;
    } catch (error) {
      errors.push(`${what}: ${method} ${route} failed: ${(error as Error).message}`);
      return undefined;
    }
  };

  const [serviceA, serviceB, serviceC] = fixture.serviceIds as [number, number, number];
  const dlrUrl = `/callbacks/dlr/${fixture.companyId}/${(await companyDlrToken()) ?? ''}`;
  async function companyDlrToken() {
    const urls = await call('callback urls', 'GET', '/callbacks/my-company');
    return String(urls?.data.dlrCallbackUrl ?? '')
      .split('/')
      .at(-1);
  }

  const started = Date.now();
  const until = started + SECONDS * 1000;
  const running = () => Date.now() < until && errors.length < 50;
  const every = async (ms: number, work: (round: number) => Promise<unknown>) => {
    for (let round = 0; running(); round++) {
      const next = Date.now() + ms;
      await work(round);
      // A timer may fire a millisecond early: the end of the run ends the loop, whatever the clock says.
      if (next >= until) break;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
    }
  };
  const READS = [
    '/messages?page=1&limit=20',
    '/dashboard/stats',
    '/reports',
    '/subscriptions/subscribers?page=1&limit=20',
    '/services',
    '/search?q=soak',
    `/services/${serviceA}/subscribers?page=1&limit=20`,
  ];
  const importCsv = (round: number) =>
    `phone\n${Array.from({ length: IMPORT_ROWS }, (_, i) => `+25471${String(1_000_000 + round * IMPORT_ROWS + i)}`).join('\n')}\n`;

  const samples = new Map<string, Sample[]>();
  const record = (name: string, minute: number, value: number) =>
    samples.set(name, [...(samples.get(name) ?? []), { minute, value }]);
  async function sample() {
    const minute = (Date.now() - started) / 60_000;
    for (const [name, server] of processes) {
      const memory = await probeMemory(server.pid);
      if (!memory) {
        errors.push(`${name}: no memory sample (process gone?)`);
        continue;
      }
      record(`${name} rss MiB`, minute, memory.rss / MiB);
      record(`${name} heap MiB`, minute, (memory.heapUsed + memory.external) / MiB);
    }
    const { rows } = await sql<{ connections: number; queued: number }>`
      select (select count(*)::int from pg_stat_activity where datname = current_database()) - 1 as connections,
             (select count(*)::int from pgboss.job where state in ('created', 'retry', 'active')) as queued`.execute(
      fixture.owner.db,
    );
    record('postgres connections', minute, rows[0].connections);
    record('queue depth', minute, rows[0].queued);
    log(
      `  ${minute.toFixed(1).padStart(5)} min: ${[...samples].map(([name, series]) => `${name} ${series.at(-1)?.value.toFixed(1)}`).join(', ')}`,
    );
  }

  await sample();
  await Promise.all([
    every(SAMPLE_SECONDS * 1000, async (round) => {
      if (round > 0) await sample();
    }),
    // Access tokens last 15 minutes: a fresh sign-in every 5.
    every(5 * 60_000, async (round) => {
      if (round > 0) token = await signIn(apiUrl, fixture.adminEmail);
    }),
    every(10_000, async (round) => {
      const serviceIds = [[serviceA], [serviceB], [serviceA, serviceC]][round % 3];
      if (
        await call(
          'bulk send',
          'POST',
          '/messages/bulk/send',
          JSON.stringify({ serviceIds, message: `Soak ${round}` }),
        )
      )
        counts.sends++;
    }),
    every(1_000, async (round) => {
      const body = JSON.stringify({
        to: [`+25472${String(1_000_000 + round)}`],
        message: `Code ${round}`,
        serviceId: serviceA,
      });
      if (
        await call('transactional send', 'POST', '/messages', body, {
          'idempotency-key': `soak-${started}-${round}`,
        })
      )
        counts.transactional++;
    }),
    every(200, async (round) => {
      if (await call('console read', 'GET', READS[round % READS.length] as string)) counts.reads++;
    }),
    every(500, async (round) => {
      // A provider's report for a message nobody sent: stored, then matched to nothing.
      const body = new URLSearchParams({
        id: `soak-unknown-${round}`,
        status: 'Success',
        phoneNumber: '+254700000001',
      });
      if (
        await call('delivery report', 'POST', dlrUrl, body.toString(), {
          'content-type': 'application/x-www-form-urlencoded',
        })
      )
        counts.reports++;
    }),
    every(IMPORT_EVERY_SECONDS * 1000, async (round) => {
      if (
        await call('import', 'POST', `/services/${serviceC}/subscribers/import`, importCsv(round), {
          'content-type': 'text/csv',
        })
      )
        counts.imports++;
    }),
  ]);
  await sample();

  for (const [name, server] of processes)
    for (const problem of server.problems()) errors.push(`${name}: ${problem.slice(0, 4000)}`);
  const trends: string[] = [];
  for (const [name, series] of samples) {
    const rule = name.endsWith('rss MiB')
      ? RULES.rss
      : name.endsWith('heap MiB')
        ? RULES.heap
        : name.startsWith('postgres')
          ? RULES.connections
          : RULES.queue;
    const after = series.filter((point) => point.minute * 60 >= WARM_UP_SECONDS);
    const verdict = risingTrend(after, rule);
    const span = (after.at(-1)?.minute ?? 0) - (after[0]?.minute ?? 0);
    const judged = rule !== RULES.rss || span >= RSS_JUDGED_OVER_MINUTES;
    const rising = judged && verdict.rising;
    const line = `${name}: ${verdict.first.toFixed(1)} -> ${verdict.last.toFixed(1)}, slope ${verdict.slope.toFixed(2)}/min (later half ${verdict.lateSlope.toFixed(2)}) over ${after.length} samples after the warm-up${rising ? '  RISING' : judged ? '' : ' (not judged: under 3 minutes)'}`;
    log(`  ${line}`);
    if (rising) trends.push(line);
  }
  const simulated = await sql<{
    count: number;
  }>`select count(*)::int as count from delivery_reports where status = 'delivered'`.execute(
    fixture.owner.db,
  );
  log(
    `soak: ${counts.sends} bulk sends, ${counts.transactional} transactional, ${counts.reads} console reads, ` +
      `${counts.reports} direct delivery reports, ${counts.imports} imports; ${simulated.rows[0].count} recipients delivered`,
  );
  for (const error of errors.slice(0, 20)) log(`  error: ${error}`);
  if (errors.length > 20) log(`  ... and ${errors.length - 20} more errors`);
  failed = errors.length > 0 || trends.length > 0;
  log(failed ? `SOAK FAILED: ${errors.length} errors, ${trends.length} rising trends` : 'soak: passed');
  await fixture.owner.close();
} catch (error) {
  log(`SOAK FAILED: ${(error as Error).stack ?? error}`);
} finally {
  await stopServerProcesses();
  if (databaseUrl) await cluster.dropDatabase(databaseUrl).catch(() => {});
  await cluster.stop();
  await rm(probeDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** Asks the process's heap probe for a sample (after a full collection) and waits for it. */
async function probeMemory(pid: number) {
  const file = path.join(probeDir, `${pid}.json`);
  const before = await readProbe(file);
  try {
    process.kill(pid, 'SIGUSR2');
  } catch {
    return undefined;
  }
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await readProbe(file);
    if (now && now.sequence !== before?.sequence) return now;
  }
  return undefined;
}

async function readProbe(file: string) {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as {
      sequence: number;
      rss: number;
      heapUsed: number;
      external: number;
    };
  } catch {
    return undefined;
  }
}
