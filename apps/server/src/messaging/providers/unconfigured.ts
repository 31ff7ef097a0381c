import { retryEach, type SmsProvider } from './provider.ts';

/**
 * Stands in for a provider whose settings are incomplete (no Africa's Talking key, no SMPP host):
 * the company's sends are held ('retry' for the account) with a reason the operator can act on, so
 * nothing is lost and nothing is sent with half a configuration.
 */
export function createUnconfiguredProvider(kind: SmsProvider['kind'], reason: string): SmsProvider {
  return {
    kind,
    maxBatchSize: 1000,
    sendBatch: async (messages) => retryEach(messages, reason, 'account'),
    async close() {},
  };
}
