/**
 * `npm test`: the one validate script (lint, types, unit + integration, browser), run in that
 * order so the cheap checks fail first. It ends with one plain line, `tests: N passed, N failed`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const tmp = path.join(root, '.tmp');
mkdirSync(tmp, { recursive: true });
const vitestReport = path.join(tmp, 'vitest-results.json');
const e2eReport = path.join(tmp, 'e2e-results.json');
const skipE2e = process.argv.includes('--no-e2e');

type Step = { name: string; command: string[]; env?: Record<string, string> };
const steps: Step[] = [
  { name: 'lint', command: ['biome', 'check', '.'] },
  { name: 'types: contracts', command: ['tsc', '-p', 'packages/contracts'] },
  { name: 'types: server', command: ['tsc', '-p', 'apps/server'] },
  { name: 'types: web', command: ['tsc', '-p', 'apps/web'] },
  { name: 'types: bench and scripts', command: ['tsc', '-p', '.'] },
  {
    name: 'unit and integration (vitest)',
    command: ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestReport}`],
  },
];
if (!skipE2e) {
  steps.push({ name: 'build console', command: ['vite', 'build', '--logLevel', 'warn'], env: {} });
  steps.push({
    name: 'browser (playwright, chromium)',
    command: ['playwright', 'test', '-c', 'apps/web/playwright.config.ts'],
    env: { CI: process.env.CI ?? '1' },
  });
}

const started = Date.now();
const timings: string[] = [];
let failedStep: string | undefined;
for (const report of [vitestReport, e2eReport]) rmSync(report, { force: true });

for (const step of steps) {
  const stepStart = Date.now();
  process.stdout.write(`\n▶ ${step.name}\n`);
  const cwd = step.name === 'build console' ? path.join(root, 'apps/web') : root;
  const result = spawnSync(step.command[0], step.command.slice(1), {
    cwd,
    stdio: 'inherit',
    env: { ...process.env, ...step.env },
  });
  timings.push(`${step.name}: ${((Date.now() - stepStart) / 1000).toFixed(1)} s`);
  if (result.status !== 0) {
    failedStep = step.name;
    break;
  }
}

const counts = { passed: 0, failed: 0, skipped: 0 };
if (existsSync(vitestReport)) {
  const report = JSON.parse(readFileSync(vitestReport, 'utf8'));
  counts.passed += report.numPassedTests ?? 0;
  counts.failed += report.numFailedTests ?? 0;
  counts.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
if (existsSync(e2eReport)) {
  const { stats } = JSON.parse(readFileSync(e2eReport, 'utf8'));
  counts.passed += (stats?.expected ?? 0) + (stats?.flaky ?? 0);
  counts.failed += stats?.unexpected ?? 0;
  counts.skipped += stats?.skipped ?? 0;
}

process.stdout.write(`\n${timings.join('\n')}\ntotal: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
if (failedStep) process.stdout.write(`FAILED at: ${failedStep}\n`);
process.stdout.write(`tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
process.exit(failedStep || counts.failed > 0 ? 1 : 0);
