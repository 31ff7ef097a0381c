export type Measurement = {
  name: string;
  runs: number;
  p50: number;
  p95: number;
  max: number;
  perSecond: number;
};

/** Runs `task` `runs` times (after a short warm-up) and returns latency percentiles in ms. */
export async function measure(
  name: string,
  runs: number,
  task: (i: number) => Promise<unknown>,
): Promise<Measurement> {
  for (let i = 0; i < Math.min(5, runs); i++) await task(i);
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await task(i);
    samples.push(performance.now() - t0);
  }
  const total = performance.now() - started;
  samples.sort((a, b) => a - b);
  const pick = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return {
    name,
    runs,
    p50: pick(0.5),
    p95: pick(0.95),
    max: samples.at(-1) ?? 0,
    perSecond: (runs / total) * 1000,
  };
}

export function printTable(title: string, rows: Measurement[]) {
  console.log(`\n${title}`);
  console.table(
    rows.map((row) => ({
      operation: row.name,
      runs: row.runs,
      'p50 ms': row.p50.toFixed(2),
      'p95 ms': row.p95.toFixed(2),
      'max ms': row.max.toFixed(2),
      'per second': Math.round(row.perSecond),
    })),
  );
}
