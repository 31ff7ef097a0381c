import pg from 'pg';
import type { BenchRow } from './scenario.ts';

export type MachinePace = {
  /** Wall time of one prepared `select $1::int` waited for on one connection (both processes, the loopback). */
  roundTripMicros: number;
  /** One backend's time for a fixed piece of pure CPU work (a count over generate_series). */
  backendCpuMs: number;
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
export async function measureMachinePace(databaseUrl: string): Promise<MachinePace> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const roundTrip = { name: 'bench_machine_pace', text: 'select $1::int as n' };
    // Prepared, planned and the connection's caches warm before timing.
    for (let i = 0; i < 1_000; i++) await client.query({ ...roundTrip, values: [i] });
    // The best of a few stretches: what the machine can do now, less the odd stall within one.
    const tripTimes: number[] = [];
    for (let stretch = 0; stretch < STRETCHES; stretch++) {
      const started = performance.now();
      for (let i = 0; i < ROUND_TRIPS_A_STRETCH; i++) await client.query({ ...roundTrip, values: [i] });
      tripTimes.push(((performance.now() - started) * 1000) / ROUND_TRIPS_A_STRETCH);
    }
    // The set-returning function in the select list streams its rows (ProjectSet): no tuplestore
    // that spills to a temporary file, so this is the backend's CPU alone.
    const count = `select count(*) from (select generate_series(1, ${SERIES})) s`;
    await client.query(count);
    const countTimes: number[] = [];
    for (let stretch = 0; stretch < STRETCHES; stretch++) {
      const started = performance.now();
      await client.query(count);
      countTimes.push(performance.now() - started);
    }
    return { roundTripMicros: Math.min(...tripTimes), backendCpuMs: Math.min(...countTimes) };
  } finally {
    await client.end();
  }
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
  ];
}
