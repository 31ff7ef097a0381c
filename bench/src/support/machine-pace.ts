import pg from 'pg';

export type MachinePace = {
  /** Wall time of one prepared `select $1::int` waited for on one connection (both processes, the loopback). */
  roundTripMicros: number;
  /** One backend's time for a fixed piece of pure CPU work (a count over generate_series). */
  backendCpuMs: number;
};

const ROUND_TRIPS = 10_000;
const SERIES = 1_000_000;

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
    let started = performance.now();
    for (let i = 0; i < ROUND_TRIPS; i++) await client.query({ ...roundTrip, values: [i] });
    const roundTripMicros = ((performance.now() - started) * 1000) / ROUND_TRIPS;

    const count = `select count(*) from generate_series(1, ${SERIES})`;
    await client.query(count);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      started = performance.now();
      await client.query(count);
      times.push(performance.now() - started);
    }
    return { roundTripMicros, backendCpuMs: Math.min(...times) };
  } finally {
    await client.end();
  }
}

/** The pace's two rows of the results table, for the stretch `when` names. */
export function machinePaceRows(scenario: string, when: string, pace: MachinePace) {
  return [
    {
      scenario,
      measure: `machine pace ${when}: one PostgreSQL round trip (prepared select, one connection, waited for)`,
      work: `${ROUND_TRIPS.toLocaleString('en-US')} round trips`,
      figure: Number(pace.roundTripMicros.toFixed(1)),
      unit: 'µs',
    },
    {
      scenario,
      measure: `machine pace ${when}: one backend's CPU for a fixed count (best of 3)`,
      work: `count of ${SERIES.toLocaleString('en-US')} rows`,
      figure: Number(pace.backendCpuMs.toFixed(1)),
      unit: 'ms',
    },
  ];
}
