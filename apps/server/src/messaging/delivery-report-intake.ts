import { CALLBACK_MESSAGES } from '@sms/contracts/callbacks/callback-urls';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import { AppError } from '../errors.ts';
import { isCallbackTokenValid } from '../modules/callbacks/callback-tokens.ts';
import { applyDeliveryUpdates, type DeliveryOutcome } from './delivery-reports.ts';
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
   * locked until commit), so a second one in flight only halved the batches and doubled the
   * per-batch work (docs/decisions/0014-delivery-report-intake.md).
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
 * Group commit for delivery reports: requests are queued, applied together (one transaction and
 * one UPDATE ... FROM unnest per company per batch), and each request is answered only after its
 * batch committed, so nothing acknowledged is lost. Under load the batches grow by themselves:
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
      const list = byCompany.get(item.companyId) ?? [];
      list.push(item);
      byCompany.set(item.companyId, list);
    }
    for (const [companyId, items] of byCompany) {
      try {
        const accepted = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
          const valid = new Map<string, boolean>();
          for (const token of new Set(
            items.flatMap((item) => (item.token === undefined ? [] : [item.token])),
          ))
            valid.set(token, await isCallbackTokenValid(trx, 'dlr', companyId, token));
          const passed = items.filter((item) => item.token === undefined || valid.get(item.token));
          const outcomes = await applyDeliveryUpdates(
            trx,
            companyId,
            passed.map((item) => item.update),
          );
          return passed.map((item, index) => ({ item, outcome: outcomes[index] }));
        });
        counted.reports += accepted.length;
        counted.batches++;
        const applied = new Set(accepted.map(({ item }) => item));
        for (const { item, outcome } of accepted) item.resolve(outcome);
        for (const item of items)
          if (!applied.has(item)) item.reject(new AppError('not_found', CALLBACK_MESSAGES.invalidCallback));
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
