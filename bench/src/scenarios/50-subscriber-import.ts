/**
 * A subscriber list as a company brings it: a CSV of 1,000,000 rows (about 20 MB; quick: 20,000)
 * with national and international numbers, some numbers twice and a few malformed rows, uploaded
 * as a multipart file streamed from disk to the real API process, the way the console sends it.
 * Measures rows per second against R_copy, the time, the server's peak memory and how long
 * /health took to answer meanwhile; then counts what landed in the database.
 */
import { once } from 'node:events';
import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TImportSubscribersData } from '@sms/contracts/subscribers/import-subscribers';
import { sql } from 'kysely';
import { connectDatabase } from '../../../apps/server/src/db/database.ts';
import { hashPassword } from '../../../apps/server/src/modules/auth/passwords.ts';
import { BULK_SEND_PASSWORD, signIn } from '../support/bulk-send-fixture.ts';
import type { BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';

const NAME = 'subscriber-import';

/** Every this-many-th row repeats an earlier row's number, written the other way (+254... for 07...). */
const DUPLICATE_EVERY = 1_000;
/** Every this-many-th row (not a duplicate) is malformed: a number too short, a word, or an empty cell. */
const MALFORMED_EVERY = 2_000;

type ExpectedCounts = { rows: number; distinct: number; duplicates: number; invalid: number };

/** Kenyan mobile numbers 0710000000 + n: distinct for n below 1,000,000, all valid. */
const nationalNumber = (n: number) => `07${10_000_000 + n}`;
const internationalNumber = (n: number) => `+2547${10_000_000 + n}`;

/** Writes the CSV (header phone,name) and says what the import must find in it. */
async function writeCsv(file: string, rows: number): Promise<ExpectedCounts> {
  const out = createWriteStream(file);
  const counts: ExpectedCounts = { rows, distinct: 0, duplicates: 0, invalid: 0 };
  let lines: string[] = ['phone,name'];
  for (let i = 1; i <= rows; i++) {
    let phone: string;
    if (i % DUPLICATE_EVERY === 0) {
      // A number written a few hundred rows earlier (always a valid one there).
      phone = internationalNumber(counts.distinct - 300);
      counts.duplicates++;
    } else if (i % MALFORMED_EVERY === 1_001) {
      phone = ['0712-34', 'n/a', ''][Math.floor(i / MALFORMED_EVERY) % 3];
      counts.invalid++;
    } else {
      phone = i % 3 ? nationalNumber(counts.distinct) : internationalNumber(counts.distinct);
      counts.distinct++;
    }
    lines.push(`${phone},Sub ${i}`);
    if (lines.length >= 10_000) {
      if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
      lines = [];
    }
  }
  out.end(lines.length ? `${lines.join('\n')}\n` : '');
  await once(out, 'finish');
  return counts;
}

async function prepareCompany(databaseUrl: string) {
  const owner = connectDatabase(databaseUrl, 2);
  const company = await owner.db
    .insertInto('companies')
    .values({
      name: 'Import Co',
      email: 'import@co.test',
      phone_number: '+254700000001',
      address: 'Import Street 1',
      plan: 'enterprise',
      // The plan's own limit is 250,000: the company's overrides it (plans/plan-catalogue.ts).
      subscribers_limit: 1_000_000,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const adminEmail = 'import-admin@co.test';
  await owner.db
    .insertInto('users')
    .values({
      name: 'Import Admin',
      email: adminEmail,
      password_hash: await hashPassword(BULK_SEND_PASSWORD),
      role: 'company_admin',
      company_id: company.id,
    })
    .execute();
  const service = await owner.db
    .insertInto('services')
    .values({ company_id: company.id, name: 'Imported List', shortcode: '22560', keyword: 'IMPORT' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { owner, companyId: company.id, serviceId: service.id, adminEmail };
}

/** Polls /health until stopped: the slowest answer says whether the import held the event loop. */
function watchHealth(url: string) {
  let running = true;
  let slowestMs = 0;
  let probes = 0;
  let failures = 0;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      // A refused probe is counted, not thrown: the import's own answer says what went wrong.
      const ok = await fetch(`${url}/api/v1/health`)
        .then(async (response) => {
          await response.arrayBuffer();
          return response.ok;
        })
        .catch(() => false);
      if (!ok) failures++;
      slowestMs = Math.max(slowestMs, performance.now() - started);
      probes++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return async () => {
    running = false;
    await done;
    return { slowestMs, probes, failures };
  };
}

export const scenario: BenchScenario = {
  name: NAME,
  description: 'a CSV of subscribers uploaded as a multipart file to the real API process, streamed',
  async run(ctx) {
    const rows = ctx.quick ? 20_000 : 1_000_000;
    const dir = await mkdtemp(path.join(tmpdir(), 'bench-import-'));
    const file = path.join(dir, 'subscribers.csv');
    const fixture = await prepareCompany(ctx.databaseUrl);
    const server = await startServerProcess({ databaseUrl: ctx.databaseUrl, role: 'api' });
    try {
      const expected = await writeCsv(file, rows);
      const bytes = (await stat(file)).size;
      ctx.log(
        `${rows.toLocaleString('en-US')} rows, ${(bytes / 1e6).toFixed(1)} MB: ${expected.distinct} distinct, ${expected.duplicates} duplicates, ${expected.invalid} malformed`,
      );
      const url = server.url as string;
      const token = await signIn(url, fixture.adminEmail);
      const rssBefore = server.peakRssMiB();

      const form = new FormData();
      form.set('file', await openAsBlob(file, { type: 'text/csv' }), 'subscribers.csv');
      const stopWatching = watchHealth(url);
      const started = performance.now();
      const response = await fetch(`${url}/api/v1/services/${fixture.serviceId}/subscribers/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      const body = (await response.json()) as { data: TImportSubscribersData };
      const seconds = (performance.now() - started) / 1000;
      const health = await stopWatching();
      const rssPeak = server.peakRssMiB();
      if (response.status !== 200)
        throw new Error(`import failed: ${response.status} ${JSON.stringify(body)}`);

      const answer = body.data;
      const { rows: counted } = await sql<{ subscribers: number; subscriptions: number }>`
        select (select count(*) from subscribers where company_id = ${fixture.companyId})::int as subscribers,
               (select count(*) from subscriptions
                 where company_id = ${fixture.companyId} and service_id = ${fixture.serviceId}
                   and status = 'active' and source = 'import')::int as subscriptions`.execute(
        fixture.owner.db,
      );
      const wanted = {
        totalRows: expected.rows,
        imported: expected.distinct,
        duplicatesInFile: expected.duplicates,
        invalidRows: expected.invalid,
        refusedByLimit: 0,
        subscribers: expected.distinct,
        subscriptions: expected.distinct,
      };
      const got = {
        totalRows: answer.totalRows,
        imported: answer.imported,
        duplicatesInFile: answer.duplicatesInFile,
        invalidRows: answer.invalidRows,
        refusedByLimit: answer.refusedByLimit,
        ...counted[0],
      };
      if (JSON.stringify(got) !== JSON.stringify(wanted))
        throw new Error(`import miscounted: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(got)}`);

      const work = `${rows.toLocaleString('en-US')} rows, ${(bytes / 1e6).toFixed(1)} MB, multipart`;
      const rowsPerSecond = rows / seconds;
      const rCopy = ctx.baselines.R_copy;
      ctx.report({
        scenario: NAME,
        measure: 'rows imported',
        work,
        figure: rowsPerSecond,
        unit: 'rows/s',
        ...(rCopy ? { baseline: { name: 'R_copy', figure: rCopy } } : {}),
      });
      ctx.report({
        scenario: NAME,
        measure: 'whole import (upload to answer)',
        work,
        figure: seconds,
        unit: 's',
      });
      ctx.report({
        scenario: NAME,
        measure: 'API process peak RSS before the upload',
        work,
        figure: rssBefore,
        unit: 'MiB',
      });
      ctx.report({
        scenario: NAME,
        measure: 'API process peak RSS during the import',
        work,
        figure: rssPeak,
        unit: 'MiB',
        baseline: { name: 'before', figure: rssBefore },
      });
      ctx.report({
        scenario: NAME,
        measure: `slowest GET /health during the import (${health.probes} probes, ${health.failures} failed)`,
        work,
        figure: health.slowestMs,
        unit: 'ms',
      });
    } finally {
      await server.stop();
      await fixture.owner.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};
