import type { MessagingConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import { expireIdempotencyKeys } from '../modules/messages/idempotency.repository.ts';
import { startWebhookDelivery } from '../modules/webhooks/webhook-delivery.ts';
import { applyCompanyInbox, enqueueJobsForWaitingReports, InboxBusy } from './delivery-report-applier.ts';
import { runFanOutStep } from './fan-out.ts';
import { HandOverLater, handOverBatch } from './hand-over.ts';
import {
  adoptSendsWithoutJobs,
  dropExpiredPartitions,
  enqueueJobsForUnmatchedReports,
  enqueueUnmatchedJob,
  ensurePartitions,
  failUnknownOutcomes,
  keepsUnmatchedReports,
  runUnmatchedJob,
} from './maintenance.ts';
import type { ProviderRegistry } from './providers/registry.ts';
import { postSimulatedReports, reportsOf } from './providers/simulator.ts';
import type { JobQueue } from './queue/job-queue.ts';
import {
  DLR_APPLY_JOB,
  DLR_UNMATCHED_JOB,
  SEND_BATCH_JOB,
  SEND_FANOUT_JOB,
  SEND_START_JOB,
  SIMULATOR_REPORT_JOB,
} from './queue/jobs.ts';
import { startSend } from './send-jobs.ts';

export type MessagingEngine = {
  start(): Promise<void>;
  /** Stops taking jobs; running batches get the stop's time-out to finish, then release what they hold. */
  stop(): Promise<void>;
};

export type MessagingEngineOptions = {
  db: Database;
  queue: JobQueue;
  providers: ProviderRegistry;
  config: MessagingConfig;
  log: (level: 'info' | 'warn' | 'error', message: string, error?: unknown) => void;
  /** ENCRYPTION_KEY: webhook signing secrets are stored under it. */
  encryptionKey: Buffer;
};

/** How long a stopping worker's running batches may take before they are told to give up. */
export const ENGINE_STOP_TIMEOUT_MS = 10_000;
const MAINTENANCE_INTERVAL_MS = 30_000;

/**
 * The worker side of messaging: the handlers of the send's jobs and of the delivery reports'
 * (docs/engine.md), and the periodic upkeep. A company's jobs take at most `concurrencyPerCompany`
 * of a worker's slots, so a company whose provider hangs cannot hold up the others.
 */
export function createMessagingEngine(options: MessagingEngineOptions): MessagingEngine {
  const { db, queue, providers, config, log } = options;
  let running = false;
  let timers: NodeJS.Timeout[] = [];
  const upkeep = new Set<Promise<unknown>>();

  const every = (ms: number, task: () => Promise<unknown>) => {
    timers.push(
      setInterval(() => {
        if (!running) return;
        const work = task()
          .catch((error) => log('warn', 'messaging upkeep failed', error))
          .finally(() => upkeep.delete(work));
        upkeep.add(work);
      }, ms),
    );
  };

  /** Rethrows for the queue's retry; logs all but the expected way a job ends unfinished. */
  const logUnexpected =
    (expected: abstract new (...args: never[]) => Error, message: string) => (error: unknown) => {
      if (!(error instanceof expected)) log('warn', message, error);
      throw error;
    };

  const maintain = async () => {
    await ensurePartitions(db);
    await dropExpiredPartitions(db, config.retentionMonths);
    await inTenantTransaction(db, platformScope, expireIdempotencyKeys);
    if ((await adoptSendsWithoutJobs(db, queue)) > 0) log('info', 'gave queue jobs to sends that had none');
    await enqueueJobsForWaitingReports(db, queue);
    await enqueueJobsForUnmatchedReports(db, queue);
    await failUnknownOutcomes(db, config.sendValidityHours);
  };

  return {
    async start() {
      if (running) return;
      running = true;
      await maintain().catch((error) => log('warn', 'messaging upkeep failed', error));
      // Every kind of job takes the worker's slots the same way: 2,000 small sends of 100 companies
      // waited 49 s for a start when starts had 2 slots.
      const perCompany = { concurrency: config.concurrency, perGroup: config.concurrencyPerCompany };
      await queue.work(SEND_START_JOB, perCompany, async (send, job) => {
        await startSend(db, queue, send.companyId, send.messageId, job.id);
      });
      await queue.work(SEND_FANOUT_JOB, perCompany, async (step) => {
        const { batchSize } = await providers.forCompany(step.companyId);
        await runFanOutStep(db, queue, step, { stepSize: config.fanoutBatchSize, batchSize });
      });
      await queue.work(SEND_BATCH_JOB, perCompany, async (batch, job) => {
        await handOverBatch(db, providers, config, batch, job.signal).catch(
          logUnexpected(HandOverLater, 'a hand-over batch failed; the queue retries it'),
        );
      });
      await queue.work(DLR_APPLY_JOB, { ...perCompany, perGroup: 1 }, async ({ companyId }, job) => {
        await applyCompanyInbox(db, queue, companyId, job.signal).catch(
          logUnexpected(InboxBusy, 'applying delivery reports failed; the queue retries'),
        );
        // Reports whose hand-over commit was still on its way are kept: a job looks at them shortly.
        if (await keepsUnmatchedReports(db, companyId)) await enqueueUnmatchedJob(db, queue, companyId, 1000);
      });
      await queue.work(DLR_UNMATCHED_JOB, { concurrency: 1 }, async ({ companyId }) => {
        await runUnmatchedJob(db, queue, companyId);
      });
      // One job per company at a time, so that one company's million reports do not hold up
      // another's; few at once, as 8 jobs x 32 posts turned the API's other requests away as busy.
      await queue.work(SIMULATOR_REPORT_JOB, { concurrency: 2, perGroup: 1 }, async (batch, job) => {
        const { provider } = await providers.forCompany(batch.companyId);
        await postSimulatedReports(provider, reportsOf(batch), job.signal);
      });
      await startWebhookDelivery({ db, queue, config, log, every, encryptionKey: options.encryptionKey });
      every(MAINTENANCE_INTERVAL_MS, maintain);
    },
    async stop() {
      if (!running) return;
      running = false;
      for (const timer of timers) clearInterval(timer);
      timers = [];
      await queue.stopWorking(ENGINE_STOP_TIMEOUT_MS);
      await Promise.all([...upkeep]);
    },
  };
}
