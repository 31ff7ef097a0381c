import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import { connectDatabase, type DatabaseHandle } from '../../../apps/server/src/db/database.ts';
import { createBenchCompany } from '../support/bulk-send-fixture.ts';
import { postEach } from '../support/http-posts.ts';
import { settleBefore } from '../support/machine-pace.ts';
import type { BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';

/**
 * Scenario delivery-reports: one report per recipient of a handed-over send, posted by concurrent
 * clients to a real API process; afterwards every recipient and counter is checked. Besides rate
 * and latency it logs the CPU each report cost in the API process, in PostgreSQL and in the
 * clients (on a shared machine this stays meaningful when rates do not). DLR_PROFILE_DIR=<dir>
 * writes a CPU profile of the API process there; DLR_SIZE=<n> posts another number of reports;
 * DLR_DB_PROFILE=1 logs the time each database function took per report (track_functions), how
 * many of the recipients' row updates were HOT, and what the database's connections were doing
 * during the run (sampled every 3 ms: running, waiting for a commit's WAL flush, for a row lock and
 * on which table). The WAL written per report is logged on every run.
 */

/**
 * Concurrent HTTP clients posting reports (a provider's callback senders), 64 for each of the
 * machine's cores (128 on the 2-core machine the figures below are from). Each client waits for
 * its answer before posting the next, so the rate is at most the clients over the latency: with 64
 * on two cores the server was a third idle and the rate followed the host's latency
 * (8,793-10,904/s, p99 17-21 ms); 128 keep the server busy, which is what a sustained rate under a
 * p99 bound measures (11,660-13,954/s, p99 27-33 ms; ADR 0014, 28 November). DLR_CONNECTIONS=<n>
 * measures another count (the batches grow with the reports in flight).
 */
const CONNECTIONS = Number(process.env.DLR_CONNECTIONS ?? 64 * availableParallelism());
/**
 * The load generator: our own lean HTTP/1.1 client by default (bench/src/support/http-posts.ts: one
 * request per report, keep-alive, no pipelining, every latency kept); DLR_CLIENT=autocannon
 * measures with autocannon instead, which costs several times more CPU per request on the same cores.
 */
const CLIENT = process.env.DLR_CLIENT === 'autocannon' ? 'autocannon' : 'http-posts';
/** Every this-many-th report is a failure (with its reason), the rest deliveries. */
const FAILED_EVERY = 50;

/** utime + stime fields of /proc/<pid>/stat, in clock ticks (USER_HZ, 100 on Linux), and the parent pid. */
function procStat(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      parent: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
      systemTicks: Number(fields[12]),
    };
  } catch {
    return null;
  }
}

/** CPU time (ms) a process has used so far. */
const cpuMsOf = (pid: number) => (procStat(pid)?.ticks ?? 0) * 10;
/** The part of it spent in the kernel (socket reads and writes, polling). */
const systemCpuMsOf = (pid: number) => (procStat(pid)?.systemTicks ?? 0) * 10;

/**
 * CPU time (ms) each backend of a PostgreSQL server (the postmaster's children) has used so far:
 * on a machine shared with other work, what the reports cost stays measurable when their rate does not.
 */
function backendCpuMs(postmasterPid: number) {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat?.parent === postmasterPid) byPid.set(Number(entry), stat.ticks * 10);
  }
  return byPid;
}

/** CPU ms the backends used between two readings (a backend started in between counts whole). */
function backendCpuSpent(before: Map<number, number>, after: Map<number, number>) {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}

type Fixture = { companyId: number; messageId: number; dlrToken: string };

/** The provider id of recipient i (1-based), as the hand-over stored it. */
const gatewayIdOf = (i: number) => `ATPid_bench_${i}`;
const phoneOf = (i: number) => `+2547${String(i).padStart(8, '0')}`;

/**
 * One company, one message and `size` recipients already handed over (status submitted, each with
 * its own provider id), with the send's state, counters and monthly usage as the engine leaves
 * them after a hand-over (fan-out.ts, dispatch.ts, send-progress.ts). Set-based, as the owner.
 */
export async function prepareHandedOverSend(owner: DatabaseHandle, size: number): Promise<Fixture> {
  const db = owner.db;
  const { id: companyId, tokens } = await createBenchCompany(db);
  const service = await db
    .insertInto('services')
    .values({ company_id: companyId, name: 'Service A', shortcode: '22550', keyword: 'BENCHA' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`
    insert into subscribers (company_id, msisdn, status)
    select ${companyId}, '+2547' || lpad(g::text, 8, '0'), 'active' from generate_series(1, ${size}) g`.execute(
    db,
  );
  await sql`
    insert into subscriptions (company_id, service_id, subscriber_id, status, source)
    select company_id, ${service.id}::bigint, id, 'active', 'import' from subscribers where company_id = ${companyId}`.execute(
    db,
  );
  // The moment the fan-out began (milliseconds: the partition key survives JavaScript dates).
  const { rows: at } = await sql<{
    recipients_at: Date;
  }>`select date_trunc('milliseconds', now()) as recipients_at`.execute(db);
  const recipientsAt = at[0].recipients_at;
  await sql`select ensure_delivery_report_partition(${recipientsAt}::timestamptz)`.execute(db);
  const message = await db
    .insertInto('messages')
    .values({
      company_id: companyId,
      service_id: service.id,
      service_ids: [service.id],
      content: 'Benchmark: one message to everyone',
      status: 'sent',
      sent_at: recipientsAt,
      recipient_count: size,
      encoding: 'GSM-7',
      parts: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`
    insert into message_sends (company_id, message_id, state, fanout_cursor, recipients_at, recipients, reserved_units,
                               usage_month, started_at, fanout_finished_at, handed_over_at)
    values (${companyId}, ${message.id}, 'done', (select max(id) from subscribers where company_id = ${companyId}),
            ${recipientsAt}::timestamptz, ${size}, ${size}, date_trunc('month', ${recipientsAt}::timestamptz at time zone 'UTC')::date,
            ${recipientsAt}::timestamptz, ${recipientsAt}::timestamptz, now())`.execute(db);
  await sql`
    insert into company_monthly_usage (company_id, month, messages_used)
    values (${companyId}, date_trunc('month', ${recipientsAt}::timestamptz at time zone 'UTC')::date, ${size})`.execute(
    db,
  );
  // Recipient i is subscriber i's number, handed over with provider id ATPid_bench_i, which the
  // hand-over also writes where delivery reports look it up (recipient_gateway_ids, migration 0029).
  await sql`
    with handed_over as (
      insert into delivery_reports (company_id, created_at, message_id, service_id, subscriber_id, recipient_phone, parts,
                                    status, gateway_message_id, provider_status, attempts, submitted_at)
      select s.company_id, ${recipientsAt}::timestamptz, ${message.id}, ${service.id}, s.id, s.msisdn, 1,
             'submitted', 'ATPid_bench_' || ltrim(substr(s.msisdn, 6), '0'), 'Success', 1, now()
        from subscribers s
       where s.company_id = ${companyId}
      returning company_id, gateway_message_id, created_at, message_id, id)
    insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
    select company_id, gateway_message_id, created_at, message_id, id from handed_over`.execute(db);
  // The counters as fan-out (pending) and hand-over (pending -> submitted) leave them, in one row.
  await sql`
    insert into message_delivery_counts (company_id, message_id, shard, submitted)
    values (${companyId}, ${message.id}, 0, ${size})`.execute(db);
  await sql`vacuum analyze delivery_reports`.execute(db);
  await sql`vacuum analyze recipient_gateway_ids`.execute(db);
  await sql`vacuum analyze subscribers`.execute(db);
  return { companyId, messageId: message.id, dlrToken: tokens.dlr };
}

/** Statuses of the message's recipients and its counters, to prove every report was applied. */
async function countOutcome(owner: DatabaseHandle, fixture: Fixture) {
  const { rows: recipients } = await sql<{ status: string; count: number }>`
    select status, count(*)::int as count from delivery_reports
     where company_id = ${fixture.companyId} and message_id = ${fixture.messageId}
     group by status`.execute(owner.db);
  const { rows: totals } = await sql<Record<string, number>>`
    select submitted, sent, delivered, failed, total from message_delivery_totals
     where company_id = ${fixture.companyId} and message_id = ${fixture.messageId}`.execute(owner.db);
  const { rows: unmatched } = await sql<{ count: number }>`
    select count(*)::int as count from unmatched_delivery_reports where company_id = ${fixture.companyId}`.execute(
    owner.db,
  );
  const { rows: message } = await sql<{ status: string }>`
    select status from messages where id = ${fixture.messageId}`.execute(owner.db);
  const byStatus = Object.fromEntries(recipients.map((row) => [row.status, row.count]));
  return { byStatus, totals: totals[0], unmatched: unmatched[0].count, messageStatus: message[0].status };
}

/** Per report: each function's own and total time (track_functions), and the recipients' HOT updates. */
async function logDatabaseProfile(owner: DatabaseHandle, size: number, log: (line: string) => void) {
  const { rows: functions } = await sql<{ funcname: string; calls: number; self: number; total: number }>`
    select funcname, calls::int, self_time as self, total_time as total from pg_stat_user_functions
     order by self_time desc limit 12`.execute(owner.db);
  const us = (ms: number) => ((ms * 1000) / size).toFixed(1);
  for (const f of functions)
    log(`  ${f.funcname}: ${f.calls} calls, self ${us(f.self)} µs, total ${us(f.total)} µs per report`);
  const { rows: tables } = await sql<{ relname: string; upd: number; hot: number }>`
    select relname, n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_user_tables
     where n_tup_upd > 0 order by n_tup_upd desc limit 6`.execute(owner.db);
  log(`  updates (HOT): ${tables.map((t) => `${t.relname} ${t.upd} (${t.hot})`).join(', ')}`);
}

/**
 * Samples what the API process's backends are doing every few milliseconds while the reports are
 * posted (DLR_DB_PROFILE): running, idle between batches, or waiting, and on what (a row lock's
 * table, the WAL flush of a commit). Returns a function that stops sampling, logs the shares and
 * says how many samples (each its own transaction) it took. Its queries cost PostgreSQL CPU of their
 * own: compare the CPU per report of runs without it.
 */
function sampleBackends(owner: DatabaseHandle, log: (line: string) => void) {
  const counts = new Map<string, number>();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await sql<{ what: string }>`
        select case when a.state like 'idle%' then a.state
                    when a.wait_event is null then 'running'
                    else a.wait_event_type || ':' || a.wait_event ||
                         coalesce(' on ' || (select string_agg(distinct c.relname, ',') from pg_locks l
                                               join pg_class c on c.oid = l.relation
                                              where l.pid = a.pid and l.locktype = 'tuple' and l.granted
                                                and l.mode in ('ExclusiveLock', 'AccessExclusiveLock')), '') end as what
          from pg_stat_activity a
         where a.datname = current_database() and a.pid <> pg_backend_pid()
           and a.backend_type = 'client backend'`.execute(owner.db);
      samples++;
      for (const row of rows) counts.set(row.what, (counts.get(row.what) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    const busy = [...counts].filter(([what]) => !what.startsWith('idle'));
    const active = busy.reduce((sum, [, n]) => sum + n, 0);
    log(`  backends over ${samples} samples: ${(active / samples).toFixed(2)} busy on average`);
    for (const [what, n] of [...counts].sort((a, b) => b[1] - a[1]))
      log(`    ${what}: ${(n / samples).toFixed(3)} backends on average`);
    return samples;
  };
}

/** autocannon's result in the shape of postEach's. */
function fromAutocannon(result: Awaited<ReturnType<typeof autocannon>>) {
  return {
    ok: result['2xx'],
    notOk: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    firstFailure: null,
    latency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
  };
}

export const scenario: BenchScenario = {
  name: 'delivery-reports',
  description:
    "one delivery report per recipient of a handed-over send, posted over HTTP in Africa's Talking's format by concurrent clients to the real API process",
  async run(ctx) {
    const size = Number(process.env.DLR_SIZE ?? (ctx.quick ? 10_000 : 200_000));
    const owner = connectDatabase(ctx.databaseUrl, 2);
    try {
      let started = performance.now();
      const fixture = await prepareHandedOverSend(owner, size);
      ctx.log(
        `${size.toLocaleString('en-US')} recipients handed over, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      if (process.env.DLR_DB_PROFILE) {
        // The API process's connections open after this, so they all count their function calls.
        const database = new URL(ctx.databaseUrl).pathname.slice(1);
        await sql.raw(`alter database ${database} set track_functions = 'all'`).execute(owner.db);
        await sql`select pg_stat_reset()`.execute(owner.db);
      }
      // Role both: the process answers the callbacks (they store reports in the inbox) and its worker
      // applies them (messaging/delivery-report-applier.ts), as `npm start` runs.
      const server = await startServerProcess({
        databaseUrl: ctx.databaseUrl,
        role: 'both',
        env: process.env.DLR_PROFILE_DIR
          ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.DLR_PROFILE_DIR}` }
          : {},
      });
      try {
        const path = `/api/v1/callbacks/dlr/${fixture.companyId}/${fixture.dlrToken}`;
        let next = 0;
        const { rows: backend } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(
          owner.db,
        );
        const postmaster = procStat(backend[0].pid)?.parent ?? 0;
        const commits = async () =>
          (
            await sql<{
              n: number;
            }>`select xact_commit::int as n from pg_stat_database where datname = current_database()`.execute(
              owner.db,
            )
          ).rows[0].n;
        // The reports measure themselves, not the hand-over's writes still settling (machine-pace.ts).
        ctx.report(await settleBefore(ctx, 'delivery-reports', 'the reports'));
        const commitsBefore = await commits();
        const cpuBefore = {
          api: cpuMsOf(server.pid),
          apiSystem: systemCpuMsOf(server.pid),
          db: backendCpuMs(postmaster),
          client: process.cpuUsage(),
        };
        const walOf = async () =>
          (
            await sql<{ records: number; fpi: number; bytes: number; syncs: number }>`
              select wal_records::float8 as records, wal_fpi::float8 as fpi, wal_bytes::float8 as bytes,
                     wal_sync::float8 as syncs from pg_stat_wal`.execute(owner.db)
          ).rows[0];
        const walBefore = await walOf();
        const stopSampling = process.env.DLR_DB_PROFILE ? sampleBackends(owner, ctx.log) : undefined;
        started = performance.now();
        const bodyOf = (i: number) => {
          const status =
            i % FAILED_EVERY === 0 ? 'status=Failed&failureReason=DeliveryFailure' : 'status=Success';
          return `id=${gatewayIdOf(i)}&${status}&phoneNumber=${encodeURIComponent(phoneOf(i))}&networkCode=63902`;
        };
        const contentType = 'application/x-www-form-urlencoded';
        const result =
          CLIENT === 'autocannon'
            ? fromAutocannon(
                await autocannon({
                  url: server.url as string,
                  connections: CONNECTIONS,
                  amount: size,
                  timeout: 30,
                  requests: [
                    {
                      method: 'POST',
                      path,
                      headers: { 'content-type': contentType },
                      // Each request names the next recipient; past the last one (never expected) it repeats it.
                      setupRequest: (request) => ({ ...request, body: bodyOf(Math.min(++next, size)) }),
                    },
                  ],
                }),
              )
            : await postEach({
                url: server.url as string,
                connections: CONNECTIONS,
                count: size,
                timeoutMs: 30_000,
                requestOf: (i) => ({ path, contentType, body: bodyOf(i + 1) }),
              });
        const intakeSeconds = (performance.now() - started) / 1000;
        const client = process.cpuUsage(cpuBefore.client);
        // Answered means stored: the run ends when the worker has applied every report (the inbox is
        // empty once the last applying transaction, which deletes what it applied, has committed).
        let polls = 0;
        for (;;) {
          polls++;
          const { rows } = await sql<{ waiting: boolean }>`
            select exists (select 1 from delivery_report_inbox) as waiting`.execute(owner.db);
          if (!rows[0].waiting) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const seconds = (performance.now() - started) / 1000;
        const samplerTransactions = (await stopSampling?.()) ?? 0;
        // The transactions the run committed (about one per batch; stats arrive within a second).
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const transactions = (await commits()) - commitsBefore - samplerTransactions - polls;
        const walAfter = await walOf();
        ctx.log(
          `WAL per report: ${((walAfter.bytes - walBefore.bytes) / size).toFixed(0)} bytes, ${((walAfter.records - walBefore.records) / size).toFixed(2)} records (${((walAfter.fpi - walBefore.fpi) / size).toFixed(3)} full pages); ${walAfter.syncs - walBefore.syncs} WAL syncs`,
        );
        const perReportUs = (ms: number) => Math.round((ms * 1000) / size);
        const cpu = {
          api: perReportUs(cpuMsOf(server.pid) - cpuBefore.api),
          apiSystem: perReportUs(systemCpuMsOf(server.pid) - cpuBefore.apiSystem),
          db: perReportUs(backendCpuSpent(cpuBefore.db, backendCpuMs(postmaster))),
          client: perReportUs((client.user + client.system) / 1000),
        };
        const answered = result.ok + result.notOk;
        const perSecond = answered / seconds;
        ctx.log(
          `answered (stored in the inbox) at ${(answered / intakeSeconds).toFixed(0)} reports/s in ${intakeSeconds.toFixed(1)} s; every one applied ${(seconds - intakeSeconds).toFixed(2)} s later (${perSecond.toFixed(0)} reports/s from the first post to the last applied)`,
        );
        const outcome = await countOutcome(owner, fixture);
        ctx.log(
          `${answered.toLocaleString('en-US')} answered and applied in ${seconds.toFixed(1)} s (2xx ${result.ok}, non-2xx ${result.notOk}, errors ${result.errors}, timeouts ${result.timeouts}${result.firstFailure ? `, first: ${result.firstFailure}` : ''}); latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms; peak RSS ${server.peakRssMiB().toFixed(0)} MiB`,
        );
        ctx.log(
          `CPU per report: API process ${cpu.api} µs (${cpu.apiSystem} in the kernel), PostgreSQL ${cpu.db} µs, HTTP clients (${CLIENT}) ${cpu.client} µs; ${transactions} transactions (intake and applier; ${(size / transactions).toFixed(1)} reports each)`,
        );
        ctx.log(`afterwards: ${JSON.stringify(outcome)}`);
        if (process.env.DLR_DB_PROFILE) await logDatabaseProfile(owner, size, ctx.log);

        const work = `${size.toLocaleString('en-US')} reports x ${CONNECTIONS} clients`;
        ctx.report({
          scenario: 'delivery-reports',
          measure: 'reports applied (POST /callbacks/dlr)',
          work,
          figure: perSecond,
          unit: 'reports/s',
          baseline: { name: 'target', figure: 8_000 },
          target: '>= 8,000/s',
          met: perSecond >= 8_000,
        });
        ctx.report({
          scenario: 'delivery-reports',
          measure: 'callback latency p99',
          work,
          figure: result.latency.p99,
          unit: 'ms',
          baseline: { name: 'target', figure: 100 },
          target: 'p99 < 100 ms',
          met: result.latency.p99 < 100,
        });
        ctx.report({
          scenario: 'delivery-reports',
          measure: 'CPU per report: API process + PostgreSQL',
          work,
          figure: cpu.api + cpu.db,
          unit: 'µs',
        });
        const refused = result.notOk + result.errors + result.timeouts;
        ctx.report({
          scenario: 'delivery-reports',
          measure: 'answers not 2xx (or no answer)',
          work,
          figure: refused,
          unit: 'requests',
          target: '0',
          met: refused === 0,
        });

        const delivered = outcome.byStatus.delivered ?? 0;
        const failed = outcome.byStatus.failed ?? 0;
        const expectedFailed = Math.floor(size / FAILED_EVERY);
        const applied =
          delivered === size - expectedFailed &&
          failed === expectedFailed &&
          outcome.totals?.delivered === delivered &&
          outcome.totals?.failed === failed &&
          outcome.totals?.submitted === 0 &&
          outcome.totals?.sent === 0 &&
          outcome.totals?.total === size &&
          outcome.unmatched === 0 &&
          outcome.messageStatus === 'delivered';
        ctx.report({
          scenario: 'delivery-reports',
          measure: 'reports applied (counted afterwards)',
          work,
          figure: delivered + failed,
          unit: 'recipients',
          baseline: { name: 'target', figure: size },
          target: 'every one, counters equal',
          met: applied,
        });
        if (!applied || refused > 0)
          throw new Error(
            `not every report was applied: ${JSON.stringify(outcome)}, expected ${size - expectedFailed} delivered and ${expectedFailed} failed; ${refused} requests refused`,
          );
      } finally {
        await server.stop();
      }
    } finally {
      await owner.close();
    }
  },
};
