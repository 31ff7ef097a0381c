/**
 * `npm test`: lint, types, unit + integration (vitest), console build, browser (Playwright), in
 * that order, stopping at the first failing stage (`FAILED at: <stage>`); it ends with one line,
 * `tests: N passed, N failed, N skipped`.
 *
 * A test stage fails when its command exits non-zero, when it wrote no readable report, or when
 * its report names any failure: an exit code alone was once overwritten by a library's exit hook.
 * Every failure counts, also outside a test (import error, throwing hook or setup, unhandled
 * error), and a failed stage never adds `0 failed`.
 *
 * Options: `--no-e2e` (no build, no browser); `--only=<id>,...` (lint, types, unit, build, e2e);
 * `--vitest-arg=<arg>` and `--playwright-arg=<arg>` (repeatable) pass filters or flags on.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { VitestGateReport } from './vitest-gate-reporter.ts';

const root = path.resolve(import.meta.dirname, '..');
const tmp = path.join(root, '.tmp');
const vitestReport = path.join(tmp, 'vitest-gate.json');
const e2eReport = path.join(tmp, 'e2e-results.json'); // written by apps/web/playwright.config.ts

type Verdict = { passed: number; skipped: number; failures: string[]; flaky: string[] };
type Stage = {
  id: string;
  name: string;
  command: string[];
  cwd?: string;
  report?: string;
  verdict?: () => Verdict;
};

const argv = process.argv.slice(2);
const valuesOf = (flag: string) =>
  argv.filter((arg) => arg.startsWith(`${flag}=`)).map((arg) => arg.slice(flag.length + 1));
const only = valuesOf('--only').flatMap((value) => value.split(','));
for (const arg of argv)
  if (!/^--(only|vitest-arg|playwright-arg)=/.test(arg) && arg !== '--no-e2e') usage(`unknown option ${arg}`);

const allStages: Stage[] = [
  { id: 'lint', name: 'lint', command: ['biome', 'check', '.'] },
  // Incremental (a .tsbuildinfo beside each tsconfig): an unchanged project is not checked again.
  {
    id: 'types',
    name: 'types',
    command: ['tsc', '-b', 'packages/contracts', 'apps/server', 'apps/web', '.'],
  },
  {
    id: 'unit',
    name: 'unit and integration (vitest)',
    command: [
      'vitest',
      'run',
      '--reporter=default',
      `--reporter=${path.join(root, 'scripts/vitest-gate-reporter.ts')}`,
      ...valuesOf('--vitest-arg'),
    ],
    report: vitestReport,
    verdict: () => {
      const report = readReport<VitestGateReport>(vitestReport);
      if (report.reason !== 'passed' && report.failures.length === 0)
        report.failures.push(`vitest ended the run as ${report.reason}`);
      return report;
    },
  },
  { id: 'build', name: 'build console', command: ['vite', 'build', '--logLevel', 'warn'], cwd: 'apps/web' },
  {
    id: 'e2e',
    name: 'browser (playwright, chromium)',
    command: ['playwright', 'test', '-c', 'apps/web/playwright.config.ts', ...valuesOf('--playwright-arg')],
    report: e2eReport,
    verdict: readPlaywrightVerdict,
  },
];
for (const id of only) if (!allStages.some((stage) => stage.id === id)) usage(`unknown stage ${id}`);
const stages = allStages.filter(
  (stage) =>
    (only.length === 0 || only.includes(stage.id)) &&
    !(argv.includes('--no-e2e') && ['build', 'e2e'].includes(stage.id)),
);

mkdirSync(tmp, { recursive: true });
const started = Date.now();
const totals = { passed: 0, failed: 0, skipped: 0, flaky: [] as string[] };
const timings: string[] = [];
let failedStage: string | undefined;
for (const stage of stages) {
  const stageStart = Date.now();
  process.stdout.write(`\n▶ ${stage.name}\n`);
  if (stage.report) rmSync(stage.report, { force: true }); // never read a stale one
  const problems = run(stage);
  if (stage.verdict) {
    let verdict: Verdict;
    try {
      verdict = stage.verdict();
    } catch (error) {
      verdict = {
        passed: 0,
        skipped: 0,
        failures: [`no readable report (${(error as Error).message})`],
        flaky: [],
      };
    }
    problems.push(...verdict.failures);
    totals.passed += verdict.passed;
    totals.skipped += verdict.skipped;
    totals.failed += Math.max(verdict.failures.length, problems.length > 0 ? 1 : 0);
    totals.flaky.push(...verdict.flaky);
  }
  // A stage without a report (lint, types, build) that fails still counts once.
  if (!stage.verdict && problems.length > 0) totals.failed += 1;
  timings.push(`${stage.name}: ${((Date.now() - stageStart) / 1000).toFixed(1)} s`);
  if (problems.length > 0) {
    process.stdout.write(
      `\n✖ ${stage.name}:\n${problems
        .slice(0, 30)
        .map((problem) => `  - ${problem}\n`)
        .join('')}`,
    );
    failedStage = stage.name;
    break;
  }
}
process.stdout.write(`\n${timings.join('\n')}\ntotal: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
if (stages.some((stage) => stage.verdict)) {
  process.stdout.write(`flaky: ${totals.flaky.length} (passed only on a retry)\n`);
  for (const name of totals.flaky) process.stdout.write(`  ~ ${name}\n`);
}
if (failedStage) process.stdout.write(`FAILED at: ${failedStage}\n`);
process.stdout.write(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failedStage ? 1 : 0);

function run(stage: Stage): string[] {
  const [command, ...args] = stage.command;
  const result = spawnSync(command, args, {
    cwd: path.join(root, stage.cwd ?? ''),
    stdio: 'inherit',
    env: {
      ...process.env,
      // The project's own binaries (and pinned node), also when run as plain `node scripts/test.ts`.
      PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      VITEST_GATE_REPORT: vitestReport,
      // Node keeps what it compiled (the server's modules, tsc, vite, the libraries): the servers the
      // tests spawn (fault suites, browser tests) and the tools start in about half the CPU time.
      NODE_COMPILE_CACHE:
        process.env.NODE_COMPILE_CACHE ?? path.join(root, 'node_modules', '.cache', 'node-compile-cache'),
      CI: process.env.CI ?? '1',
    },
  });
  if (result.error) return [`could not run \`${command}\`: ${result.error.message}`];
  if (result.status !== 0)
    return [`\`${command}\` ended with ${result.signal ?? `exit code ${result.status}`}`];
  return [];
}

function readPlaywrightVerdict(): Verdict {
  type Suite = { specs?: { title: string; file: string; tests: { status: string }[] }[]; suites?: Suite[] };
  const report = readReport<{
    stats: { expected: number; unexpected: number; flaky: number; skipped: number };
    errors?: { message?: string }[];
    suites?: Suite[];
  }>(e2eReport);
  const { stats } = report;
  const verdict: Verdict = {
    passed: stats.expected + stats.flaky,
    skipped: stats.skipped,
    failures: [],
    flaky: [],
  };
  const visit = (suite: Suite) => {
    for (const spec of suite.specs ?? []) {
      const name = `${spec.file} > ${spec.title}`;
      if (spec.tests.some((test) => test.status === 'unexpected')) verdict.failures.push(name);
      if (spec.tests.some((test) => test.status === 'flaky')) verdict.flaky.push(name);
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites ?? []) visit(suite);
  for (let i = verdict.failures.length; i < stats.unexpected; i++) verdict.failures.push('a failed test');
  for (const error of report.errors ?? [])
    verdict.failures.push(`outside a test: ${error.message?.split('\n')[0]}`);
  return verdict;
}

function readReport<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

function usage(problem: string): never {
  process.stderr.write(
    `${problem}\nusage: node scripts/test.ts [--no-e2e] [--only=lint,types,unit,build,e2e] [--vitest-arg=<arg>]... [--playwright-arg=<arg>]...\n`,
  );
  process.exit(2);
}
