import type { MessagingConfig } from '../../config.ts';
import type { Executor } from '../../db/database.ts';
import type { SimulatorOptions } from './simulator.ts';

/**
 * A company's provider: its kind, how fast and in what batches it may be fed, and its own
 * settings. Until per-company provider settings land (migration 0007, provider-settings.ts), every
 * company uses the simulator with the process's SIMULATOR_* settings; that loader replaces this one.
 */
export type CompanyProviderSettings = {
  kind: 'simulator';
  messagesPerSecond: number;
  batchSize: number;
  simulator: SimulatorOptions;
};

export async function loadCompanyProviderSettings(
  _trx: Executor,
  _companyId: number,
  config: MessagingConfig,
): Promise<CompanyProviderSettings> {
  const { simulator } = config;
  return {
    kind: 'simulator',
    messagesPerSecond: simulator.messagesPerSecond,
    batchSize: simulator.batchSize,
    simulator: {
      rejectRate: simulator.rejectRate,
      retryRate: simulator.retryRate,
      failRate: simulator.failRate,
      deliveryDelayMs: simulator.deliveryDelayMs,
      dlrConcurrency: simulator.dlrConcurrency,
      maxBatchSize: simulator.batchSize,
      ledgerFile: simulator.ledgerFile,
    },
  };
}
