import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral } from '../src/messaging/dispatch.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

describe('the hand-over’s array literals', () => {
  it('come back from PostgreSQL as the values they were made of, whatever a provider put in them', async () => {
    const values = [
      'SIM-1',
      '',
      'NULL',
      'null',
      'with "quotes"',
      'back\\slash',
      'trailing\\',
      '\\"',
      'a,b',
      '{braces}',
      ' spaced ',
      'üñíçødé 🚀',
      'line\nbreak',
      null,
      'after null',
    ];
    const { rows } = await sql<{ value: string | null }>`
      select value from unnest(${arrayLiteral(values)}::text[]) with ordinality as u(value, n) order by n`.execute(
      ctx.ownerDb,
    );
    expect(rows.map((row) => row.value)).toEqual(values);
  });

  it('carry no element for an empty list, and times as instants', async () => {
    const { rows: empty } = await sql<{ n: number }>`
      select cardinality(${arrayLiteral([])}::text[]) as n`.execute(ctx.ownerDb);
    expect(empty[0].n).toBe(0);
    const at = new Date('2026-11-23T18:30:00.123Z');
    const { rows } = await sql<{ value: Date | null }>`
      select value from unnest(${arrayLiteral([at.toISOString(), null])}::timestamptz[]) with ordinality as u(value, n)
       order by n`.execute(ctx.ownerDb);
    expect(rows.map((row) => row.value?.getTime() ?? null)).toEqual([at.getTime(), null]);
  });
});
