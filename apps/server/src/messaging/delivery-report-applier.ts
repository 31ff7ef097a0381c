import { sql } from 'kysely';
import type pg from 'pg';
import { type ChannelListener, listenOnChannel } from '../db/channel-listener.ts';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import { REPORT_WINDOW } from './delivery-reports.ts';

/** The channel on which processes without an applier of their own say a company's inbox has reports. */
export const INBOX_CHANNEL = 'delivery_report_inbox';

/**
 * Inbox rows (one per intake batch, tens of reports each) an applying transaction takes at most:
 * thousands of reports, so the batch's fixed costs (the rollup rows, settle_sends, the commit) are
 * shared by all of them.
 */
export const INBOX_ROWS_PER_BATCH = 200;
/**
 * Reports an applying transaction takes at most (about: whole rows, the first always): a row holds
 * up to 1,000 when a provider bursts, and 200 of those would hold the company's rollup rows and
 * recipients for seconds (migration 0036).
 */
export const INBOX_REPORTS_PER_BATCH = 10_000;

/** Measured in the sixth pass (docs/decisions/0014-delivery-report-intake.md). */
const DEFAULT_GATHER_MS = 50;

/**
 * Applies up to `maxRows` of a company's inbox rows (and about `maxReports` reports) and deletes them, in one transaction bound to
 * the company (apply_delivery_report_inbox, migration 0032: the delivery-report rule, counters and
 * settle exact). Returns the reports applied, 0 when nothing was waiting, or 'busy' when another
 * applier holds the company (it will apply what is there).
 */
export async function applyInboxBatch(
  db: Database,
  companyId: number,
  maxRows = INBOX_ROWS_PER_BATCH,
  maxReports = INBOX_REPORTS_PER_BATCH,
): Promise<number | 'busy'> {
  const applied = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows } = await sql<{ applied: number }>`
      select apply_delivery_report_inbox(${companyId}::bigint, ${maxRows}::int, ${maxReports}::int,
                                         ${REPORT_WINDOW}::interval) as applied`.execute(trx);
    return rows[0].applied;
  });
  return applied < 0 ? 'busy' : applied;
}

/** The companies whose inbox holds reports (a few rows at most per company: one per waiting batch). */
export async function companiesWithWaitingReports(db: Database) {
  return inTenantTransaction(db, platformScope, async (trx) => {
    const { rows } = await sql<{ company_id: string }>`
      select distinct company_id from delivery_report_inbox`.execute(trx);
    return rows.map((row) => Number(row.company_id));
  });
}

/**
 * Applies everything the inbox holds now, through the same function as the applier, and returns the
 * reports applied. A company another applier holds is waited for until its rows are gone. Used at
 * shutdown and by tests (a report answered 200 is applied once this returns).
 */
export async function applyWaitingReports(db: Database, maxRows = INBOX_ROWS_PER_BATCH) {
  let applied = 0;
  for (let round = 0; ; round++) {
    const companies = await companiesWithWaitingReports(db);
    if (companies.length === 0) return applied;
    for (const companyId of companies) {
      for (;;) {
        const result = await applyInboxBatch(db, companyId, maxRows);
        if (result === 'busy') {
          await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + round)));
          break;
        }
        if (result === 0) break;
        applied += result;
      }
    }
  }
}

export type DeliveryReportApplier = {
  start(): Promise<void>;
  /** Stops listening and waits for the batch in hand (what is left stays in the inbox, durable). */
  stop(): Promise<void>;
  /** A company's reports were accepted (in this process, or another's notification). */
  wake(companyId: number): void;
  /** Reports applied and the transactions that applied them. */
  stats(): { reports: number; batches: number };
};

export type ApplierOptions = {
  db: Database;
  /** Connection settings for the LISTEN connection (the pool's own). */
  listenConnection: pg.ClientConfig;
  log: (level: 'info' | 'warn' | 'error', message: string, error?: unknown) => void;
  maxRows?: number;
  maxReports?: number;
  /** How often an idle applier looks at the whole inbox (notifications lost, a crashed applier's rows). */
  pollMs?: number;
  /**
   * How long reports gather between two applying passes while they keep coming: a company's batch
   * then holds what arrived meanwhile instead of one intake batch, and the fixed costs of an
   * applying transaction (the rollup rows, settle_sends, the commit) are shared by all of them.
   */
  gatherMs?: number;
  /** How long an idle applier, once woken, waits for the next few intake batches (a sparse report is applied at once). */
  wakeGatherMs?: number;
};

/**
 * The worker's delivery-report applier: woken by the intake of its own process or by NOTIFY on
 * INBOX_CHANNEL from API processes, it applies each company's inbox in large batches until it is
 * empty, then sleeps (looking again every pollMs). Any number of processes may run one: a company
 * is applied by one of them at a time (the others skip it), and an inbox row is deleted in the
 * transaction that applied it.
 */
export function createDeliveryReportApplier(options: ApplierOptions): DeliveryReportApplier {
  const { db, log } = options;
  const maxRows = options.maxRows ?? INBOX_ROWS_PER_BATCH;
  const maxReports = options.maxReports ?? INBOX_REPORTS_PER_BATCH;
  const pollMs = options.pollMs ?? 1000;
  const gatherMs = options.gatherMs ?? DEFAULT_GATHER_MS;
  const wakeGatherMs = options.wakeGatherMs ?? 2;
  const waiting = new Set<number>();
  const counted = { reports: 0, batches: 0 };
  let running = false;
  let scanAll = true;
  let loop: Promise<void> | undefined;
  let listener: ChannelListener | undefined;
  let sleeper: { timer: NodeJS.Timeout; resolve: (timedOut: boolean) => void } | undefined;

  const endSleep = (timedOut: boolean) => {
    if (!sleeper) return;
    clearTimeout(sleeper.timer);
    const { resolve } = sleeper;
    sleeper = undefined;
    resolve(timedOut);
  };
  const wakeUp = () => endSleep(false);
  /** Resolves true after `ms`, or false as soon as the applier is woken. */
  const sleep = (ms: number) =>
    new Promise<boolean>((resolve) => {
      sleeper = { timer: setTimeout(() => endSleep(true), ms), resolve };
    });

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const run = async () => {
    let failures = 0;
    while (running) {
      try {
        if (scanAll) {
          scanAll = false;
          for (const companyId of await companiesWithWaitingReports(db)) waiting.add(companyId);
        }
        if (waiting.size === 0) {
          const timedOut = await sleep(pollMs);
          if (timedOut) scanAll = true;
          // Woken by the first accepted batch: let the next ones join it.
          else if (wakeGatherMs > 0) await pause(wakeGatherMs);
          continue;
        }
        const companies = [...waiting];
        waiting.clear();
        let busy = false;
        for (const companyId of companies) {
          if (!running) break;
          const result = await applyInboxBatch(db, companyId, maxRows, maxReports);
          // Held by another process's applier: look again soon, in case it took its rows before ours committed.
          if (result === 'busy') busy = true;
          else if (result > 0) {
            counted.reports += result;
            counted.batches++;
            // More may have arrived meanwhile (or more than one batch was waiting): the next pass looks.
            waiting.add(companyId);
          }
        }
        if (busy) scanAll = true;
        if (running && (busy || waiting.size > 0)) await pause(Math.max(gatherMs, busy ? 20 : 0));
        failures = 0;
      } catch (error) {
        failures++;
        log('error', 'delivery-report applier failed a step; retrying', error);
        scanAll = true;
        await pause(Math.min(5000, 100 * 2 ** failures));
      }
    }
  };

  const listen = () =>
    listenOnChannel(options.listenConnection, INBOX_CHANNEL, {
      onNotification: (payload) => {
        for (const id of payload.split(',')) {
          const companyId = Number(id);
          if (Number.isSafeInteger(companyId) && companyId > 0) waiting.add(companyId);
        }
        wakeUp();
      },
      // Whatever was notified while nobody listened: the next pass looks at the whole inbox.
      onListening: () => {
        scanAll = true;
        wakeUp();
      },
      onLost: (error, retryInMs) =>
        log(
          'warn',
          `delivery-report applier has no LISTEN connection; polling, trying again in ${retryInMs} ms`,
          error,
        ),
    });

  return {
    async start() {
      if (running) return;
      running = true;
      scanAll = true;
      listener = await listen();
      loop = run();
    },
    async stop() {
      if (!running) return;
      running = false;
      wakeUp();
      await loop;
      await listener?.close();
      listener = undefined;
    },
    wake(companyId) {
      waiting.add(companyId);
      wakeUp();
    },
    stats: () => ({ ...counted }),
  };
}

/**
 * How an API process without an applier of its own tells the workers: NOTIFY on INBOX_CHANNEL with
 * the companies' ids, at most one at a time and one every `everyMs` (each is a small transaction of
 * its own, outside the intake's: NOTIFY serialises the commits of the transactions that send one).
 */
export function createInboxNotifier(db: Database, everyMs = 5) {
  const pending = new Set<number>();
  let busy = false;
  const send = async () => {
    busy = true;
    try {
      while (pending.size > 0) {
        const payload = [...pending].join(',');
        pending.clear();
        await sql`select pg_notify(${INBOX_CHANNEL}, ${payload})`.execute(db).catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
    } finally {
      busy = false;
    }
  };
  return (companyId: number) => {
    pending.add(companyId);
    if (!busy) void send();
  };
}
