import { sql } from 'kysely';
import { prepareBulkSend, sendToEveryone, signIn, waitForHandOver } from '../support/bulk-send-fixture.ts';
import { settleBefore } from '../support/machine-pace.ts';
import type { BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';

/** The company's provider rate: the simulator's messages per second. */
const RATE = 5000;

/**
 * Issue 36: a rate-limited send keeps a steady pace. 20,000 recipients at 5,000 a second, ten
 * times: the hand-over should take about 4 s, with no pause between two submissions longer than
 * a second (a batch that waited for a rescan, or for the queue's backoff, shows here).
 */
export const scenario: BenchScenario = {
  name: 'steady-pace',
  description: `a send capped at ${RATE.toLocaleString('en-US')} msg/s by the company's provider rate, ten times`,
  async run(ctx) {
    const size = ctx.quick ? 5000 : 20_000;
    const rounds = ctx.quick ? 2 : 10;
    const fixture = await prepareBulkSend(ctx.databaseUrl, size);
    ctx.report(await settleBefore(ctx, 'steady-pace', 'the sends'));
    const server = await startServerProcess({
      databaseUrl: ctx.databaseUrl,
      role: 'both',
      env: {
        SIMULATOR_MESSAGES_PER_SECOND: String(RATE),
        SIMULATOR_DELIVERY_DELAY_MS: '600000',
        SIMULATOR_FAIL_RATE: '0',
      },
    });
    try {
      const url = server.url as string;
      const token = await signIn(url, fixture.adminEmail);
      const totals: number[] = [];
      const gaps: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const startedAt = performance.now();
        const { messageId } = await sendToEveryone(url, token, fixture.serviceIds);
        const timings = await waitForHandOver(fixture.owner, messageId, startedAt, 5 * 60_000);
        // The hand-over alone: from the first submission to the last (the fan-out comes before).
        const { rows } = await sql<{ total_ms: number; longest_gap_ms: number }>`
          select extract(epoch from max(submitted_at) - min(submitted_at)) * 1000 as total_ms,
                 coalesce(max(gap), 0) * 1000 as longest_gap_ms
            from (select submitted_at,
                         extract(epoch from submitted_at - lag(submitted_at) over (order by submitted_at)) as gap
                    from delivery_reports where message_id = ${messageId} and submitted_at is not null) s`.execute(
          fixture.owner.db,
        );
        totals.push(Number(rows[0].total_ms));
        gaps.push(Number(rows[0].longest_gap_ms));
        ctx.log(
          `round ${round + 1}: ${timings.recipients} handed over in ${(Number(rows[0].total_ms) / 1000).toFixed(2)} s, longest gap ${Number(rows[0].longest_gap_ms).toFixed(0)} ms`,
        );
      }
      const work = `${size.toLocaleString('en-US')} recipients x ${rounds} rounds at ${RATE.toLocaleString('en-US')}/s`;
      const slowest = Math.max(...totals) / 1000;
      const longestGap = Math.max(...gaps);
      const target = size / RATE + 1;
      ctx.report({
        scenario: 'steady-pace',
        measure: 'slowest round, first to last submission',
        work,
        figure: slowest,
        unit: 's',
        baseline: { name: 'target', figure: target },
        target: `<= ${target} s`,
        met: slowest <= target,
      });
      ctx.report({
        scenario: 'steady-pace',
        measure: 'longest gap between consecutive submissions',
        work,
        figure: longestGap,
        unit: 'ms',
        baseline: { name: 'target', figure: 1000 },
        target: '<= 1,000 ms',
        met: longestGap <= 1000,
      });
    } finally {
      await server.stop();
      await fixture.owner.close();
    }
  },
};
