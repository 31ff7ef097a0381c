import { z } from 'zod';
import { isRoleAllowed, ROUTE_ROLES } from '../auth/roles.ts';
import { successEnvelope } from '../common/envelope.ts';
import { MESSAGE_DIRECTIONS, MESSAGE_STATUSES } from '../messages/message.ts';
import { SERVICE_STATUSES } from '../services/service.ts';

export const SEARCH_MIN_LENGTH = 2;
export const SEARCH_MAX_LENGTH = 100;
/** Message content is matched by trigrams: shorter text would match nearly every message. */
export const SEARCH_MESSAGE_MIN_LENGTH = 3;
export const SEARCH_RESULTS_PER_KIND = 5;
export const SEARCH_DEBOUNCE_MS = 250;

export const SEARCH_KINDS = ['services', 'subscribers', 'messages', 'companies', 'users'] as const;
export type TSearchKind = (typeof SEARCH_KINDS)[number];

/** A role finds only what it may open: the same lists as the routes. */
export const SEARCH_KIND_ROLES = {
  services: ROUTE_ROLES.services,
  subscribers: ROUTE_ROLES.subscribers,
  messages: ROUTE_ROLES.messages,
  companies: ROUTE_ROLES.admin,
  users: ROUTE_ROLES.admin,
} as const;

export function searchKindsFor(role: string | null | undefined): TSearchKind[] {
  return SEARCH_KINDS.filter((kind) => isRoleAllowed(role, SEARCH_KIND_ROLES[kind]));
}

export const SEARCH_KIND_LABELS: Record<TSearchKind, string> = {
  services: 'Services',
  subscribers: 'Subscribers',
  messages: 'Messages',
  companies: 'Companies',
  users: 'Users',
};

/** What the box finds, by kind, in the words of its hint. */
const SEARCH_KIND_NOUNS: Record<TSearchKind, string> = {
  services: 'services',
  subscribers: 'subscribers by number',
  messages: 'messages',
  companies: 'companies',
  users: 'users',
};

/** The hint a role's search box shows at once: what it can find, or that it finds nothing. */
export function searchHintFor(kinds: readonly TSearchKind[]) {
  if (kinds.length === 0) return SEARCH_TEXTS.unavailable;
  const nouns = kinds.map((kind) => SEARCH_KIND_NOUNS[kind]);
  const list = nouns.length === 1 ? nouns[0] : `${nouns.slice(0, -1).join(', ')} and ${nouns.at(-1)}`;
  return `Finds ${list}`;
}

export const SEARCH_TEXTS = {
  placeholder: 'Search...',
  searching: 'Searching...',
  noResults: (q: string) => `No results for "${q}"`,
  typeMore: `Type at least ${SEARCH_MIN_LENGTH} characters`,
  failed: 'Search failed. Please try again.',
  unavailable:
    'Search is not available for your role: it finds services, subscribers and messages, which your role cannot open.',
  queryTooShort: `q must be at least ${SEARCH_MIN_LENGTH} characters`,
  queryTooLong: `q must be ${SEARCH_MAX_LENGTH} characters or less`,
} as const;

export const ZGlobalSearchQuery = z.object({
  q: z
    .string({ error: SEARCH_TEXTS.queryTooShort })
    .trim()
    .min(SEARCH_MIN_LENGTH, SEARCH_TEXTS.queryTooShort)
    .max(SEARCH_MAX_LENGTH, SEARCH_TEXTS.queryTooLong),
});
export type TGlobalSearchQuery = z.input<typeof ZGlobalSearchQuery>;

export const ZServiceHit = z.object({
  id: z.number().int(),
  name: z.string(),
  shortcode: z.string(),
  keyword: z.string(),
  status: z.enum(SERVICE_STATUSES),
  companyName: z.string(),
});
export type TServiceHit = z.infer<typeof ZServiceHit>;

export const ZSubscriberHit = z.object({
  id: z.number().int(),
  msisdn: z.string(),
  status: z.string(),
  companyName: z.string(),
});
export type TSubscriberHit = z.infer<typeof ZSubscriberHit>;

export const ZMessageHit = z.object({
  id: z.number().int(),
  /** The content, cut around the match. */
  snippet: z.string(),
  direction: z.enum(MESSAGE_DIRECTIONS),
  status: z.enum(MESSAGE_STATUSES),
  createdAt: z.string(),
  companyName: z.string(),
});
export type TMessageHit = z.infer<typeof ZMessageHit>;

export const ZCompanyHit = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
});
export type TCompanyHit = z.infer<typeof ZCompanyHit>;

export const ZUserHit = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  role: z.string(),
  companyName: z.string().nullable(),
});
export type TUserHit = z.infer<typeof ZUserHit>;

/** Newest first within each kind, at most SEARCH_RESULTS_PER_KIND each; a kind the role may not open is absent. */
export const ZGlobalSearchData = z.object({
  q: z.string(),
  kinds: z.array(z.enum(SEARCH_KINDS)),
  services: z.array(ZServiceHit),
  subscribers: z.array(ZSubscriberHit),
  messages: z.array(ZMessageHit),
  /** system_admin only. */
  companies: z.array(ZCompanyHit),
  /** system_admin only. */
  users: z.array(ZUserHit),
});
export type TGlobalSearchData = z.infer<typeof ZGlobalSearchData>;
export const ZGlobalSearchResponse = successEnvelope(ZGlobalSearchData);

/** Where choosing a result goes: each page reads its own search parameter and opens the item. */
export const SEARCH_TARGETS = {
  services: (hit: Pick<TServiceHit, 'id'>) => `/services?edit=${hit.id}`,
  subscribers: (hit: Pick<TSubscriberHit, 'msisdn'>) =>
    `/subscribers?search=${encodeURIComponent(hit.msisdn)}`,
  messages: (hit: Pick<TMessageHit, 'id'>) => `/messages?open=${hit.id}`,
  // The Admin Panel's table narrowed to the match, with its form open.
  companies: (hit: Pick<TCompanyHit, 'id' | 'name'>) =>
    `/admin?search=${encodeURIComponent(hit.name)}&edit=${hit.id}`,
  users: (hit: Pick<TUserHit, 'id' | 'email'>) =>
    `/admin?tab=users&search=${encodeURIComponent(hit.email)}&edit=${hit.id}`,
} as const;

/** The search parameters the pages read (SEARCH_TARGETS writes them). */
export const OPEN_PARAMS = {
  serviceEdit: 'edit',
  subscriberSearch: 'search',
  messageOpen: 'open',
  adminEdit: 'edit',
} as const;
