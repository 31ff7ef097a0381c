import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryUpdate } from '../src/messaging/providers/provider.ts';
import { createCompany } from './support/factories.ts';
import {
  applyReports,
  countTotals,
  insertHandedOverMessage,
  recipientsOf,
  unmatchedIds,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * apply_delivery_report_inbox with the ids the hand-over records: every part's (a recipient decided by
 * all its parts), and another number base's form beside an SMSC's own (matched only when no id is
 * exactly the report's, and only when it names one recipient).
 */
let ctx: TestContext;
let companyId: number;

beforeAll(async () => {
  ctx = await createTestContext();
  companyId = (await createCompany(ctx.ownerDb)).id;
});
afterAll(async () => {
  await ctx?.close();
});

const report = (
  id: string,
  status: DeliveryUpdate['status'],
  error: string | null = null,
): DeliveryUpdate => ({
  providerMessageId: id,
  status,
  providerStatus: status === 'delivered' ? 'DELIVRD' : 'UNDELIV',
  error,
  at: new Date(),
});

const apply = (updates: DeliveryUpdate[]) => applyReports(ctx.db, companyId, updates);

/** A handed-over message, one recipient per first id; `extra` adds ids: [recipient index, id, part, alternative]. */
async function handedOver(
  firstIds: string[],
  extra: [number, string, number, boolean][],
  reportParts: number | null,
) {
  const messageId = await insertHandedOverMessage(ctx.ownerDb, companyId, firstIds, { send: true });
  const recipients = await recipientsOf(ctx.ownerDb, messageId);
  await sql`update delivery_reports set report_parts = ${reportParts} where message_id = ${messageId}`.execute(
    ctx.ownerDb,
  );
  for (const [index, id, part, alternative] of extra) {
    const recipient = recipients[index]!;
    await sql`
      insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id, part, alternative)
      values (${companyId}, ${id}, ${recipient.created_at}, ${messageId}, ${recipient.id}, ${part}, ${alternative})`.execute(
      ctx.ownerDb,
    );
  }
  return messageId;
}

describe('a recipient of two parts', () => {
  it('fails with the failed part’s reason when both parts report in one batch, counted once', async () => {
    const messageId = await handedOver(['P1-a'], [[0, 'P1-b', 2, false]], 2);
    expect(await apply([report('P1-a', 'delivered'), report('P1-b', 'failed', 'UNDELIV (err 001)')])).toBe(2);
    const [row] = await recipientsOf(ctx.ownerDb, messageId);
    expect(row).toMatchObject({ status: 'failed', error_message: 'UNDELIV (err 001)' });
    expect(await countTotals(ctx.ownerDb, messageId)).toMatchObject({
      submitted: 0,
      failed: 1,
      delivered: 0,
    });
  });

  it('is delivered once both parts are, in one batch or two, and counted once', async () => {
    const together = await handedOver(['P2-a'], [[0, 'P2-b', 2, false]], 2);
    await apply([report('P2-b', 'delivered'), report('P2-a', 'delivered')]);
    expect((await recipientsOf(ctx.ownerDb, together))[0]).toMatchObject({
      status: 'delivered',
      delivered_parts: [1, 2],
    });
    expect(await countTotals(ctx.ownerDb, together)).toMatchObject({ submitted: 0, sent: 0, delivered: 1 });

    const apart = await handedOver(['P3-a'], [[0, 'P3-b', 2, false]], 2);
    await apply([report('P3-b', 'delivered')]);
    // A repeat of the same part does not complete it.
    await apply([report('P3-b', 'delivered')]);
    expect((await recipientsOf(ctx.ownerDb, apart))[0]).toMatchObject({
      status: 'sent',
      delivered_parts: [2],
    });
    await apply([report('P3-a', 'delivered')]);
    expect((await recipientsOf(ctx.ownerDb, apart))[0]).toMatchObject({ status: 'delivered' });
    expect(await countTotals(ctx.ownerDb, apart)).toMatchObject({ submitted: 0, sent: 0, delivered: 1 });
  });
});

describe("an id in another number base's form", () => {
  it('goes to the recipient whose own id it is, never to one with it as an alternative', async () => {
    const messageId = await handedOver(['A-own', 'A-other'], [[1, 'A-own', 1, true]], null);
    await apply([report('A-own', 'delivered')]);
    expect((await recipientsOf(ctx.ownerDb, messageId)).map((row) => row.status)).toEqual([
      'delivered',
      'submitted',
    ]);
  });

  it('matches the one recipient it is an alternative of, and nobody when it is two recipients’', async () => {
    const messageId = await handedOver(
      ['B-1', 'B-2', 'B-3'],
      [
        [0, '4096', 1, true],
        [1, '255', 1, true],
        [2, '255', 1, true],
      ],
      null,
    );
    await apply([report('4096', 'delivered'), report('255', 'delivered')]);
    expect(await unmatchedIds(ctx.ownerDb, companyId)).toContain('255');
    expect((await recipientsOf(ctx.ownerDb, messageId)).map((row) => row.status)).toEqual([
      'delivered',
      'submitted',
      'submitted',
    ]);
  });
});
