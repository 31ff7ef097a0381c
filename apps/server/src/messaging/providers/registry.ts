import type { Config } from '../../config.ts';
import type { Database, Executor } from '../../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../../db/tenant-scope.ts';
import { callbackUrl, readCallbackTokens } from '../../modules/callbacks/callback-tokens.ts';
import type { EnqueueOptions, JobQueue } from '../queue/job-queue.ts';
import { type JobDefinition, SIMULATOR_REPORT_JOB } from '../queue/jobs.ts';
import { createAfricasTalkingProvider } from './africastalking.ts';
import { type CompanyProviderSettings, toCompanyProviderSettings } from './company-provider-settings.ts';
import type { DeliveryUpdate, InboundSms, SmsProvider } from './provider.ts';
import {
  CONNECTED_PROVIDER_KINDS,
  listCompaniesOnConnectedProviders,
  loadProviderSettings,
} from './provider-settings.ts';
import { createSimulatorProvider } from './simulator.ts';
import { createSmppProvider } from './smpp.ts';
import { createUnconfiguredProvider } from './unconfigured.ts';

/** A company's provider, with the pace the engine must keep. */
export type CompanyProvider = Pick<CompanyProviderSettings, 'messagesPerSecond' | 'batchSize'> & {
  provider: SmsProvider;
};

/** What building a provider may need besides its settings. */
export type ProviderContext = {
  companyId: number;
  /** The company's own DLR callback URL, where the simulator posts its reports. */
  dlrCallbackUrl: string | null;
  /** Where SMPP hands its receipts and handset messages; each resolves once stored. */
  onDeliveryReport: (update: DeliveryUpdate) => Promise<void>;
  onInboundMessage: (message: InboundSms) => Promise<void>;
  /** Enqueues a job in its own transaction, committed when this resolves. */
  enqueue<P>(job: JobDefinition<P>, payload: P, options: EnqueueOptions): Promise<unknown>;
  log: (message: string) => void;
};

export type ProviderRegistry = {
  forCompany(companyId: number): Promise<CompanyProvider>;
  /**
   * Forgets a company's provider (its settings changed): a connected one (SMPP) is built again at
   * once, so its link binds now; any other on the company's next batch.
   */
  invalidate(companyId: number): void;
  close(): Promise<void>;
};

/** The registry a worker runs: it also keeps its companies' connections bound. */
export type WorkerProviderRegistry = ProviderRegistry & {
  /**
   * Builds the provider of every company on a connected provider (SMPP), so their links bind
   * without waiting for a send, and looks again every ttl: a company another process moved to SMPP
   * binds, one moved away (or whose settings changed) is rebuilt.
   */
  keepLinksBound(): Promise<void>;
};

export type ProviderRegistryOptions = {
  db: Database;
  queue: JobQueue;
  config: Config;
  encryptionKey: Buffer;
  /** The base URL simulated delivery reports go to. */
  callbackBase: () => string;
  onDeliveryReport: (companyId: number, update: DeliveryUpdate) => Promise<void>;
  /** Handset messages of connection-based providers; absent: acknowledged and not stored. */
  onInboundMessage?: (companyId: number, message: InboundSms) => Promise<void>;
  log?: (message: string) => void;
  /** Settings per company (default: the company's stored provider settings, migration 0007). */
  loadSettings?: (trx: Executor, companyId: number) => Promise<CompanyProviderSettings>;
  /** Builds a provider from settings (tests pass their own providers here). */
  build?: (settings: CompanyProviderSettings, context: ProviderContext) => SmsProvider;
};

/** How long a built provider is reused before its settings are read again. */
const SETTINGS_TTL_MS = 60_000;

export function buildProvider(settings: CompanyProviderSettings, context: ProviderContext): SmsProvider {
  switch (settings.kind) {
    case 'simulator':
      return createSimulatorProvider(
        settings.simulator,
        {
          companyId: context.companyId,
          dlrUrl: context.dlrCallbackUrl,
          scheduleReports: (payload, options) =>
            context.enqueue(SIMULATOR_REPORT_JOB, payload, { ...options, group: String(payload.companyId) }),
        },
        context.log,
      );
    case 'africastalking':
      if (settings.unconfigured) return createUnconfiguredProvider(settings.kind, settings.unconfigured);
      return createAfricasTalkingProvider(settings.africastalking);
    case 'smpp': {
      if (settings.unconfigured) return createUnconfiguredProvider(settings.kind, settings.unconfigured);
      const provider = createSmppProvider(settings.smpp);
      provider.onDeliveryReport?.(context.onDeliveryReport);
      provider.onInboundMessage?.(context.onInboundMessage);
      return provider;
    }
  }
}

type Entry = {
  companyProvider: Promise<CompanyProvider>;
  signature: Promise<string>;
  checkAfter: number;
  /** Its provider holds a connection (known once its settings are read). */
  connected: boolean;
};

/**
 * A provider built once per company and reused (listmonk's messengers); its settings are read again
 * every ttl (another process may have changed them), and it is rebuilt only when they differ, so its
 * own state (the simulator's memory, an SMPP session) lives as long as its settings.
 */
export function createProviderRegistry(options: ProviderRegistryOptions): WorkerProviderRegistry {
  const cache = new Map<number, Entry>();
  const ttlMs = SETTINGS_TTL_MS;
  const log = options.log ?? (() => {});
  const loadSettings =
    options.loadSettings ??
    ((trx: Executor, companyId: number) =>
      loadProviderSettings(trx, companyId, options.encryptionKey).then((settings) =>
        toCompanyProviderSettings(settings, options.config.messaging),
      ));
  const build = options.build ?? buildProvider;

  const readSettings = (companyId: number) =>
    inTenantTransaction(options.db, companyScope(companyId), async (trx) => {
      const settings = await loadSettings(trx, companyId);
      const dlrToken = (await readCallbackTokens(trx, companyId, options.encryptionKey)).dlr;
      const dlrCallbackUrl = dlrToken
        ? callbackUrl(options.callbackBase(), 'dlr', companyId, dlrToken)
        : null;
      return { settings, dlrCallbackUrl, signature: JSON.stringify([settings, dlrCallbackUrl]) };
    });

  const open = (companyId: number, read: ReturnType<typeof readSettings>): Entry => {
    const entry = {
      signature: read.then((r) => r.signature),
      checkAfter: Date.now() + ttlMs,
      connected: false,
    } as Entry;
    entry.companyProvider = read.then(({ settings, dlrCallbackUrl }) => {
      entry.connected = CONNECTED_PROVIDER_KINDS.has(settings.kind);
      const provider = build(settings, {
        companyId,
        dlrCallbackUrl,
        onDeliveryReport: (update) => options.onDeliveryReport(companyId, update),
        onInboundMessage: async (message) => options.onInboundMessage?.(companyId, message),
        enqueue: (job, payload, enqueueOptions) =>
          options.queue.enqueue(options.db, job, payload, enqueueOptions),
        log,
      });
      return {
        provider,
        messagesPerSecond: settings.messagesPerSecond,
        batchSize: Math.max(1, Math.min(settings.batchSize, provider.maxBatchSize)),
      };
    });
    return entry;
  };

  const retire = (entry: Entry | undefined) => {
    // In-flight batches hold their own reference; close once they had time to finish.
    entry?.companyProvider.then(
      (old) => setTimeout(() => void old.provider.close().catch(() => {}), 30_000).unref(),
      () => {},
    );
  };

  const refresh = async (companyId: number, entry: Entry) => {
    const read = readSettings(companyId);
    const [before, after] = await Promise.all([entry.signature, read.then((r) => r.signature)]);
    if (cache.get(companyId) !== entry) return;
    if (before === after) {
      entry.checkAfter = Date.now() + ttlMs;
      return;
    }
    cache.set(companyId, open(companyId, read));
    retire(entry);
  };

  let closed = false;
  let linkTimer: NodeJS.Timeout | null = null;

  const openAndCache = (companyId: number, read: ReturnType<typeof readSettings>) => {
    const created = open(companyId, read);
    cache.set(companyId, created);
    created.companyProvider.catch(() => {
      if (cache.get(companyId) === created) cache.delete(companyId);
    });
    return created.companyProvider;
  };

  const bindLinks = async () => {
    if (closed) return;
    const listed = await inTenantTransaction(
      options.db,
      platformScope,
      listCompaniesOnConnectedProviders,
      null,
      {
        readOnly: true,
      },
    );
    // Those no longer listed but still holding a link: forCompany's refresh rebuilds them as they are now.
    const held = [...cache].filter(([, entry]) => entry.connected).map(([companyId]) => companyId);
    await Promise.all(
      [...new Set([...listed, ...held])].map((companyId) =>
        registry
          .forCompany(companyId)
          .catch((error) => log(`company ${companyId}: provider not built: ${error}`)),
      ),
    );
  };

  const registry: WorkerProviderRegistry = {
    forCompany(companyId) {
      const entry = cache.get(companyId);
      if (!entry) return openAndCache(companyId, readSettings(companyId));
      if (entry.checkAfter <= Date.now()) {
        entry.checkAfter = Date.now() + ttlMs;
        void refresh(companyId, entry).catch((error) => log(`provider settings refresh failed: ${error}`));
      }
      return entry.companyProvider;
    },
    invalidate(companyId) {
      retire(cache.get(companyId));
      cache.delete(companyId);
      if (closed) return;
      const read = readSettings(companyId);
      read.then(
        (settings) => {
          const wanted = CONNECTED_PROVIDER_KINDS.has(settings.settings.kind);
          if (wanted && !closed && !cache.has(companyId)) void openAndCache(companyId, read).catch(() => {});
        },
        (error) => log(`company ${companyId}: provider settings not read: ${error}`),
      );
    },
    async keepLinksBound() {
      if (linkTimer) return;
      linkTimer = setInterval(
        () => void bindLinks().catch((error) => log(`binding providers' links failed: ${error}`)),
        ttlMs,
      );
      linkTimer.unref();
      await bindLinks();
    },
    async close() {
      closed = true;
      if (linkTimer) clearInterval(linkTimer);
      linkTimer = null;
      const entries = [...cache.values()];
      cache.clear();
      await Promise.all(
        entries.map((entry) =>
          entry.companyProvider.then(
            (companyProvider) => companyProvider.provider.close(),
            () => {},
          ),
        ),
      );
    },
  };
  return registry;
}
