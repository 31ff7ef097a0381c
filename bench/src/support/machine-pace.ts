import pg from 'pg';
import type { BenchContext, BenchRow } from './scenario.ts';

export type MachinePace = {
  /** Wall time of one prepared `select $1::int` waited for on one connection (both processes, the loopback). */
  roundTripMicros: number;
  /** One backend's time for a fixed piece of pure CPU work (a count over generate_series). */
  backendCpuMs: number;
  /**
   * The wall time of two such counts at once, on two connections: about one count's time when both
   * cores run at their pace, up to two counts' when the second core adds nothing. On the host this
   * bench was tuned on, the second vCPU added 0-45% of the first, hour by hour (ADR 0011, 28
   * November, late night), and every scenario that keeps both cores busy moves with it.
   */
  pairCpuMs: number;
};

const STRETCHES = 5;
const ROUND_TRIPS_A_STRETCH = 2_000;
const SERIES = 5_000_000;

/**
 * How fast this machine is right now, in the two things a console read is made of: round trips
 * between two processes and a backend's own CPU. The same code's reads moved 30-40% between runs
 * hours apart on this shared host; these figures, taken beside the reads, tell a slower machine
 * from a slower read. Nothing else should run against the database meanwhile.
 */
export function measureMachinePace(databaseUrl: string): Promise<MachinePace> {
  return onOneConnection(databaseUrl, async (client) => {
    const roundTrip = { name: 'bench_machine_pace', text: 'select $1::int as n' };
    // Prepared, planned and the connection's caches warm before timing.
    for (let i = 0; i < 1_000; i++) await client.query({ ...roundTrip, values: [i] });
    // The best of a few stretches: what the machine can do now, less the odd stall within one.
    const roundTripMicros = await bestOf(STRETCHES, async () => {
      const started = performance.now();
      for (let i = 0; i < ROUND_TRIPS_A_STRETCH; i++) await client.query({ ...roundTrip, values: [i] });
      return ((performance.now() - started) * 1000) / ROUND_TRIPS_A_STRETCH;
    });
    await timedCount(client);
    const { oneMs, pairMs } = await onOneConnection(databaseUrl, (other) =>
      countAloneAndPaired(client, other, STRETCHES),
    );
    return { roundTripMicros, backendCpuMs: oneMs, pairCpuMs: pairMs };
  });
}

/** One fixed count alone, then one on each connection at once: each the best of `times`. */
async function countAloneAndPaired(client: pg.Client, other: pg.Client, times: number) {
  const oneMs = await bestOf(times, () => timedCount(client));
  const pairMs = await bestOf(times, () => timedPair(client, other));
  return { oneMs, pairMs };
}

/** The wall time of one fixed count on each of two connections at once. */
async function timedPair(first: pg.Client, second: pg.Client) {
  const started = performance.now();
  await Promise.all([timedCount(first), timedCount(second)]);
  return performance.now() - started;
}

/**
 * One count alone and two at once, each the best of three, for a scenario's log between the stretches
 * it measures (the host can change pace within minutes).
 */
export function measureCorePace(databaseUrl: string) {
  return onOneConnection(databaseUrl, (client) =>
    onOneConnection(databaseUrl, async (other) => {
      const { oneMs, pairMs } = await countAloneAndPaired(client, other, 3);
      return `one fixed count ${oneMs.toFixed(0)} ms, two at once ${pairMs.toFixed(0)} ms (${(pairMs / oneMs).toFixed(2)} x one)`;
    }),
  );
}

async function onOneConnection<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The fastest fixed count this bench process has timed, whichever scenario timed it: the machine's
 * own pace, what it does when nothing outside it slows the host.
 */
let fastestCountMs = Number.POSITIVE_INFINITY;

/**
 * One backend's time for a fixed count. The set-returning function in the select list streams its
 * rows (ProjectSet): no tuplestore that spills to a temporary file, so this is the backend's CPU alone.
 */
async function timedCount(client: pg.Client) {
  const started = performance.now();
  await client.query(`select count(*) from (select generate_series(1, ${SERIES})) s`);
  const ms = performance.now() - started;
  fastestCountMs = Math.min(fastestCountMs, ms);
  return ms;
}

/**
 * A count within this share of the fastest seen is the machine at its own pace. The host this bench
 * was tuned on has slow spells of minutes, in which one backend's count takes 250-260 ms against
 * 140-155 ms: 1.7-1.8 times. They come from outside the machine: the count was no slower while a
 * busy loop held the other core.
 */
const QUIET_SPREAD = 1.25;

const isQuiet = (countMs: number) => countMs <= fastestCountMs * QUIET_SPREAD;

/** The shortest of `times` timings taken one after the other. */
async function bestOf(times: number, timed: () => Promise<number>) {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i++) best = Math.min(best, await timed());
  return best;
}

/** The best of three counts back to back (a lone count after a pause reads the idle machine's wake-up). */
function bestOfThreeCounts(client: pg.Client) {
  return bestOf(3, () => timedCount(client));
}

export type Settling = { waitedSeconds: number; firstMs: number; lastMs: number; quiet: boolean };

const SETTLE_LIMIT_SECONDS = 240;
const SETTLE_EVERY_MS = 2_000;
/** Counts within this share of each other (and of the fastest seen) are one pace. */
const SETTLED_SPREAD = 1.1;

/**
 * Waits until the machine has finished with what came before (a load of millions of rows leaves
 * it busy for a while after the load's own statements end: one backend's fixed count took 252 ms
 * right after the console-reads fixture and 144 ms after the reads), so that what follows measures
 * itself, not that. Settled: three samples in a row, 2 s apart (each the best of three counts), within
 * 10% of each other and of the fastest seen here, and at the machine's own pace (isQuiet); a quiet
 * machine is settled after the first three. At most 240 s by default; a machine still slow then is
 * taken as it is, and the row says so.
 */
function waitForSteadyPace(databaseUrl: string, limitSeconds = SETTLE_LIMIT_SECONDS): Promise<Settling> {
  return onOneConnection(databaseUrl, async (client) => {
    const started = performance.now();
    const counts: number[] = [];
    for (;;) {
      counts.push(await bestOfThreeCounts(client));
      const lastThree = counts.slice(-3);
      const fastest = Math.min(...counts);
      const slowest = Math.max(...lastThree);
      const steady = lastThree.length === 3 && slowest <= fastest * SETTLED_SPREAD && isQuiet(slowest);
      if (steady || performance.now() - started > limitSeconds * 1000) break;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_EVERY_MS));
    }
    const lastMs = counts[counts.length - 1];
    return {
      waitedSeconds: (performance.now() - started) / 1000,
      firstMs: counts[0],
      lastMs,
      quiet: isQuiet(lastMs),
    };
  });
}

/** The pace's two rows of the results table, for the stretch `when` names. */
export function machinePaceRows(scenario: string, when: string, pace: MachinePace): BenchRow[] {
  return [
    {
      scenario,
      measure: `machine pace ${when}: one PostgreSQL round trip (prepared select, one connection, waited for)`,
      work: `best of ${STRETCHES} x ${ROUND_TRIPS_A_STRETCH.toLocaleString('en-US')} round trips`,
      figure: Number(pace.roundTripMicros.toFixed(1)),
      unit: 'µs',
    },
    {
      scenario,
      measure: `machine pace ${when}: one backend's CPU for a fixed count`,
      work: `best of ${STRETCHES} counts of ${SERIES.toLocaleString('en-US')}`,
      figure: Number(pace.backendCpuMs.toFixed(1)),
      unit: 'ms',
    },
    {
      scenario,
      measure: `machine pace ${when}: two backends' fixed counts at once (1.0 x one: both cores at full pace; 2.0 x: the second adds nothing)`,
      work: `best of ${STRETCHES} pairs of counts`,
      figure: Number(pace.pairCpuMs.toFixed(1)),
      unit: 'ms',
      baseline: { name: 'one', figure: pace.backendCpuMs },
    },
  ];
}

/** The quick run (CI's smoke run, under 2 minutes in all) waits at most this long. */
const QUICK_SETTLE_LIMIT_SECONDS = 10;

/**
 * A scenario's wait for a settled machine before `before` (waitForSteadyPace), logged as it ends;
 * returns the wait as a row of the results table, for the scenario to report with its own.
 */
export async function settleBefore(ctx: BenchContext, scenario: string, before: string): Promise<BenchRow> {
  const settling = await waitForSteadyPace(
    ctx.databaseUrl,
    ctx.quick ? QUICK_SETTLE_LIMIT_SECONDS : undefined,
  );
  ctx.log(
    `machine settled before ${before} in ${settling.waitedSeconds.toFixed(0)} s (a fixed count ${settling.firstMs.toFixed(0)} -> ${settling.lastMs.toFixed(0)} ms${settling.quiet ? '' : `, still slower than the fastest seen, ${fastestCountMs.toFixed(0)} ms`}); ${await measureCorePace(ctx.databaseUrl)}`,
  );
  return settlingRow(scenario, before, settling);
}

/** How long `before` waited for the machine to settle, as a row of the results table. */
function settlingRow(scenario: string, before: string, settling: Settling): BenchRow {
  return {
    scenario,
    measure: `machine settled before ${before} (one backend's fixed count ${settling.firstMs.toFixed(0)} -> ${settling.lastMs.toFixed(0)} ms${settling.quiet ? '' : ", still at the host's slow pace"})`,
    work: `counts ${SETTLE_EVERY_MS / 1000} s apart until three agree at the machine's own pace`,
    figure: Number(settling.waitedSeconds.toFixed(1)),
    unit: 's waited',
  };
}
