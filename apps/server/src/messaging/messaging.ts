import type pg from 'pg';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createInboxJobs } from './delivery-report-applier.ts';
import { createDeliveryReportIntake, type DeliveryReportIntake } from './delivery-report-intake.ts';
import { createMessagingEngine, type MessagingEngine } from './engine.ts';
import {
  createProviderRegistry,
  type ProviderRegistry,
  type ProviderRegistryOptions,
} from './providers/registry.ts';
import { createJobQueue, type JobQueue } from './queue/job-queue.ts';

export type MessagingLog = (level: 'info' | 'warn' | 'error', message: string, error?: unknown) => void;

export type WorkerOptions = Pick<ProviderRegistryOptions, 'build' | 'loadSettings' | 'onInboundMessage'> & {
  /** Where simulated delivery reports are posted when SIMULATOR_CALLBACK_URL is unset. */
  callbackBase: () => string;
  /** The worker's own pool. */
  db?: Database;
};

/** Messaging as the rest of the app sees it: the queue, the delivery-report intake, the worker. */
export type Messaging = {
  queue: JobQueue;
  deliveryReports: DeliveryReportIntake;
  /** After a commit: this process's worker builds the provider anew; others notice within the registry's ttl. */
  providerSettingsChanged(companyId: number): void;
  /** Runs the worker side (the send's jobs, delivery reports, upkeep) in this process. */
  startWorker(options: WorkerOptions): Promise<{ engine: MessagingEngine; providers: ProviderRegistry }>;
  /** Stops the worker, stores the reports still queued and enqueues their jobs (the next worker applies them). */
  close(): Promise<void>;
};

export function createMessaging(input: {
  db: Database;
  pool: pg.Pool;
  config: Config;
  encryptionKey: Buffer;
  log: MessagingLog;
}): Messaging {
  const { config, log } = input;
  const supervise = config.role !== 'api';
  const queue = createJobQueue(input.pool, {
    supervise,
    onError: (error) => log('warn', 'job queue error', error),
  });
  let worker: { engine: MessagingEngine; providers: ProviderRegistry } | null = null;
  const inboxJobs = createInboxJobs(input.db, queue, log);
  const deliveryReports = createDeliveryReportIntake(input.db, {
    onAccepted: (companyId) => inboxJobs.accepted(companyId),
  });

  return {
    queue,
    deliveryReports,
    providerSettingsChanged: (companyId) => worker?.providers.invalidate(companyId),
    async startWorker(options) {
      if (worker) return worker;
      const db = options.db ?? input.db;
      const providers = createProviderRegistry({
        db,
        queue,
        config,
        encryptionKey: input.encryptionKey,
        callbackBase: () => config.messaging.simulator.callbackUrl ?? options.callbackBase(),
        onDeliveryReport: (companyId, update) =>
          deliveryReports.submit(companyId, update).catch((error) => {
            log('warn', 'a delivery receipt was not stored; the provider is asked to send it again', error);
            throw error;
          }),
        onInboundMessage:
          options.onInboundMessage &&
          ((companyId, message) =>
            options.onInboundMessage!(companyId, message).catch((error) => {
              log('warn', 'a handset message was not stored; the SMSC is asked to send it again', error);
              throw error;
            })),
        log: (message) => log('info', message),
        build: options.build,
        loadSettings: options.loadSettings,
      });
      // SMPP links bind now, not on the company's first send (receipts and handset messages wait on them).
      await providers
        .keepLinksBound()
        .catch((error) => log('warn', 'binding the SMPP links at start-up failed; sends bind them', error));
      const engine = createMessagingEngine({
        db,
        queue,
        providers,
        config: config.messaging,
        log,
        encryptionKey: input.encryptionKey,
      });
      await engine.start();
      worker = { engine, providers };
      return worker;
    },
    async close() {
      if (worker) {
        await worker.engine.stop();
        await worker.providers.close();
        worker = null;
      }
      // Their posters wait for the answer.
      await deliveryReports.close();
      await inboxJobs.flush();
      await queue.close();
    },
  };
}
