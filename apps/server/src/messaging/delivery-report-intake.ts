import { CALLBACK_MESSAGES } from '@sms/contracts/callbacks/callback-urls';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import { AppError } from '../errors.ts';
import { sha256 } from '../lib/crypto.ts';
import { isWellFormedCallbackUrl } from '../modules/callbacks/callback-tokens.ts';
import { type DeliveryOutcome, takeDeliveryReports } from './delivery-reports.ts';
import type { DeliveryUpdate } from './providers/provider.ts';

export type DeliveryReportIntake = {
  /**
   * Resolves once the report's batch has committed (or rejects if it could not be). With `token`
   * (a report posted to a callback URL) the URL is checked in the batch's own transaction, by the
   * shared rule (the company's current dlr token, an active company): a wrong one rejects with the
   * callback's 404 and applies nothing.
   */
  submit(companyId: number, update: DeliveryUpdate, token?: string): Promise<DeliveryOutcome>;
  /** Applies what is queued and stops taking more. */
  close(): Promise<void>;
  /** Reports applied and the batches they took (a batch is one transaction per company). */
  stats(): { reports: number; batches: number };
};

export type IntakeOptions = {
  /** Reports per batch at most. */
  maxBatch?: number;
  /** How long the first report of a batch waits for others to join it. */
  maxWaitMs?: number;
  /**
   * Batches applied at once; more reports queue up meanwhile and form the next, larger batch. One
   * by default: a company's batches wait on each other anyway (the same counter rollup rows stay
   * locked until commit, which is what lets the last one settle its send exactly), so a second one
   * in flight made the batches smaller and cost 20-40% more CPU per report for no gain
   * (docs/decisions/0014-delivery-report-intake.md, fifth pass).
   */
  concurrency?: number;
};

type Pending = {
  companyId: number;
  update: DeliveryUpdate;
  token: string | undefined;
  resolve: (outcome: DeliveryOutcome) => void;
  reject: (error: Error) => void;
};

/**
 * Group commit for delivery reports: requests are queued, applied together (one statement, its own
 * transaction, per company per batch: takeDeliveryReports), and each request is answered only after
 * its batch committed, so nothing acknowledged is lost. Under load the batches grow by themselves:
 * reports that arrive while batches are being applied form the next one.
 */
export function createDeliveryReportIntake(db: Database, options: IntakeOptions = {}): DeliveryReportIntake {
  const maxBatch = options.maxBatch ?? 1000;
  const maxWaitMs = options.maxWaitMs ?? 2;
  const concurrency = options.concurrency ?? 1;
  let queue: Pending[] = [];
  let applying = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const idleWaiters: (() => void)[] = [];
  const counted = { reports: 0, batches: 0 };

  const applyBatch = async (batch: Pending[]) => {
    const byCompany = new Map<number, Pending[]>();
    for (const item of batch) {
      if (!isWellFormedCallbackUrl(item.companyId, item.token)) {
        item.reject(new AppError('not_found', CALLBACK_MESSAGES.invalidCallback));
        continue;
      }
      const list = byCompany.get(item.companyId);
      if (list) list.push(item);
      else byCompany.set(item.companyId, [item]);
    }
    for (const [companyId, items] of byCompany) {
      try {
        const updates = items.map((item) => item.update);
        // A provider posts to one URL: its token is hashed once per batch, not once per report.
        const hashes = new Map<string, Buffer>();
        const tokenHashes = items.map((item) => {
          if (item.token === undefined) return null;
          let hash = hashes.get(item.token);
          if (!hash) {
            hash = sha256(item.token);
            hashes.set(item.token, hash);
          }
          return hash;
        });
        // Reports that all came through a URL: one statement, its own transaction, which binds the
        // company only when their token is its current one. Reports without one (an SMPP receipt)
        // are applied in a transaction bound to their company first.
        const outcomes = tokenHashes.includes(null)
          ? await inTenantTransaction(db, companyScope(companyId), (trx) =>
              takeDeliveryReports(trx, companyId, updates, tokenHashes),
            )
          : await takeDeliveryReports(db, companyId, updates, tokenHashes);
        counted.batches++;
        items.forEach((item, index) => {
          const outcome = outcomes[index];
          if (outcome === 'refused')
            item.reject(new AppError('not_found', CALLBACK_MESSAGES.invalidCallback));
          else {
            counted.reports++;
            item.resolve(outcome);
          }
        });
      } catch (error) {
        for (const item of items) item.reject(error as Error);
      }
    }
  };

  const flush = () => {
    timer = undefined;
    while (queue.length > 0 && applying < concurrency) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      applying++;
      void applyBatch(batch).finally(() => {
        applying--;
        if (queue.length > 0) schedule();
        else if (applying === 0) for (const resolve of idleWaiters.splice(0)) resolve();
      });
    }
  };

  const schedule = () => {
    if (applying >= concurrency) return;
    if (queue.length >= maxBatch) {
      if (timer) clearTimeout(timer);
      flush();
    } else {
      timer ??= setTimeout(flush, maxWaitMs);
    }
  };

  return {
    submit(companyId, update, token) {
      if (closed) return Promise.reject(new Error('Delivery reports are no longer accepted: shutting down'));
      return new Promise<DeliveryOutcome>((resolve, reject) => {
        queue.push({ companyId, update, token, resolve, reject });
        schedule();
      });
    },
    stats: () => ({ ...counted }),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      flush();
      if (applying > 0 || queue.length > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
