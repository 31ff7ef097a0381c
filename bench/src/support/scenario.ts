/**
 * What every bench scenario is and reports. `npm run bench` (bench/src/run.ts) runs the scenarios
 * in bench/src/scenarios/, each on a fresh database of one embedded PostgreSQL cluster (or
 * BENCH_DATABASE_URL's server), and prints every reported row in one table.
 */

/** One line of the results table. */
export type BenchRow = {
  /** The scenario's name, e.g. 'fan-out'. */
  scenario: string;
  /** What was measured, e.g. 'recipient rows written', 'GET /messages p95'. */
  measure: string;
  /** The size of the work, e.g. '1,000,000 recipients', '200,000 reports x 50 clients'. */
  work: string;
  figure: number;
  /** 'rows/s', 'ms', 'ms p95', 'KB gzip', 'MB', ... */
  unit: string;
  /**
   * The figure this one is judged against, measured in the same run: a named baseline
   * (ctx.baselines, e.g. 'R_copy') or a fixed target figure. The table shows figure / baseline.
   */
  baseline?: { name: string; figure: number };
  /** The target in words, e.g. '>= 0.5 x R_copy', 'p95 < 50 ms'. */
  target?: string;
  /** Whether the target was met (left out where there is none). */
  met?: boolean;
};

export type BenchContext = {
  /** `--quick`: a small version of every scenario, for CI's smoke run (under 2 minutes in all). */
  quick: boolean;
  /** Owner connection URL of a fresh, migrated (empty) database for this scenario alone. */
  databaseUrl: string;
  /** Figures measured earlier in this run that later scenarios compare with (e.g. R_copy). */
  baselines: Record<string, number>;
  report(row: BenchRow): void;
  /** A progress line on stderr (the table goes to stdout). */
  log(line: string): void;
};

export type BenchScenario = {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<void>;
};
