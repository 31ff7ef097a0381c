import { sql } from 'kysely';
import { hashPassword } from '../../apps/server/src/modules/auth/passwords.ts';
import { regenerateCallbackTokens } from '../../apps/server/src/modules/callbacks/callback-tokens.ts';
import { startBenchApp } from './support/bench-app.ts';

/**
 * A bulk send through the simulator, end to end: API call, fan-out, hand-over, delivery reports
 * posted back over HTTP and applied. RECIPIENTS (default 100,000 then 1,000,000; one size with
 * RECIPIENTS=n) distinct active numbers across three overlapping services. The API and the worker
 * run in this process (role both), on the application role, with the simulator at an unlimited
 * rate. `npm run bench messaging` (or `node bench/src/messaging-send.bench.ts`).
 */
const SIZES = process.env.RECIPIENTS ? [Number(process.env.RECIPIENTS)] : [100_000, 1_000_000];
const ENCRYPTION_KEY = Buffer.from('b'.repeat(64), 'hex');

type Row = Record<string, string | number>;
const results: Row[] = [];

for (const recipients of SIZES) {
  const bench = await startBenchApp(
    {
      SIMULATOR_MESSAGES_PER_SECOND: '10000000',
      SIMULATOR_BATCH_SIZE: process.env.SIMULATOR_BATCH_SIZE ?? '2000',
      SIMULATOR_DELIVERY_DELAY_MS: process.env.SIMULATOR_DELIVERY_DELAY_MS ?? '500',
      SIMULATOR_FAIL_RATE: '0.02',
      SIMULATOR_DLR_CONCURRENCY: process.env.SIMULATOR_DLR_CONCURRENCY ?? '64',
      FANOUT_BATCH_SIZE: process.env.FANOUT_BATCH_SIZE ?? '20000',
      WORKER_LANES: process.env.WORKER_LANES ?? '4',
    },
    { appRole: true, poolSize: 20 },
  );
  try {
    const owner = bench.owner.db;
    const company = await owner
      .insertInto('companies')
      .values({
        name: 'Bench Co',
        email: 'bench@co.test',
        phone_number: '+254700000000',
        address: 'x',
        messages_limit: 100_000_000,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await regenerateCallbackTokens(owner, company.id, ENCRYPTION_KEY);
    await owner
      .insertInto('users')
      .values({
        name: 'Bench Admin',
        email: 'bench@user.test',
        password_hash: await hashPassword('Password123!'),
        role: 'company_admin',
        company_id: company.id,
      })
      .execute();
    const services = await owner
      .insertInto('services')
      .values(
        ['A', 'B', 'C'].map((k) => ({
          company_id: company.id,
          name: `Service ${k}`,
          shortcode: '22550',
          keyword: `BENCH${k}`,
        })),
      )
      .returning('id')
      .execute();
    const [a, b, c] = services.map((service) => service.id);

    // Every subscriber on A or B (half on both), every third also on C: about 1.8 subscriptions each.
    let started = performance.now();
    await sql`
      insert into subscribers (company_id, msisdn, status)
      select ${company.id}, '+2547' || lpad(g::text, 8, '0'), 'active' from generate_series(1, ${recipients}) g`.execute(
      owner,
    );
    await sql`
      insert into subscriptions (company_id, service_id, subscriber_id, status, source)
      select company_id, ${a}::bigint, id, 'active', 'import' from subscribers where company_id = ${company.id} and id % 4 <> 3
      union all
      select company_id, ${b}::bigint, id, 'active', 'import' from subscribers where company_id = ${company.id} and id % 4 <> 0
      union all
      select company_id, ${c}::bigint, id, 'active', 'import' from subscribers where company_id = ${company.id} and id % 3 = 0`.execute(
      owner,
    );
    await sql`vacuum analyze subscribers`.execute(owner);
    await sql`vacuum analyze subscriptions`.execute(owner);
    console.log(
      `\n${recipients.toLocaleString()} recipients: subscribers and subscriptions loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    // Baseline: the same rows written server-side (INSERT ... SELECT) into a table shaped like the
    // recipient table, with its indexes: what Postgres does here without the engine around it.
    started = performance.now();
    await sql`create table bench_recipients (like delivery_reports including defaults)`.execute(owner);
    await sql`alter table bench_recipients add primary key (company_id, message_id, id, created_at)`.execute(
      owner,
    );
    await sql`create unique index on bench_recipients (company_id, message_id, recipient_phone, created_at)`.execute(
      owner,
    );
    await sql`create index on bench_recipients (company_id, gateway_message_id) where gateway_message_id is not null`.execute(
      owner,
    );
    started = performance.now();
    await sql`
      insert into bench_recipients (company_id, created_at, message_id, service_id, subscriber_id, recipient_phone, parts)
      select ${company.id}::bigint, now(), 1, ${a}::bigint, id, msisdn, 1 from subscribers where company_id = ${company.id}`.execute(
      owner,
    );
    const baselineRowsPerSecond = recipients / ((performance.now() - started) / 1000);
    await sql`drop table bench_recipients`.execute(owner);

    const address = await bench.app.listen({ port: 0, host: '127.0.0.1' });
    await bench.deps.messaging.startWorker({ callbackBase: () => address, idleMs: 20 });
    const session = (
      await bench.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'bench@user.test', password: 'Password123!' },
      })
    ).json().data;

    const t0 = performance.now();
    const response = await bench.app.inject({
      method: 'POST',
      url: '/api/v1/messages/bulk/send',
      headers: { authorization: `Bearer ${session.accessToken}` },
      payload: { serviceIds: [a, b, c], message: 'Benchmark: one message to everyone' },
    });
    const apiMs = performance.now() - t0;
    if (response.statusCode !== 201) throw new Error(`send failed: ${response.statusCode} ${response.body}`);
    const messageId = response.json().data.message.id as number;

    const state = async () => {
      const { rows } = await sql<{
        state: string;
        status: string;
        recipients: number;
        in_flight: number;
        pending: number;
      }>`
        select s.state, m.status, s.recipients, coalesce(t.submitted + t.sent, 0) as in_flight, coalesce(t.pending, 0) as pending
          from message_sends s join messages m on m.id = s.message_id
          left join message_delivery_totals t on t.company_id = s.company_id and t.message_id = s.message_id
         where s.message_id = ${messageId}`.execute(owner);
      return rows[0];
    };
    let rowsMs = 0;
    let handedMs = 0;
    let reportsMs = 0;
    let firstReportAt = 0;
    let lastReports = bench.deps.messaging.deliveryReports.stats().reports;
    const deadline = t0 + 30 * 60_000;
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = performance.now();
      const reports = bench.deps.messaging.deliveryReports.stats().reports;
      if (!firstReportAt && reports > lastReports) firstReportAt = now;
      lastReports = reports;
      const current = await state();
      if (!rowsMs && current.state !== 'fanout' && current.state !== 'waiting') rowsMs = now - t0;
      if (!handedMs && rowsMs && current.pending === 0) handedMs = now - t0;
      // HANDOVER_ONLY=1: stop once everyone is handed over (the reports' load left out of the figures).
      if (handedMs && (current.in_flight === 0 || process.env.HANDOVER_ONLY === '1')) {
        reportsMs = now - t0;
        break;
      }
    }
    const total = (await state()).recipients;
    const reportSeconds = (t0 + reportsMs - firstReportAt) / 1000;
    results.push({
      recipients: total,
      'API call ms': Math.round(apiMs),
      'rows written s': (rowsMs / 1000).toFixed(1),
      'rows/s': Math.round(total / (rowsMs / 1000)),
      'baseline insert rows/s': Math.round(baselineRowsPerSecond),
      'handed over s': (handedMs / 1000).toFixed(1),
      'hand-over/s': Math.round(total / (handedMs / 1000)),
      'all DLRs in s': (reportsMs / 1000).toFixed(1),
      'DLRs applied/s': Math.round(total / reportSeconds),
    });
    console.table(results.slice(-1));
  } finally {
    await bench.close();
  }
}

console.log('\nBulk send through the simulator (API and worker in one process, 2 cores)');
console.table(results);
