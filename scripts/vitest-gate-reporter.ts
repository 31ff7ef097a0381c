/**
 * The vitest reporter `npm test` (scripts/test.ts) reads: counts, and every failure outside a test
 * (an import error, a throwing hook or global setup, a crashed worker, an unhandled error), which
 * vitest's JSON report leaves out or lets pass. It writes $VITEST_GATE_REPORT.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

export type VitestGateReport = {
  reason: TestRunEndReason;
  passed: number;
  skipped: number;
  /** One line per failed test, failure outside a test, and unhandled error. */
  failures: string[];
  flaky: string[];
};

export default class VitestGateReporter implements Reporter {
  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ) {
    const report: VitestGateReport = { reason, passed: 0, skipped: 0, failures: [], flaky: [] };
    for (const error of unhandledErrors) report.failures.push(`unhandled error: ${error.message}`);
    for (const module of modules) {
      const file = path.relative(process.cwd(), module.moduleId);
      const failuresBefore = report.failures.length;
      for (const holder of [module, ...module.children.allSuites()])
        for (const error of holder.errors())
          report.failures.push(`${file} (outside a test): ${error.message}`);
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') report.passed += 1;
        else if (state === 'failed') report.failures.push(`${file} > ${test.fullName}`);
        else report.skipped += 1;
        if (test.diagnostic()?.flaky) report.flaky.push(`${file} > ${test.fullName}`);
      }
      if (module.state() === 'failed' && report.failures.length === failuresBefore)
        report.failures.push(`${file}: failed without a recorded error`);
    }
    writeFileSync(process.env.VITEST_GATE_REPORT!, JSON.stringify(report, null, 2));
  }
}
