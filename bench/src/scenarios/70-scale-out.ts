import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase } from '../../../apps/server/src/db/database.ts';
import {
  countDoubleSends,
  prepareBulkSend,
  sendToEveryone,
  signIn,
  waitForHandOver,
} from '../support/bulk-send-fixture.ts';
import { copyDatabase, dropDatabaseCopy } from '../support/database-copy.ts';
import type { BenchContext, BenchScenario } from '../support/scenario.ts';
import { startServerProcess } from '../support/server-process.ts';
import { SIMULATOR_ENV } from './20-fan-out.ts';

/**
 * The fan-out scenario's send, twice on the same data: once by one process (role both), once by
 * one API process and two worker processes (docs/decisions/0010). Each process's simulator keeps
 * its own ledger of what it accepted, which gives each worker's share and shows that no recipient
 * was accepted by both.
 */

type Layout = { label: string; roles: ('both' | 'api' | 'worker')[] };

const ONE_PROCESS: Layout = { label: '1 process (role both)', roles: ['both'] };
const SCALED_OUT: Layout = { label: '1 API + 2 workers', roles: ['api', 'worker', 'worker'] };

type Run = { handedOverMs: number; rowsWrittenMs: number; perProcess: number[]; reoffers: number };

const ledgerLines = async (file: string) => (await readFile(file, 'utf8').catch(() => '')).split('\n');

async function runLayout(
  ctx: BenchContext,
  databaseUrl: string,
  layout: Layout,
  fixture: { adminEmail: string; serviceIds: number[]; size: number },
  dir: string,
): Promise<Run> {
  const ledgers = layout.roles.map((role, index) =>
    role === 'api' ? undefined : path.join(dir, `${layout.roles.length}-${index}.ledger`),
  );
  const api = await startServerProcess({
    databaseUrl,
    role: layout.roles[0],
    env: { ...SIMULATOR_ENV, ...(ledgers[0] ? { SIMULATOR_LEDGER: ledgers[0] } : {}) },
  });
  const url = api.url as string;
  const workers = await Promise.all(
    layout.roles.slice(1).map((role, index) =>
      startServerProcess({
        databaseUrl,
        role,
        env: {
          ...SIMULATOR_ENV,
          SIMULATOR_CALLBACK_URL: url,
          SIMULATOR_LEDGER: ledgers[index + 1] as string,
        },
      }),
    ),
  );
  const owner = connectDatabase(databaseUrl, 2);
  try {
    const token = await signIn(url, fixture.adminEmail);
    const startedAt = performance.now();
    const { messageId } = await sendToEveryone(url, token, fixture.serviceIds);
    const timings = await waitForHandOver(owner, messageId, startedAt, 20 * 60_000);
    const doubles = await countDoubleSends(owner, messageId);

    // Nobody twice: one attempt each, one row per phone, and no recipient in two ledgers.
    const lines = await Promise.all(ledgers.filter((file) => file !== undefined).map(ledgerLines));
    const accepted = lines.map((of) =>
      of.filter((line) => line.startsWith('A ')).map((line) => line.slice(2)),
    );
    const all = accepted.flat();
    const distinct = new Set(all).size;
    const reoffers = lines.flat().filter((line) => line.startsWith('R ')).length;
    if (
      timings.recipients !== fixture.size ||
      doubles.rows !== fixture.size ||
      doubles.reoffered > 0 ||
      doubles.duplicate_phones > 0 ||
      distinct !== all.length ||
      distinct !== fixture.size
    )
      throw new Error(
        `${layout.label}: expected ${fixture.size} recipients handed over once each, got ${JSON.stringify({
          ...doubles,
          accepted: all.length,
          distinct,
          reoffers,
        })}`,
      );
    ctx.log(
      `${layout.label}: ${fixture.size.toLocaleString('en-US')} handed over in ${(timings.handedOverMs / 1000).toFixed(1)} s; ` +
        `accepted per process ${accepted.map((of) => of.length).join(' + ')}; ${reoffers} re-offers; 0 twice`,
    );
    return { ...timings, perProcess: accepted.map((of) => of.length), reoffers };
  } finally {
    await Promise.all([api, ...workers].map((server) => server.stop()));
    await owner.close();
  }
}

export const scenario: BenchScenario = {
  name: 'scale-out',
  description:
    'the fan-out send by one process, then by one API process and two worker processes on a copy of the same data',
  async run(ctx) {
    const size = ctx.quick ? 10_000 : 1_000_000;
    const prepared = await prepareBulkSend(ctx.databaseUrl, size);
    await prepared.owner.close();
    const fixture = { adminEmail: prepared.adminEmail, serviceIds: prepared.serviceIds, size };
    // Cloned before anything was sent, so both layouts start from the same rows.
    const scaledUrl = await copyDatabase(ctx.databaseUrl, 'scaled');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sms-bench-scale-'));
    try {
      const work = `${size.toLocaleString('en-US')} recipients, 3 services`;
      const single = await runLayout(ctx, ctx.databaseUrl, ONE_PROCESS, fixture, dir);
      const scaled = await runLayout(ctx, scaledUrl, SCALED_OUT, fixture, dir);
      const singleRate = size / (single.handedOverMs / 1000);
      const scaledRate = size / (scaled.handedOverMs / 1000);
      ctx.report({
        scenario: 'scale-out',
        measure: `hand-over rate, ${ONE_PROCESS.label}`,
        work,
        figure: singleRate,
        unit: 'msg/s',
      });
      ctx.report({
        scenario: 'scale-out',
        measure: `hand-over rate, ${SCALED_OUT.label}`,
        work,
        figure: scaledRate,
        unit: 'msg/s',
        baseline: { name: '1 process', figure: singleRate },
      });
      scaled.perProcess.forEach((handed, index) => {
        ctx.report({
          scenario: 'scale-out',
          measure: `worker ${index + 1} of 2: its share of the send`,
          work,
          figure: handed / (scaled.handedOverMs / 1000),
          unit: 'msg/s',
          baseline: { name: '1 process', figure: singleRate },
        });
      });
      // A re-offer is a recipient offered again after its batch rolled back: the simulator answered
      // with its first id (no second SMS), but each is a wasted provider call.
      for (const [layout, run] of [
        [ONE_PROCESS, single],
        [SCALED_OUT, scaled],
      ] as const)
        ctx.report({
          scenario: 'scale-out',
          measure: `re-offers (batches rolled back after the provider took them), ${layout.label}`,
          work,
          figure: run.reoffers,
          unit: 'recipients',
        });
      ctx.report({
        scenario: 'scale-out',
        measure: 'recipients handed over twice (both layouts)',
        work,
        figure: 0,
        unit: 'recipients',
        target: '0 (one attempt each, no recipient in two ledgers)',
        met: true,
      });
    } finally {
      await dropDatabaseCopy(scaledUrl);
      await rm(dir, { recursive: true, force: true });
    }
  },
};
