import type { MessagingConfig } from '../../config.ts';
import type { AfricasTalkingConfig } from './africastalking.ts';
import { africasTalkingBaseUrl, type ProviderSettings } from './provider-settings.ts';
import type { SimulatorOptions } from './simulator.ts';
import type { SmppConfig } from './smpp.ts';

/** Hand-overs per second across every worker, and recipients per sendBatch call. */
type Pace = { messagesPerSecond: number; batchSize: number };

/**
 * What the registry builds a company's provider from: its kind, the pace the engine keeps, and
 * the adapter's own configuration. `unconfigured` names what is missing (an Africa's Talking key,
 * an SMPP host): the provider then holds every recipient back with that reason.
 */
export type CompanyProviderSettings =
  | (Pace & { kind: 'simulator'; simulator: SimulatorOptions })
  | (Pace & { kind: 'africastalking'; africastalking: AfricasTalkingConfig; unconfigured?: string })
  | (Pace & { kind: 'smpp'; smpp: SmppConfig; unconfigured?: string });

/** Per-batch submit_sm count the SMPP adapter takes by default (a few windows' worth). */
const SMPP_BATCH_PER_WINDOW = 10;

/** The company's stored settings (migration 0007) in the engine's terms; platform defaults fill gaps. */
export function toCompanyProviderSettings(
  settings: ProviderSettings,
  config: MessagingConfig,
): CompanyProviderSettings {
  switch (settings.kind) {
    case 'simulator': {
      const platform = config.simulator;
      return {
        kind: 'simulator',
        messagesPerSecond: settings.messagesPerSecond ?? platform.messagesPerSecond,
        batchSize: platform.batchSize,
        simulator: {
          rejectRate: settings.acceptanceRate === null ? platform.rejectRate : 1 - settings.acceptanceRate,
          retryRate: platform.retryRate,
          failRate: settings.failureRate ?? platform.failRate,
          deliveryDelayMs: settings.deliveryDelayMs ?? platform.deliveryDelayMs,
          dlrConcurrency: platform.dlrConcurrency,
          maxBatchSize: platform.batchSize,
          ledgerFile: platform.ledgerFile,
        },
      };
    }
    case 'africastalking': {
      const missing = [!settings.username && 'API Username', !settings.apiKey && 'API Key'].filter(Boolean);
      return {
        kind: 'africastalking',
        messagesPerSecond: settings.messagesPerSecond,
        batchSize: settings.batchSize,
        africastalking: {
          ...settings,
          baseUrl: africasTalkingBaseUrl(settings),
          username: settings.username ?? '',
          apiKey: settings.apiKey ?? '',
          allowedPrivateHosts: config.providerAllowedPrivateHosts,
        },
        ...(missing.length > 0 && {
          unconfigured: `Africa's Talking is not configured for this company: ${missing.join(' and ')} missing or unreadable`,
        }),
      };
    }
    case 'smpp': {
      const missing = [!settings.host && 'host', !settings.systemId && 'system ID'].filter(Boolean);
      const batchSize = settings.window * SMPP_BATCH_PER_WINDOW;
      return {
        kind: 'smpp',
        messagesPerSecond: settings.messagesPerSecond,
        batchSize,
        smpp: {
          ...settings,
          password: settings.password ?? '',
          systemType: settings.systemType ?? undefined,
          batchSize,
          allowedPrivateHosts: config.providerAllowedPrivateHosts,
        },
        ...(missing.length > 0 && {
          unconfigured: `SMPP is not configured for this company: ${missing.join(' and ')} missing`,
        }),
      };
    }
  }
}
