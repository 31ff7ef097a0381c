/**
 * `npm test`: the one validate script (lint, types, unit + integration, browser), run in that
 * order so the cheap checks fail first. It stops at the first failing stage (`FAILED at: <stage>`)
 * and ends with one plain line, `tests: N passed, N failed, N skipped`.
 *
 * A stage fails when its command exits non-zero, and also when its report says anything failed
 * (or it wrote no readable report): an exit code alone was once overwritten by a library's exit
 * hook, and a run that exits 0 with a red report must not pass. `failed` counts failed tests plus
 * every failure outside a test (a file that cannot be imported, a throwing hook, an unhandled
 * error, a Playwright error outside the tests), so a red run never reads `0 failed`.
 *
 * Options: `--no-e2e` skips the console build and the browser tests; `--only=<id>[,<id>...]` runs
 * only those stages (ids below; `types` means every `types:*`); `--vitest-arg=<arg>` and
 * `--playwright-arg=<arg>` (repeatable) pass file filters or flags to those runners.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { VitestGateReport } from './vitest-gate-reporter.ts';

const root = path.resolve(import.meta.dirname, '..');
const tmp = path.join(root, '.tmp');
mkdirSync(tmp, { recursive: true });
const vitestReport = path.join(tmp, 'vitest-results.json');
const vitestGateReport = path.join(tmp, 'vitest-gate.json');
// Written by the json reporter in apps/web/playwright.config.ts.
const e2eReport = path.join(tmp, 'e2e-results.json');

type Counts = { passed: number; failed: number; skipped: number; flaky: string[] };
/** What a stage's report says: its counts and every reason it failed (empty when green). */
type Verdict = { counts: Counts; problems: string[] };
type Stage = {
  id: string;
  name: string;
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Files the command must write; removed before it runs, so a stale one is never read. */
  reports?: string[];
  readVerdict?: () => Verdict;
};

const options = parseOptions(process.argv.slice(2));
const allStages: Stage[] = [
  { id: 'lint', name: 'lint', command: ['biome', 'check', '.'] },
  // Incremental (tsBuildInfo next to each tsconfig): an unchanged project is not checked again.
  { id: 'types', name: 'types', command: ['tsc', '-b', 'packages/contracts', 'apps/server', 'apps/web', '.'] },
  {
    id: 'unit',
    name: 'unit and integration (vitest)',
    command: [
      'vitest',
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${vitestReport}`,
      `--reporter=${path.join(root, 'scripts', 'vitest-gate-reporter.ts')}`,
      ...options.vitestArgs,
    ],
    env: { VITEST_GATE_REPORT: vitestGateReport },
    reports: [vitestReport, vitestGateReport],
    readVerdict: readVitestVerdict,
  },
  {
    id: 'build',
    name: 'build console',
    command: ['vite', 'build', '--logLevel', 'warn'],
    cwd: path.join(root, 'apps/web'),
  },
  {
    id: 'e2e',
    name: 'browser (playwright, chromium)',
    command: ['playwright', 'test', '-c', 'apps/web/playwright.config.ts', ...options.playwrightArgs],
    env: { CI: process.env.CI ?? '1' },
    reports: [e2eReport],
    readVerdict: readPlaywrightVerdict,
  },
];
for (const wanted of options.only ?? [])
  if (!allStages.some((stage) => matches(stage.id, wanted))) usage(`unknown stage ${wanted}`);
const stages = allStages.filter((stage) => isSelected(stage.id));

const started = Date.now();
const timings: string[] = [];
const totals: Counts = { passed: 0, failed: 0, skipped: 0, flaky: [] };
let failedStage: string | undefined;
let ranTests = false;

for (const stage of stages) {
  const stageStart = Date.now();
  process.stdout.write(`\n▶ ${stage.name}\n`);
  for (const report of stage.reports ?? []) rmSync(report, { force: true });
  const problems = runStage(stage);
  if (stage.readVerdict) {
    ranTests = true;
    const verdict = stage.readVerdict();
    problems.push(...verdict.problems);
    totals.passed += verdict.counts.passed;
    totals.skipped += verdict.counts.skipped;
    totals.flaky.push(...verdict.counts.flaky);
    // However it failed, a failed test stage never adds `0 failed`.
    totals.failed += problems.length > 0 ? Math.max(verdict.counts.failed, 1) : verdict.counts.failed;
  }
  timings.push(`${stage.name}: ${((Date.now() - stageStart) / 1000).toFixed(1)} s`);
  if (problems.length > 0) {
    const shown = problems.slice(0, 30).map((problem) => `  - ${problem}\n`);
    if (problems.length > shown.length) shown.push(`  ... and ${problems.length - shown.length} more\n`);
    process.stdout.write(`\n✖ ${stage.name}:\n${shown.join('')}`);
    failedStage = stage.name;
    break;
  }
}

process.stdout.write(`\n${timings.join('\n')}\ntotal: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
if (ranTests) {
  process.stdout.write(`flaky: ${totals.flaky.length} (passed only on a retry)\n`);
  for (const name of totals.flaky) process.stdout.write(`  ~ ${name}\n`);
}
if (failedStage) process.stdout.write(`FAILED at: ${failedStage}\n`);
process.stdout.write(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failedStage ? 1 : 0);

/** Runs the command; returns why it failed by its exit status (empty when it exited 0). */
function runStage(stage: Stage): string[] {
  const [command, ...args] = stage.command;
  const result = spawnSync(command, args, {
    cwd: stage.cwd ?? root,
    stdio: 'inherit',
    // The project's own binaries (and its pinned node), also when run as plain `node scripts/test.ts`.
    env: {
      ...process.env,
      PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      ...stage.env,
    },
  });
  if (result.error) return [`could not run \`${command}\`: ${result.error.message}`];
  if (result.signal) return [`\`${command}\` was killed by ${result.signal}`];
  if (result.status !== 0) return [`\`${command}\` exited with code ${result.status}`];
  return [];
}

type VitestJsonReport = {
  success?: boolean;
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  numFailedTestSuites?: number;
  testResults?: {
    name: string;
    status: string;
    message?: string;
    assertionResults?: { fullName: string; status: string }[];
  }[];
};

function readVitestVerdict(): Verdict {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, flaky: [] };
  const problems: string[] = [];
  const json = readReport<VitestJsonReport>(vitestReport, problems);
  const gate = readReport<VitestGateReport>(vitestGateReport, problems);
  if (json) {
    counts.passed = json.numPassedTests ?? 0;
    counts.failed = json.numFailedTests ?? 0;
    counts.skipped = (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
    for (const file of json.testResults ?? []) {
      const name = path.relative(root, file.name);
      const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of failedTests) problems.push(`failed: ${name} > ${test.fullName}`);
      // Without the gate report, a file failed outside its tests is still named (and counted).
      if (!gate && file.status !== 'passed' && failedTests.length === 0) {
        problems.push(`file ${file.status}: ${name}${file.message ? ` (${file.message})` : ''}`);
        counts.failed += 1;
      }
    }
  }
  if (gate) {
    // Each failure outside a test (import error, throwing hook) and each unhandled error counts once.
    counts.failed += gate.failedOutsideTests.length + gate.unhandledErrors.length;
    for (const line of gate.failedOutsideTests) problems.push(`failed outside a test: ${line}`);
    for (const line of gate.unhandledErrors) problems.push(`unhandled error: ${line}`);
    counts.flaky = gate.flakyTests;
  }
  // The runners' own verdicts, in case a failure took a shape not itemised above.
  if (problems.length === 0) {
    if (json && json.success !== true) problems.push('the JSON report says success: false');
    if (json?.numFailedTestSuites)
      problems.push(`the JSON report counts ${json.numFailedTestSuites} failed suite(s)`);
    if (gate && gate.reason !== 'passed') problems.push(`vitest ended the run as ${gate.reason}`);
  }
  return { counts, problems };
}

function readPlaywrightVerdict(): Verdict {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0, flaky: [] };
  const problems: string[] = [];
  type Spec = { title: string; file: string; tests: { status: string }[] };
  type Suite = { title: string; specs?: Spec[]; suites?: Suite[] };
  const report = readReport<{
    stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number };
    errors?: { message?: string }[];
    suites?: Suite[];
  }>(e2eReport, problems);
  if (!report) return { counts, problems };
  const { stats } = report;
  if (!stats) problems.push(`${path.relative(root, e2eReport)} has no stats`);
  // A flaky test passed on a retry: it counts as passed, and is listed on its own.
  counts.passed = (stats?.expected ?? 0) + (stats?.flaky ?? 0);
  counts.failed = (stats?.unexpected ?? 0) + (report.errors?.length ?? 0);
  counts.skipped = stats?.skipped ?? 0;
  if (stats?.unexpected) problems.push(`${stats.unexpected} failed test(s)`);
  for (const error of report.errors ?? [])
    problems.push(`error outside a test: ${firstLine(error.message ?? 'unknown error')}`);
  const visit = (suite: Suite) => {
    for (const spec of suite.specs ?? [])
      if (spec.tests.some((test) => test.status === 'flaky'))
        counts.flaky.push(`${spec.file} > ${spec.title}`);
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites ?? []) visit(suite);
  return { counts, problems };
}

function readReport<T>(file: string, problems: string[]): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    problems.push(`no readable report at ${path.relative(root, file)} (${(error as Error).message})`);
    return undefined;
  }
}

function firstLine(text: string) {
  return text.split('\n')[0];
}

function parseOptions(argv: string[]) {
  const parsed = {
    only: undefined as string[] | undefined,
    vitestArgs: [] as string[],
    playwrightArgs: [] as string[],
  };
  let noE2e = false;
  for (const arg of argv) {
    const [flag, value] = splitFlag(arg);
    if (flag === '--no-e2e' && value === undefined) noE2e = true;
    else if (flag === '--only' && value) parsed.only = value.split(',').filter(Boolean);
    else if (flag === '--vitest-arg' && value !== undefined) parsed.vitestArgs.push(value);
    else if (flag === '--playwright-arg' && value !== undefined) parsed.playwrightArgs.push(value);
    else usage(`unknown option ${arg}`);
  }
  return { ...parsed, noE2e };
}

function isSelected(id: string) {
  if (options.noE2e && (id === 'build' || id === 'e2e')) return false;
  if (!options.only) return true;
  return options.only.some((wanted) => matches(id, wanted));
}

function matches(id: string, wanted: string) {
  return wanted === id || id.startsWith(`${wanted}:`);
}

function splitFlag(arg: string): [string, string | undefined] {
  const at = arg.indexOf('=');
  return at === -1 ? [arg, undefined] : [arg.slice(0, at), arg.slice(at + 1)];
}

function usage(problem: string): never {
  process.stderr.write(
    `${problem}\nusage: node scripts/test.ts [--no-e2e] [--only=lint,types,types:server,unit,build,e2e] ` +
      '[--vitest-arg=<arg>]... [--playwright-arg=<arg>]...\n',
  );
  process.exit(2);
}
