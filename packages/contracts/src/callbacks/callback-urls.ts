import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

export const CALLBACK_TYPES = ['subscription', 'dlr'] as const;
export type TCallbackType = (typeof CALLBACK_TYPES)[number];

export const ZCallbackUrls = z.object({
  companyId: z.number().int(),
  companyName: z.string(),
  subscriptionCallbackUrl: z.string().nullable(),
  dlrCallbackUrl: z.string().nullable(),
});
export type TCallbackUrls = z.infer<typeof ZCallbackUrls>;
export const ZCallbackUrlsResponse = successEnvelope(ZCallbackUrls);

export const CALLBACK_MESSAGES = {
  fetchFailed: 'Failed to fetch callback URLs',
  regenerateFailed: 'Failed to regenerate callback URLs',
  /** Beyond the spec: the new URLs are shown, and the provider needs them. */
  regenerated: 'Callback URLs regenerated. Paste the new URLs into your SMS provider’s dashboard.',
  notGenerated: 'Not generated',
  invalidCallback: 'Invalid callback URL',
} as const;
