import { randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import type { JobQueue } from './queue/job-queue.ts';
import { DLR_APPLY_JOB } from './queue/jobs.ts';

/** Reports name recipients handed over at most this long ago (the partitions they may live in). */
export const REPORT_WINDOW = '62 days';

/**
 * What an applying transaction takes at most: inbox rows (one per intake batch), so that thousands
 * of reports share its fixed costs (the rollup rows, the settle, the commit); and about this many
 * reports, as a burst's rows of 1,000 would hold the company's rows for seconds (migration 0036).
 */
export const INBOX_ROWS_PER_BATCH = 200;
export const INBOX_REPORTS_PER_BATCH = 10_000;

/**
 * How long reports gather between two applying passes while they keep coming, so that a pass
 * shares its fixed costs among more of them (docs/decisions/0014-delivery-report-intake.md).
 */
const GATHER_MS = 50;

/** A job applies for this long at most, then leaves the rest to the next one (its expiry stays far). */
const JOB_RUN_MS = 10_000;

/**
 * Applies and deletes a batch of the company's inbox in one transaction (apply_delivery_report_inbox).
 * Returns the reports applied, or 'busy' when another applier holds the company.
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

/** The companies whose inbox holds reports (a few rows at most per company). */
export async function companiesWithWaitingReports(db: Database) {
  return inTenantTransaction(db, platformScope, async (trx) => {
    const { rows } = await sql<{ company_id: string }>`
      select distinct company_id from delivery_report_inbox`.execute(trx);
    return rows.map((row) => Number(row.company_id));
  });
}

/** The company's inbox is held by another applier: the job fails, and the queue runs it again shortly. */
export class InboxBusy extends Error {
  constructor(companyId: number) {
    super(`the delivery-report inbox of company ${companyId} is being applied elsewhere`);
  }
}

/**
 * The dlr-apply job: applies the company's inbox, GATHER_MS apart, until a pass finds it empty.
 * Another applier holding the company, or the worker stopping, fails the job: the queue's retry
 * applies what is left.
 */
export async function applyCompanyInbox(
  db: Database,
  queue: JobQueue,
  companyId: number,
  signal?: AbortSignal,
) {
  const until = Date.now() + JOB_RUN_MS;
  let applied = 0;
  for (;;) {
    if (signal?.aborted) throw new Error('the worker is stopping; the queue runs the rest again');
    const result = await applyInboxBatch(db, companyId);
    if (result === 'busy') throw new InboxBusy(companyId);
    if (result === 0) return applied;
    applied += result;
    if (Date.now() >= until) {
      // Long enough: the rest goes to a job of its own (a no-op when one is already waiting).
      await enqueueInboxJob(db, queue, companyId);
      return applied;
    }
    await pause(GATHER_MS);
  }
}

/** A dlr-apply job for the company, in its own transaction (stately: a no-op while one waits). */
export async function enqueueInboxJob(db: Database, queue: JobQueue, companyId: number) {
  await queue.enqueue(
    db,
    DLR_APPLY_JOB,
    { companyId },
    { key: `${companyId}:${randomUUID()}`, singletonKey: String(companyId), group: String(companyId) },
  );
}

/** Upkeep: a job for every company whose inbox holds reports (a process died between its commit and its enqueue). */
export async function enqueueJobsForWaitingReports(db: Database, queue: JobQueue) {
  const companies = await companiesWithWaitingReports(db);
  for (const companyId of companies) await enqueueInboxJob(db, queue, companyId);
  return companies.length;
}

export type InboxJobs = {
  /** A batch of the company's reports was committed to the inbox. */
  accepted(companyId: number): void;
  /** Enqueues what is still to enqueue now, and waits for it (shutdown). */
  flush(): Promise<void>;
};

/**
 * Enqueues a company's dlr-apply job after its reports are committed: at most one enqueue per
 * company on its way and one every `spacingMs`, every commit followed by an enqueue begun after it.
 * A failed enqueue is only logged: the upkeep enqueues for reports left in the inbox.
 */
export function createInboxJobs(
  db: Database,
  queue: JobQueue,
  log: (level: 'warn', message: string, error?: unknown) => void,
  { spacingMs = GATHER_MS }: { spacingMs?: number } = {},
): InboxJobs {
  const companies = new Map<number, { again: boolean; done: Promise<void> }>();
  // flush() does not wait out the spacing.
  let hurry = new AbortController();

  const enqueueFor = async (companyId: number, entry: { again: boolean }) => {
    for (;;) {
      const started = Date.now();
      await enqueueInboxJob(db, queue, companyId).catch((error) =>
        log('warn', 'a delivery-report job was not enqueued; the upkeep enqueues it', error),
      );
      if (!entry.again) break;
      entry.again = false;
      const wait = spacingMs - (Date.now() - started);
      if (wait > 0) await pause(wait, undefined, { signal: hurry.signal }).catch(() => {});
    }
    companies.delete(companyId);
  };

  return {
    accepted(companyId) {
      const entry = companies.get(companyId);
      if (entry) {
        entry.again = true;
        return;
      }
      const created = { again: false, done: Promise.resolve() };
      companies.set(companyId, created);
      created.done = enqueueFor(companyId, created);
    },
    async flush() {
      hurry.abort();
      await Promise.all([...companies.values()].map((entry) => entry.done));
      hurry = new AbortController();
    },
  };
}
