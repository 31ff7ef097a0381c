import { z } from 'zod';

/** What a key may do; each names the API routes it opens (the server's routes declare their scope). */
export const API_KEY_SCOPES = ['messages:send', 'messages:read', 'subscribers:manage'] as const;
export type TApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const API_KEY_SCOPE_LABELS: Record<TApiKeyScope, string> = {
  'messages:send': 'Send messages',
  'messages:read': 'Read messages and reports',
  'subscribers:manage': 'Manage subscribers',
};

/**
 * A key reads `smsk_live_<8 characters>_<40 characters>`: the first part (its prefix) is stored and
 * shown so a person can tell keys apart; the whole key is stored only as its SHA-256.
 */
export const API_KEY_TOKEN_START = 'smsk_live_';
export const API_KEY_PATTERN = /^smsk_live_([A-Za-z0-9]{8})_([A-Za-z0-9]{40})$/;
export const API_KEY_NAME_MAX = 100;

export const ZApiKey = z.object({
  id: z.number().int(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(API_KEY_SCOPES)),
  createdAt: z.string(),
  createdByName: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type TApiKey = z.infer<typeof ZApiKey>;

export const API_KEY_MESSAGES = {
  nameRequired: 'Name is required',
  nameTooLong: `Name must be at most ${API_KEY_NAME_MAX} characters`,
  scopesRequired: 'Choose at least one scope',
  nameTaken: 'An active key already has this name',
  notFound: 'API key not found',
  invalidKey: 'Invalid API key',
  revokedKey: 'This API key has been revoked',
  /** A key on a route its scopes do not open, or on a console-only route. */
  scopeMissing: (scope: string) => `This API key does not have the "${scope}" scope`,
  consoleOnly: 'API keys cannot call this route; sign in to the console instead.',
  created: 'API key created',
  revoked: 'API key revoked',
  shownOnce: "Copy this key now. You won't see it again.",
  fetchFailed: 'Failed to load API keys',
} as const;

/** How the audit trail names who acted with a key. */
export const apiKeyActorName = (name: string) => `API key '${name}'`;
