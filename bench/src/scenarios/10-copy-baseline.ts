/**
 * The baseline the engine's figures are judged against (R_copy): how many rows per second this
 * machine's PostgreSQL takes by binary COPY into a table shaped like the delivery-report table,
 * with its indexes. The twin is made from the current month's partition (LIKE ... INCLUDING ALL,
 * plus its storage options), so it follows whatever later migrations do to that table's indexes.
 */
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { settleBefore } from '../support/machine-pace.ts';
import type { BenchScenario } from '../support/scenario.ts';

const TABLE = 'bench_copy';
const COMPANY_ID = 1;
const MESSAGE_ID = 1;
const SERVICES = 3;

/** One bulk send's recipients, as the fan-out writes them: one message, one created_at, unique phones. */
function recipientValues(createdAtMs: number): Record<string, (i: number) => number | string> {
  return {
    company_id: () => COMPANY_ID,
    created_at: () => createdAtMs,
    message_id: () => MESSAGE_ID,
    id: (i) => i + 1,
    service_id: (i) => 1 + (i % SERVICES),
    subscriber_id: (i) => i + 1,
    parts: () => 1,
    attempts: () => 0,
    status: () => 'pending',
    // i -> i * 48271 mod 90,000,000 is a permutation (48271 is prime to 2, 3 and 5), so every
    // number is distinct, in the random order a subscriber list has them.
    recipient_phone: (i) => `+2547${10_000_000 + ((i * 48_271) % 90_000_000)}`,
    updated_at: () => createdAtMs,
  };
}

const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const TWO_32 = 2 ** 32;

type Encoder = (buffer: Buffer, offset: number, value: number | string) => number;

const writeInt64 = (buffer: Buffer, offset: number, value: number) => {
  const high = Math.floor(value / TWO_32);
  buffer.writeInt32BE(8, offset);
  buffer.writeInt32BE(high, offset + 4);
  buffer.writeUInt32BE(value - high * TWO_32, offset + 8);
  return offset + 12;
};

/** Binary COPY field encoders (int32 length, then the value, big-endian) by PostgreSQL type name. */
const ENCODERS: Record<string, Encoder> = {
  int8: (buffer, offset, value) => writeInt64(buffer, offset, Number(value)),
  int4: (buffer, offset, value) => {
    buffer.writeInt32BE(4, offset);
    buffer.writeInt32BE(Number(value), offset + 4);
    return offset + 8;
  },
  int2: (buffer, offset, value) => {
    buffer.writeInt32BE(2, offset);
    buffer.writeInt16BE(Number(value), offset + 4);
    return offset + 6;
  },
  text: (buffer, offset, value) => {
    const length = buffer.write(String(value), offset + 4, 'utf8');
    buffer.writeInt32BE(length, offset);
    return offset + 4 + length;
  },
  // Microseconds since 2000-01-01 UTC.
  timestamptz: (buffer, offset, value) => writeInt64(buffer, offset, (Number(value) - PG_EPOCH_MS) * 1000),
};
ENCODERS.varchar = ENCODERS.text;
ENCODERS.timestamp = ENCODERS.timestamptz;

const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
const TRAILER = Buffer.from([0xff, 0xff]);
const CHUNK_BYTES = 1 << 20;
const MAX_ROW_BYTES = 1024;

/** The whole COPY stream, encoded ahead into ~1 MiB chunks so the timing is PostgreSQL's work alone. */
function encodeRows(
  rows: number,
  columns: { name: string; encode: Encoder; value: (i: number) => number | string }[],
) {
  const chunks: Buffer[] = [HEADER];
  let buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let offset = 0;
  for (let i = 0; i < rows; i++) {
    if (offset > CHUNK_BYTES - MAX_ROW_BYTES) {
      chunks.push(buffer.subarray(0, offset));
      buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      offset = 0;
    }
    offset = buffer.writeInt16BE(columns.length, offset);
    for (const column of columns) offset = column.encode(buffer, offset, column.value(i));
  }
  chunks.push(buffer.subarray(0, offset), TRAILER);
  return chunks;
}

export const scenario: BenchScenario = {
  name: 'copy-baseline',
  description: 'binary COPY into a twin of a delivery-report partition with its indexes (R_copy)',
  async run(ctx) {
    const rows = ctx.quick ? 100_000 : 1_000_000;
    const client = new pg.Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    try {
      const partition = (
        await client.query<{ name: string }>('select ensure_delivery_report_partition(now()) as name')
      ).rows[0].name;
      await client.query(`create table ${TABLE} (like ${partition} including all)`);
      const { rows: storage } = await client.query<{ reloptions: string[] | null }>(
        'select reloptions from pg_class where oid = $1::regclass',
        [partition],
      );
      const options = storage[0]?.reloptions ?? [];
      if (options.length > 0) await client.query(`alter table ${TABLE} set (${options.join(', ')})`);
      const { rows: indexes } = await client.query<{ indexname: string }>(
        'select indexname from pg_indexes where tablename = $1 order by indexname',
        [TABLE],
      );
      ctx.log(
        `${TABLE} is like ${partition} (${options.join(', ') || 'no storage options'}), indexes: ${indexes.map((i) => i.indexname).join(', ')}`,
      );

      const { rows: tableColumns } = await client.query<{ name: string; type: string }>(
        `select a.attname as name, t.typname as type
           from pg_attribute a join pg_type t on t.oid = a.atttypid
          where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped`,
        [TABLE],
      );
      const typeOf = new Map(tableColumns.map((column) => [column.name, column.type]));
      const columns = Object.entries(recipientValues(Date.now())).map(([name, value]) => {
        const type = typeOf.get(name);
        const encode = type ? ENCODERS[type] : undefined;
        if (!encode)
          throw new Error(`${partition}.${name} is ${type ?? 'missing'}: the baseline cannot write it`);
        return { name, encode, value };
      });

      const encodeStarted = performance.now();
      const chunks = encodeRows(rows, columns);
      const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
      ctx.log(
        `encoded ${rows.toLocaleString('en-US')} rows (${(bytes / 2 ** 20).toFixed(0)} MiB) in ${(performance.now() - encodeStarted).toFixed(0)} ms`,
      );

      // R_copy is what the other scenarios' figures are held against: taken, as theirs are, at the
      // machine's own pace (machine-pace.ts), which this first wait also learns for the run.
      ctx.report(await settleBefore(ctx, 'copy-baseline', 'the COPY'));
      const copy = client.query(
        copyFrom(
          `copy ${TABLE} (${columns.map((column) => column.name).join(', ')}) from stdin (format binary)`,
        ),
      );
      const started = performance.now();
      await pipeline(Readable.from(chunks), copy);
      const seconds = (performance.now() - started) / 1000;

      const { rows: counted } = await client.query<{ count: string }>(`select count(*) from ${TABLE}`);
      if (Number(counted[0].count) !== rows)
        throw new Error(`COPY wrote ${counted[0].count} rows, not ${rows}`);
      const rowsPerSecond = rows / seconds;
      ctx.baselines.R_copy = rowsPerSecond;
      ctx.log(`copied in ${seconds.toFixed(2)} s`);
      ctx.report({
        scenario: 'copy-baseline',
        measure: `R_copy: binary COPY, ${indexes.length} indexes`,
        work: `${rows.toLocaleString('en-US')} rows`,
        figure: rowsPerSecond,
        unit: 'rows/s',
      });
    } finally {
      await client.end();
    }
  },
};
