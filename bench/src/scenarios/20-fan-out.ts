import {
  countDoubleSends,
  prepareBulkSend,
  sendToEveryone,
  signIn,
  waitForHandOver,
} from '../support/bulk-send-fixture.ts';
import type { BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';

/** The simulator at an unlimited rate; its delivery reports held back past the hand-over (scenario delivery-reports measures those). */
export const SIMULATOR_ENV = {
  SIMULATOR_MESSAGES_PER_SECOND: '100000000',
  SIMULATOR_DELIVERY_DELAY_MS: '600000',
  SIMULATOR_FAIL_RATE: '0.02',
};

export const scenario: BenchScenario = {
  name: 'fan-out',
  description:
    'a bulk send to every subscriber of 3 overlapping services, through the real server (role both) and the simulator',
  async run(ctx) {
    const size = ctx.quick ? 30_000 : 1_000_000;
    const fixture = await prepareBulkSend(ctx.databaseUrl, size);
    ctx.log(
      `${size.toLocaleString('en-US')} subscribers, ${fixture.subscriptions.toLocaleString('en-US')} subscriptions`,
    );
    const server = await startServerProcess({
      databaseUrl: ctx.databaseUrl,
      role: 'both',
      env: SIMULATOR_ENV,
    });
    try {
      const url = server.url as string;
      const token = await signIn(url, fixture.adminEmail);
      const startedAt = performance.now();
      const { messageId, apiMs } = await sendToEveryone(url, token, fixture.serviceIds);
      const timings = await waitForHandOver(fixture.owner, messageId, startedAt, 20 * 60_000);
      const doubles = await countDoubleSends(fixture.owner, messageId);
      if (timings.recipients !== size || doubles.duplicate_phones > 0)
        throw new Error(
          `expected ${size} distinct recipients, got ${timings.recipients} (${JSON.stringify(doubles)})`,
        );
      const work = `${size.toLocaleString('en-US')} recipients, 3 services`;
      const rowsPerSecond = size / (timings.rowsWrittenMs / 1000);
      const handedPerSecond = size / (timings.handedOverMs / 1000);
      const rCopy = ctx.baselines.R_copy;
      ctx.report({
        scenario: 'fan-out',
        measure: 'API call (POST /messages/bulk/send)',
        work,
        figure: apiMs,
        unit: 'ms',
        baseline: { name: 'target', figure: 200 },
        target: '< 200 ms',
        met: apiMs < 200,
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'recipient rows written',
        work,
        figure: rowsPerSecond,
        unit: 'rows/s',
        ...(rCopy ? { baseline: { name: 'R_copy', figure: rCopy }, met: rowsPerSecond >= 0.5 * rCopy } : {}),
        target: '>= 0.5 x R_copy',
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'all rows written after',
        work,
        figure: timings.rowsWrittenMs / 1000,
        unit: 's',
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'all handed to the simulator after',
        work,
        figure: timings.handedOverMs / 1000,
        unit: 's',
        baseline: { name: 'target', figure: 30 * (size / 1_000_000) },
        target: `<= ${30 * (size / 1_000_000)} s`,
        met: timings.handedOverMs / 1000 <= 30 * (size / 1_000_000),
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'hand-over rate',
        work,
        figure: handedPerSecond,
        unit: 'msg/s',
        baseline: { name: 'target', figure: 33_000 },
        target: '>= 33,000 msg/s',
        met: handedPerSecond >= 33_000,
      });
    } finally {
      await server.stop();
      await fixture.owner.close();
    }
  },
};
