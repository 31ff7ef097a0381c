/**
 * A vitest reporter for `npm test` (scripts/test.ts): what vitest's JSON report leaves out.
 * The JSON report says `success: true` when a test passes but leaves an unhandled rejection
 * behind, and it has no notion of flaky tests; this one records both, with the run's own verdict.
 * It writes `$VITEST_GATE_REPORT` (default `.tmp/vitest-gate.json`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

export type VitestGateReport = {
  reason: TestRunEndReason;
  unhandledErrors: string[];
  flakyTests: string[];
  /** Failures outside any test, one per file or suite: import errors, throwing hooks, syntax errors. */
  failedOutsideTests: string[];
};

export const DEFAULT_VITEST_GATE_REPORT = path.resolve(import.meta.dirname, '..', '.tmp', 'vitest-gate.json');

export default class VitestGateReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ) {
    const report: VitestGateReport = {
      reason,
      unhandledErrors: unhandledErrors.map((error) => `${error.name ?? 'Error'}: ${error.message}`),
      flakyTests: [],
      failedOutsideTests: [],
    };
    for (const testModule of testModules) {
      const file = path.relative(process.cwd(), testModule.moduleId);
      const tests = [...testModule.children.allTests()];
      for (const test of tests)
        if (test.diagnostic()?.flaky) report.flakyTests.push(`${file} > ${test.fullName}`);
      const outside = describeFailuresOutsideTests(testModule, file);
      // A file can end failed with no error of its own recorded (a crashed worker, say).
      const failedInATest = tests.some((test) => test.result().state === 'failed');
      if (testModule.state() === 'failed' && outside.length === 0 && !failedInATest)
        outside.push(`${file}: failed without a failing test`);
      report.failedOutsideTests.push(...outside);
    }
    const file = process.env.VITEST_GATE_REPORT ?? DEFAULT_VITEST_GATE_REPORT;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(report, null, 2));
  }
}

function describeFailuresOutsideTests(testModule: TestModule, file: string) {
  const lines: string[] = [];
  for (const holder of [testModule, ...testModule.children.allSuites()]) {
    const [error] = holder.errors();
    if (error)
      lines.push(`${holder.type === 'module' ? file : `${file} > ${holder.fullName}`}: ${error.message}`);
  }
  return lines;
}
