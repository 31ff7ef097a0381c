import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { API_KEY_MESSAGES, API_KEY_NAME_MAX, API_KEY_SCOPES, ZApiKey } from './api-key.ts';

export const ZCreateApiKeyRequest = z.object({
  name: z
    .string({ error: API_KEY_MESSAGES.nameRequired })
    .trim()
    .min(1, API_KEY_MESSAGES.nameRequired)
    .max(API_KEY_NAME_MAX, API_KEY_MESSAGES.nameTooLong),
  scopes: z
    .array(z.enum(API_KEY_SCOPES), { error: API_KEY_MESSAGES.scopesRequired })
    .min(1, API_KEY_MESSAGES.scopesRequired)
    .transform((scopes) => [...new Set(scopes)]),
});
export type TCreateApiKeyRequest = z.input<typeof ZCreateApiKeyRequest>;

/** `key` is the whole secret, in this answer only. */
export const ZCreateApiKeyResponse = successEnvelope(z.object({ apiKey: ZApiKey, key: z.string() }));
export type TCreateApiKeyResponse = z.infer<typeof ZCreateApiKeyResponse>;
