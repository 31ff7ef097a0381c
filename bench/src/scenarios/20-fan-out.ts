import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Database } from '../../../apps/server/src/db/database.ts';
import {
  countDoubleSends,
  prepareBulkSend,
  sendToEveryone,
  signIn,
  waitForHandOver,
} from '../support/bulk-send-fixture.ts';
import { settleBefore } from '../support/machine-pace.ts';
import type { BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';

/** The simulator at an unlimited rate; its delivery reports held back past the hand-over (scenario delivery-reports measures those). */
export const SIMULATOR_ENV = {
  SIMULATOR_MESSAGES_PER_SECOND: '100000000',
  SIMULATOR_DELIVERY_DELAY_MS: '600000',
  SIMULATOR_FAIL_RATE: '0.02',
};

/** utime + stime of /proc/<pid>/stat in ms (USER_HZ 100), and the parent pid. */
function procStat(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), ms: (Number(fields[11]) + Number(fields[12])) * 10 };
  } catch {
    return null;
  }
}

/** CPU ms of every child of the postmaster (backends and background workers), by pid. */
function postgresCpuMs(postmasterPid: number) {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat?.parent === postmasterPid) byPid.set(Number(entry), stat.ms);
  }
  return byPid;
}

/**
 * The postmaster's children's CPU, sampled every 250 ms from `before` on: a process that ends during
 * the run (an autovacuum worker, a connection the pool closed) keeps what it had spent at its last
 * sample instead of dropping out of the sum. `stop()` returns the latest CPU of every child seen.
 */
function samplePostgresCpu(postmasterPid: number) {
  const latest = postgresCpuMs(postmasterPid);
  const timer = setInterval(() => {
    for (const [pid, ms] of postgresCpuMs(postmasterPid)) latest.set(pid, ms);
  }, 250);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      for (const [pid, ms] of postgresCpuMs(postmasterPid)) latest.set(pid, ms);
      return latest;
    },
  };
}

const cpuSpent = (before: Map<number, number>, after: Map<number, number>) => {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
};

/** WAL written by the whole cluster so far (the scenario runs alone on it). */
async function walBytes(db: Database) {
  const { rows } = await sql<{ bytes: string }>`select wal_bytes::text as bytes from pg_stat_wal`.execute(db);
  return Number(rows[0].bytes);
}

/** Updates of the recipient partitions and how many of them were HOT, and the WAL so far. */
async function recipientWrites(db: Database) {
  const { rows } = await sql<{ updates: string; hot: string }>`
    select coalesce(sum(n_tup_upd), 0)::text as updates, coalesce(sum(n_tup_hot_upd), 0)::text as hot
      from pg_stat_user_tables where relname ~ '^delivery_reports_y'`.execute(db);
  return { updates: Number(rows[0].updates), hot: Number(rows[0].hot), walBytes: await walBytes(db) };
}

export const scenario: BenchScenario = {
  name: 'fan-out',
  description:
    'a bulk send to every subscriber of 3 overlapping services, through the real server (role both) and the simulator',
  async run(ctx) {
    // FAN_OUT_SIZE: a smaller send, for comparing CPU per recipient while tuning.
    const size = Number(process.env.FAN_OUT_SIZE) || (ctx.quick ? 30_000 : 1_000_000);
    const fixture = await prepareBulkSend(ctx.databaseUrl, size);
    ctx.log(
      `${size.toLocaleString('en-US')} subscribers, ${fixture.subscriptions.toLocaleString('en-US')} subscriptions`,
    );
    // The fixture checkpointed its rows; the machine settles from the load too, so that the send
    // measures itself (as the delivery reports and the console reads wait for theirs).
    const settled = await settleBefore(ctx, 'fan-out', 'the send');
    const server = await startServerProcess({
      databaseUrl: ctx.databaseUrl,
      role: 'both',
      env: {
        ...SIMULATOR_ENV,
        ...(process.env.FAN_OUT_PROFILE_DIR
          ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.FAN_OUT_PROFILE_DIR}` }
          : {}),
      },
    });
    try {
      const url = server.url as string;
      const token = await signIn(url, fixture.adminEmail);
      const { rows: backend } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(
        fixture.owner.db,
      );
      const postmaster = procStat(backend[0].pid)?.parent ?? 0;
      const walBefore = await walBytes(fixture.owner.db);
      const cpuBefore = { server: procStat(server.pid)?.ms ?? 0, postgres: postgresCpuMs(postmaster) };
      const postgresSampler = samplePostgresCpu(postmaster);
      const startedAt = performance.now();
      const { messageId, apiMs } = await sendToEveryone(url, token, fixture.serviceIds);
      const timings = await waitForHandOver(fixture.owner, messageId, startedAt, 20 * 60_000);
      const perThousand = (ms: number) => (ms * 1000) / size;
      const cpu = {
        server: perThousand((procStat(server.pid)?.ms ?? 0) - cpuBefore.server),
        postgres: perThousand(cpuSpent(cpuBefore.postgres, postgresSampler.stop())),
      };
      ctx.log(
        `CPU per 1,000 recipients: server ${cpu.server.toFixed(1)} ms, PostgreSQL ${cpu.postgres.toFixed(1)} ms`,
      );
      // The server's backends flush their table statistics when they exit.
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const writes = await recipientWrites(fixture.owner.db);
      ctx.log(
        `recipients' updates ${writes.updates.toLocaleString('en-US')}, HOT ${((100 * writes.hot) / Math.max(1, writes.updates)).toFixed(1)} %; ` +
          `WAL ${((writes.walBytes - walBefore) / size).toFixed(0)} bytes per recipient`,
      );
      const doubles = await countDoubleSends(fixture.owner, messageId);
      if (timings.recipients !== size || doubles.duplicate_phones > 0)
        throw new Error(
          `expected ${size} distinct recipients, got ${timings.recipients} (${JSON.stringify(doubles)})`,
        );
      const work = `${size.toLocaleString('en-US')} recipients, 3 services`;
      const rowsPerSecond = size / (timings.rowsWrittenMs / 1000);
      const handedPerSecond = size / (timings.handedOverMs / 1000);
      const rCopy = ctx.baselines.R_copy;
      ctx.report(settled);
      ctx.report({
        scenario: 'fan-out',
        measure: 'API call (POST /messages/bulk/send)',
        work,
        figure: apiMs,
        unit: 'ms',
        baseline: { name: 'target', figure: 200 },
        target: '< 200 ms',
        met: apiMs < 200,
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'recipient rows written',
        work,
        figure: rowsPerSecond,
        unit: 'rows/s',
        ...(rCopy ? { baseline: { name: 'R_copy', figure: rCopy }, met: rowsPerSecond >= 0.5 * rCopy } : {}),
        target: '>= 0.5 x R_copy',
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'all rows written after',
        work,
        figure: timings.rowsWrittenMs / 1000,
        unit: 's',
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'all handed to the simulator after',
        work,
        figure: timings.handedOverMs / 1000,
        unit: 's',
        baseline: { name: 'target', figure: (30 * size) / 1_000_000 },
        target: `<= ${(30 * size) / 1_000_000} s`,
        met: timings.handedOverMs / 1000 <= (30 * size) / 1_000_000,
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'CPU per 1,000 recipients: server process + PostgreSQL',
        work,
        figure: cpu.server + cpu.postgres,
        unit: 'ms',
      });
      ctx.report({
        scenario: 'fan-out',
        measure: 'hand-over rate',
        work,
        figure: handedPerSecond,
        unit: 'msg/s',
        baseline: { name: 'target', figure: 33_000 },
        target: '>= 33,000 msg/s',
        met: handedPerSecond >= 33_000,
      });
    } finally {
      await server.stop();
      await fixture.owner.close();
    }
  },
};
