/**
 * `npm run bench [-- --quick] [-- --only=name,name]`: runs every scenario in bench/src/scenarios/
 * (in file-name order) on its own fresh database, prints one table of everything they measured,
 * and writes it to bench/results/latest.json.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startBenchCluster } from './support/bench-database.ts';
import { printResults } from './support/results-table.ts';
import type { BenchRow, BenchScenario } from './support/scenario.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .filter((arg) => arg.startsWith('--only='))
  .flatMap((arg) => arg.slice('--only='.length).split(','))
  .filter(Boolean);

const scenariosDir = path.join(import.meta.dirname, 'scenarios');
const files = (await readdir(scenariosDir)).filter((file) => file.endsWith('.ts')).sort();
const log = (line: string) => process.stderr.write(`${line}\n`);
const cluster = await startBenchCluster(() => {});
const rows: BenchRow[] = [];
const baselines: Record<string, number> = {};
const failures: string[] = [];
const started = Date.now();
try {
  for (const file of files) {
    const { scenario } = (await import(path.join(scenariosDir, file))) as { scenario: BenchScenario };
    if (only.length > 0 && !only.includes(scenario.name)) continue;
    log(`\n=== ${scenario.name}: ${scenario.description}${quick ? ' (quick)' : ''}`);
    const scenarioStarted = Date.now();
    try {
      const databaseUrl = await cluster.createDatabase(scenario.name);
      await scenario.run({
        quick,
        databaseUrl,
        baselines,
        report: (row) => {
          rows.push(row);
          log(`  ${row.measure}: ${row.figure} ${row.unit}${row.target ? ` (target ${row.target})` : ''}`);
        },
        log: (line) => log(`  ${line}`),
      });
    } catch (error) {
      failures.push(scenario.name);
      log(`  FAILED: ${(error as Error).stack ?? error}`);
    }
    log(`  (${((Date.now() - scenarioStarted) / 1000).toFixed(1)} s)`);
  }
} finally {
  await cluster.stop();
}

printResults(rows);
console.log(`\nTotal: ${((Date.now() - started) / 1000).toFixed(0)} s`);
const resultsDir = path.join(import.meta.dirname, '..', 'results');
await mkdir(resultsDir, { recursive: true });
await writeFile(
  path.join(resultsDir, quick ? 'quick.json' : 'latest.json'),
  `${JSON.stringify(
    {
      at: new Date().toISOString(),
      quick,
      machine: {
        cpus: os.cpus().length,
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
      },
      seconds: Math.round((Date.now() - started) / 1000),
      baselines,
      failures,
      rows,
    },
    null,
    2,
  )}\n`,
);
if (failures.length > 0) {
  log(`\nScenarios that failed: ${failures.join(', ')}`);
  process.exit(1);
}
