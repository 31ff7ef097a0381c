import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchBatch, type LaneCursor, type SharedLanes } from '../src/messaging/dispatch.ts';
import type { CompanyProvider } from '../src/messaging/providers/registry.ts';
import { anyTokens, fannedOutSend, recipientsOf, scriptedProvider } from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;

// No worker: the test drives the lanes of one process itself, batch by batch.
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const policy = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 };

describe('hand-over lanes of one process', () => {
  it('step over a sibling’s block without going back to it, start where their siblings got, and the holder of a rolled-back batch takes it again', async () => {
    const plan = await fannedOutSend(ctx, 24, { prefix: 61, message: 'Lanes' });
    const provider = scriptedProvider(() => 'accepted');
    const companyProvider: CompanyProvider = { provider, batchSize: 4, messagesPerSecond: 1000 };
    const shared: SharedLanes = { frontier: 0, held: new Set(), rescannedAt: Date.now() };
    const lane = (): LaneCursor => ({ cursor: 0, revisitFrom: null, revisitUntil: null, shared });
    const offeredBy = async (cursor: LaneCursor, tokens = anyTokens) => {
      const before = provider.offers.length;
      await dispatchBatch(ctx.db, plan, companyProvider, cursor, policy, tokens);
      return provider.offers.slice(before).map((offer) => Number(offer.key));
    };

    // Lane a holds the send's first block and has not recorded anything yet.
    const a = lane();
    let holding = () => {};
    let rollBack = (_error: Error) => {};
    const aHolds = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const batchOfA = dispatchBatch(ctx.db, plan, companyProvider, a, policy, () => {
      holding();
      return new Promise((_resolve, reject) => {
        rollBack = reject;
      });
    });
    await aHolds;

    // Lane b steps over it (a sibling holds it) without noting it for a look back.
    const b = lane();
    const byB = await offeredBy(b);
    expect(byB.length).toBeGreaterThan(0);
    expect(b.revisitFrom ?? null).toBeNull();

    // a's batch rolls back: its rows are pending again.
    rollBack(new Error('rolled back'));
    await expect(batchOfA).rejects.toThrow('rolled back');

    // A new lane going forward starts where b got, not at a's released block.
    const c = lane();
    const byC = await offeredBy(c);
    expect(byC.length).toBeGreaterThan(0);
    expect(Math.min(...byC)).toBeGreaterThan(Math.max(...byB));

    // a takes its block again at once (nobody else goes back for it), then goes on where the others got.
    const againByA = await offeredBy(a);
    expect(againByA.length).toBeGreaterThan(0);
    expect(Math.max(...againByA)).toBeLessThan(Math.min(...byB));
    const nextByA = await offeredBy(a);
    expect(Math.min(...nextByA)).toBeGreaterThan(Math.max(...byC));

    // The rest, by every lane: everyone once.
    for (let round = 0; round < 20; round++) {
      const moved = [...(await offeredBy(a)), ...(await offeredBy(b)), ...(await offeredBy(c))];
      if (moved.length === 0) break;
    }
    const recipients = await recipientsOf(ctx.ownerDb, plan.messageId);
    expect(recipients).toHaveLength(24);
    expect(recipients.every((recipient) => recipient.status === 'submitted')).toBe(true);
    const keys = provider.offers.map((offer) => offer.key);
    expect(new Set(keys).size).toBe(24);
    expect(keys).toHaveLength(24);
  });
});
