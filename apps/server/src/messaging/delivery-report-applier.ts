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
 * Inbox rows (one per intake batch, tens of reports each) an applying transaction takes at most:
 * thousands of reports, so the batch's fixed costs (the rollup rows, the settle, the commit) are
 * shared by all of them.
 */
export const INBOX_ROWS_PER_BATCH = 200;
/**
 * Reports an applying transaction takes at most (about: whole rows, the first always): a row holds
 * up to 1,000 when a provider bursts, and 200 of those would hold the company's rollup rows and
 * recipients for seconds (migration 0036).
 */
export const INBOX_REPORTS_PER_BATCH = 10_000;

/**
 * How long reports gather between two applying passes of a job while they keep coming: the next
 * batch then holds what arrived meanwhile instead of one intake batch, and the fixed costs of an
 * applying transaction (the rollup rows, the settle, the commit) are shared by all of them.
 * Measured in the sixth pass (docs/decisions/0014-delivery-report-intake.md).
 */
const GATHER_MS = 50;

/** A job applies for this long at most, then leaves the rest to the next one (its expiry stays far). */
const JOB_RUN_MS = 10_000;

/**
 * Applies up to `maxRows` of a company's inbox rows (and about `maxReports` reports) and deletes them, in one transaction bound to
 * the company (apply_delivery_report_inbox: the delivery-report rule, counters and settle exact). Returns the reports applied, 0 when nothing was waiting, or 'busy' when another
 * applier holds the company.
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
 * Applies everything the inbox holds now, through the same function as the dlr-apply job, and returns the
 * reports applied. A company another applier holds is waited for until its rows are gone. Used at
 * shutdown and by tests (a report answered 200 is applied once this returns).
 */
export async function applyWaitingReports(db: Database) {
  let applied = 0;
  for (let round = 0; ; round++) {
    const companies = await companiesWithWaitingReports(db);
    if (companies.length === 0) return applied;
    for (const companyId of companies) {
      for (;;) {
        const result = await applyInboxBatch(db, companyId);
        if (result === 'busy') {
          await pause(Math.min(50, 2 + round));
          break;
        }
        if (result === 0) break;
        applied += result;
      }
    }
  }
}

/** The company's inbox is held by another applier: the job fails, and the queue runs it again shortly. */
export class InboxBusy extends Error {
  constructor(companyId: number) {
    super(`the delivery-report inbox of company ${companyId} is being applied elsewhere`);
  }
}

/**
 * The dlr-apply job: applies the company's inbox, batch after batch (GATHER_MS apart, so that
 * reports still coming join the next one), until a pass finds it empty. Throws InboxBusy when
 * another applier holds the company: the queue's retry then applies whatever that one left (the
 * reports committed after its last pass). Stopped (the worker is stopping), it throws as well and
 * another worker takes the rest. Returns the reports applied.
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

/**
 * Enqueues a dlr-apply job for the company, on the pool (its own transaction). The job is stately by
 * the company: while one waits this does nothing (the waiting one will see what was committed
 * before), while one runs it adds the one that waits.
 */
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
 * The intake's side of the dlr-apply job: after a batch of a company's reports is committed, a job
 * is enqueued for the company. At most one enqueue per company is on its way in this process, and at
 * most one every `spacingMs`: batches committed meanwhile are covered by the next one, which starts
 * after them (every commit is followed by an enqueue begun after it). An enqueue that fails is only
 * logged: the reports are in the inbox, and the engine's upkeep enqueues for them.
 */
export function createInboxJobs(
  db: Database,
  queue: JobQueue,
  log: (level: 'warn', message: string, error?: unknown) => void,
  { spacingMs = GATHER_MS }: { spacingMs?: number } = {},
): InboxJobs {
  const companies = new Map<number, { again: boolean; done: Promise<void> }>();
  // Aborted by flush(): the spacing between enqueues is not waited out at shutdown.
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
