import { prepareBulkSend, sendToEveryone, signIn } from '../support/bulk-send-fixture.ts';
import { settleBefore } from '../support/machine-pace.ts';
import type { BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';
import {
  pendingOf,
  prepareTransactionalCompany,
  sendTransactional,
  waitUntilHandedOver,
} from '../support/transactional-fixture.ts';
import { SIMULATOR_ENV } from './20-fan-out.ts';

/** Issue 38: a transactional send is handed over within this while a bulk send runs. */
const TARGET_SECONDS = 2;

export const scenario: BenchScenario = {
  name: 'transactional',
  description:
    'a transactional send (one number) while a bulk send is being handed over: from another company, and from the bulk send’s own',
  async run(ctx) {
    const size = Number(process.env.TRANSACTIONAL_BULK_SIZE) || (ctx.quick ? 30_000 : 1_000_000);
    const fixture = await prepareBulkSend(ctx.databaseUrl, size);
    const otp = await prepareTransactionalCompany(fixture.owner.db);
    const [bulkService] = fixture.serviceIds;
    const settled = await settleBefore(ctx, 'transactional', 'the sends');
    const server = await startServerProcess({
      databaseUrl: ctx.databaseUrl,
      role: 'both',
      env: SIMULATOR_ENV,
    });
    try {
      const url = server.url as string;
      const bulkToken = await signIn(url, fixture.adminEmail);
      const otpToken = await signIn(url, otp.adminEmail);
      const { messageId: bulkId } = await sendToEveryone(url, bulkToken, fixture.serviceIds);
      // The bulk send's hand-over has begun: its batches are queued and some are running.
      const began = performance.now();
      for (;;) {
        const send = await pendingOf(fixture.owner, bulkId);
        if (send && send.state === 'dispatch' && send.pending < send.recipients) break;
        if (performance.now() - began > 20 * 60_000)
          throw new Error('the bulk send never began its hand-over');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const work = `1 number, during a ${size.toLocaleString('en-US')}-recipient bulk send`;
      for (const [who, token, serviceId, to] of [
        ['another company', otpToken, otp.serviceId, '+254790000001'],
        ['the bulk send’s company', bulkToken, bulkService, '+254790000002'],
      ] as const) {
        const startedAt = performance.now();
        const messageId = await sendTransactional(url, token, serviceId, to);
        const ms = await waitUntilHandedOver(fixture.owner, messageId, startedAt, 60_000);
        const bulk = await pendingOf(fixture.owner, bulkId);
        ctx.log(
          `${who}: handed over after ${ms.toFixed(0)} ms; the bulk send had ${bulk?.pending.toLocaleString('en-US')} recipients still pending`,
        );
        if (!bulk || bulk.pending === 0)
          ctx.log('  (the bulk send had finished: this figure was not measured under load)');
        ctx.report({
          scenario: 'transactional',
          measure: `POST /messages to handed over (${who})`,
          work,
          figure: ms / 1000,
          unit: 's',
          baseline: { name: 'target', figure: TARGET_SECONDS },
          target: `<= ${TARGET_SECONDS} s`,
          met: ms / 1000 <= TARGET_SECONDS && !!bulk && bulk.pending > 0,
        });
      }
      ctx.report(settled);
    } finally {
      await server.stop();
      await fixture.owner.close();
    }
  },
};
