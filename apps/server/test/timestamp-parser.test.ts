import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { inTenantTransaction, platformScope } from '../src/db/tenant-scope.ts';
import { fastTimestamptzParser } from '../src/db/timestamp-parser.ts';
import { seededRandom } from './support/seeded-random.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// database.ts has put the fast parser in the driver; its fallback is the driver's own (postgres-date).
const installed = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as ReturnType<
  typeof fastTimestamptzParser
>;
const driverParser = installed.fallback;
const timeOf = (value: unknown) => (value instanceof Date ? value.getTime() : value);

let ctx: TestContext;
let single: DatabaseHandle;
beforeAll(async () => {
  ctx = await createTestContext();
  single = connectDatabase(ctx.config.databaseAppUrl ?? '', 1);
});
afterAll(async () => {
  await single.close();
  await ctx.close();
});

it('is the parser the driver uses for timestamptz, over the driver’s own', () => {
  expect(typeof driverParser).toBe('function');
  expect(driverParser).not.toBe(installed);
  // A second wrapping (a module evaluated again) keeps the driver's parser as the fallback.
  expect(fastTimestamptzParser(installed).fallback).toBe(driverParser);
});

it('reads every text PostgreSQL writes as the same instant as the driver’s parser', () => {
  const random = seededRandom(11);
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  const texts = [
    '2026-11-23 20:01:02+00',
    '2026-11-23 20:01:02.1+00',
    '2026-11-23 20:01:02.999999+00',
    '2024-02-29 23:59:59.5-05',
    '2026-03-29 01:30:00+05:30',
    '2026-03-29 01:30:00-03:30',
    '1970-01-01 00:00:00+00',
    '1969-12-31 23:59:59.999+14',
    '1000-01-01 00:00:00+00',
    '9999-12-31 23:59:59.999999-12',
  ];
  // Every fraction of one to four digits, and random ones of up to six.
  for (let digits = 1; digits <= 4; digits++)
    for (let value = 0; value < 10 ** digits; value++)
      texts.push(`2026-01-02 03:04:05.${pad(value, digits)}+00`);
  for (let i = 0; i < 5000; i++) {
    const digits = 1 + Math.floor(random() * 6);
    const fraction = random() < 0.2 ? '' : `.${pad(Math.floor(random() * 10 ** digits), digits)}`;
    const hours = Math.floor(random() * 15);
    const offset =
      random() < 0.5 ? '+00' : `${random() < 0.5 ? '-' : '+'}${pad(hours, 2)}${random() < 0.3 ? ':30' : ''}`;
    texts.push(
      `${1000 + Math.floor(random() * 9000)}-${pad(1 + Math.floor(random() * 12), 2)}-${pad(1 + Math.floor(random() * 28), 2)} ` +
        `${pad(Math.floor(random() * 24), 2)}:${pad(Math.floor(random() * 60), 2)}:${pad(Math.floor(random() * 60), 2)}${fraction}${offset}`,
    );
  }
  for (const text of texts) {
    const fast = installed(text);
    expect(fast, text).toBeInstanceOf(Date);
    expect(timeOf(fast), text).toBe(timeOf(driverParser(text)));
  }
});

it('leaves what it does not read to the driver’s parser: infinity, BC, short years, offsets with seconds', () => {
  for (const text of [
    'infinity',
    '-infinity',
    '0044-03-15 12:00:00+00 BC',
    '0099-01-01 00:00:00+00',
    '0999-01-01 00:00:00+00',
    '10000-01-01 00:00:00+00',
    '1890-01-01 00:00:00+00:19:32',
    '2026-11-23 20:01:02.+00',
    '2026-11-23T20:01:02+00',
    '2026-11-23 20:01:02Z',
  ]) {
    expect(timeOf(installed(text)), text).toEqual(timeOf(driverParser(text)));
  }
});

it('gives the instants PostgreSQL holds, in any session time zone', async () => {
  for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Kiritimati', 'Europe/Amsterdam']) {
    const rows = await inTenantTransaction(single.db, platformScope, async (trx) => {
      await sql`select set_config('timezone', ${zone}, true)`.execute(trx);
      const { rows } = await sql<{ at: Date; epoch_ms: string }>`
        select at, (extract(epoch from at) * 1000)::bigint::text as epoch_ms
          from (values (timestamptz '2026-11-23 20:01:02.123456+00'), (timestamptz '1900-01-01 00:00:00+00'),
                       (timestamptz '2024-02-29 12:00:00.5+00'), (timestamptz '1970-01-01 00:00:00+00'),
                       (timestamptz '2026-03-29 01:30:00.999+00')) as v(at)`.execute(trx);
      return rows;
    });
    for (const row of rows) {
      expect(row.at, zone).toBeInstanceOf(Date);
      expect(row.at.getTime(), `${zone} ${row.epoch_ms}`).toBe(Number(row.epoch_ms));
    }
  }
});
