import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshRecipientStatistics } from '../src/messaging/fan-out.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

// A month of its own, far ahead: its partition is fresh, and nothing else writes to it.
const month = new Date('2031-05-01T00:00:00Z');
const at = new Date('2031-05-10T12:00:00Z');

async function writeRecipients(count: number) {
  await sql`
    insert into delivery_reports (company_id, created_at, message_id, recipient_phone)
    select 1, ${at}::timestamptz, 1, '+2547000' || lpad(n::text, 5, '0') from generate_series(1, ${count}) n`.execute(
    ctx.ownerDb,
  );
}

async function rowsInStatistics() {
  const { rows } = await sql<{ reltuples: number }>`
    select reltuples from pg_class where oid = to_regclass('delivery_reports_y2031m05')`.execute(ctx.ownerDb);
  return Number(rows[0].reltuples);
}

describe('refreshRecipientStatistics', () => {
  // A fan-out refreshes its partition's statistics as it fills a fresh month; a partition whose
  // statistics already count as many rows as the send has written is left to autovacuum (an
  // ANALYZE of a full month samples the whole partition while the fan-out waits).
  it('analyzes the partition only while its statistics count fewer rows than the send has written', async () => {
    await sql`select ensure_delivery_report_partition(${month}::timestamptz)`.execute(ctx.ownerDb);
    expect(await rowsInStatistics()).toBe(-1);

    await writeRecipients(10);
    expect(await refreshRecipientStatistics(ctx.db, at, 10)).toBe(true);
    expect(await rowsInStatistics()).toBe(10);

    await writeRecipients(10);
    // The statistics know 10 rows, as many as this send has written: nothing to refresh.
    expect(await refreshRecipientStatistics(ctx.db, at, 10)).toBe(false);
    expect(await rowsInStatistics()).toBe(10);

    expect(await refreshRecipientStatistics(ctx.db, at, 20)).toBe(true);
    expect(await rowsInStatistics()).toBe(20);
  });

  it('does nothing for a month without a partition', async () => {
    expect(await refreshRecipientStatistics(ctx.db, new Date('2099-01-15T00:00:00Z'), 1000)).toBe(false);
  });
});
