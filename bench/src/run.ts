/**
 * `npm run bench [-- --quick] [-- --only=name,name]`: runs every scenario in bench/src/scenarios/
 * (in file-name order) on its own fresh database, prints one table of everything they measured,
 * and writes it to bench/results/latest.{json,md} (quick.{json,md} with --quick). With --only, the
 * other scenarios' rows of the last results stay, dated by the run that measured them.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startBenchCluster } from './support/bench-database.ts';
import { type BenchReport, formatReport } from './support/results-table.ts';
import type { BenchScenario } from './support/scenario.ts';
import { stopServerProcesses } from './support/server-process.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .filter((arg) => arg.startsWith('--only='))
  .flatMap((arg) => arg.slice('--only='.length).split(','))
  .filter(Boolean);
const log = (line: string) => process.stderr.write(`${line}\n`);

const scenariosDir = path.join(import.meta.dirname, 'scenarios');
const scenarios: BenchScenario[] = [];
for (const file of (await readdir(scenariosDir)).filter((name) => name.endsWith('.ts')).sort()) {
  scenarios.push(((await import(path.join(scenariosDir, file))) as { scenario: BenchScenario }).scenario);
}
const unknown = only.filter((name) => !scenarios.some((scenario) => scenario.name === name));
if (unknown.length > 0) {
  log(
    `No scenario named ${unknown.join(', ')}. Scenarios: ${scenarios.map((scenario) => scenario.name).join(', ')}`,
  );
  process.exit(2);
}

const started = Date.now();
const cluster = await startBenchCluster(log);
const report: BenchReport = {
  at: new Date().toISOString(),
  quick,
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: await cluster.serverVersion(),
  },
  seconds: 0,
  scenarioSeconds: {},
  baselines: {},
  failures: [],
  rows: [],
};
try {
  for (const scenario of scenarios) {
    if (only.length > 0 && !only.includes(scenario.name)) continue;
    log(`\n=== ${scenario.name}: ${scenario.description}${quick ? ' (quick)' : ''}`);
    const scenarioStarted = Date.now();
    let databaseUrl: string | undefined;
    try {
      databaseUrl = await cluster.createDatabase(scenario.name);
      await scenario.run({
        quick,
        databaseUrl,
        baselines: report.baselines,
        report: (row) => {
          report.rows.push(row);
          log(`  ${row.measure}: ${row.figure} ${row.unit}${row.target ? ` (target ${row.target})` : ''}`);
        },
        log: (line) => log(`  ${line}`),
      });
    } catch (error) {
      report.failures.push({
        scenario: scenario.name,
        error: String((error as Error).message ?? error).split('\n')[0],
      });
      log(`  FAILED: ${(error as Error).stack ?? error}`);
    } finally {
      // A scenario that threw may have left its servers and connections: the next one starts clean.
      await stopServerProcesses();
      if (databaseUrl)
        await cluster.dropDatabase(databaseUrl).catch((error) => log(`  (drop: ${error.message})`));
    }
    report.scenarioSeconds[scenario.name] = (Date.now() - scenarioStarted) / 1000;
    log(`  (${report.scenarioSeconds[scenario.name].toFixed(1)} s)`);
  }
} finally {
  await stopServerProcesses();
  await cluster.stop();
}
report.seconds = (Date.now() - started) / 1000;

const resultsDir = path.join(import.meta.dirname, '..', 'results');
const base = path.join(resultsDir, quick ? 'quick' : 'latest');
// A run of some scenarios keeps the other scenarios' rows of the last results, each dated.
if (only.length > 0) {
  const last = await readFile(`${base}.json`, 'utf8').then(
    (text) => JSON.parse(text) as BenchReport,
    () => null,
  );
  if (last && last.quick === quick) {
    const kept = (name: string) => !only.includes(name);
    report.rows = [...last.rows.filter((row) => kept(row.scenario)), ...report.rows];
    report.earlier = Object.fromEntries(
      Object.keys(last.scenarioSeconds)
        .filter(kept)
        .map((name) => [name, last.earlier?.[name] ?? last.at]),
    );
    const order = scenarios.map((scenario) => scenario.name);
    report.rows.sort((a, b) => order.indexOf(a.scenario) - order.indexOf(b.scenario));
  }
}
const text = formatReport(report);
console.log(`\n${text}`);
await mkdir(resultsDir, { recursive: true });
await writeFile(`${base}.json`, `${JSON.stringify(report, null, 2)}\n`);
await writeFile(`${base}.md`, text);
if (report.failures.length > 0) process.exit(1);
