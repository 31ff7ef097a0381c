import { z } from 'zod';

/** Page numbers beyond this are refused: deep OFFSET scans are what make lists slow. */
export const MAX_PAGE = 10_000;
export const MAX_PAGE_SIZE = 100;

/**
 * A whole number from 1 (to `max`) in a query or path parameter (coerced from its text), refused with
 * `message` whatever is wrong with it: the message names the parameter and what it takes.
 */
export const ZWholeNumber = (message: string, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: message })
    .int({ error: message })
    .min(1, { error: message })
    .max(max, { error: message });

export const PAGINATION_MESSAGES = {
  page: `page must be a whole number from 1 to ${MAX_PAGE.toLocaleString('en-US')}`,
  limit: `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`,
} as const;

export const ZPage = ZWholeNumber(PAGINATION_MESSAGES.page, MAX_PAGE).default(1);
export const ZPageSize = (fallback: number) =>
  ZWholeNumber(PAGINATION_MESSAGES.limit, MAX_PAGE_SIZE).default(fallback);

/** Empty query strings ("?status=") mean "no filter", as the console sends them. */
export const ZOptionalQueryText = z
  .string()
  .trim()
  .max(200)
  .optional()
  .transform((value) => (value ? value : undefined));

export function totalPages(totalItems: number, pageSize: number) {
  return Math.max(1, Math.ceil(totalItems / pageSize));
}

export const QUERY_ID_MESSAGES = {
  companyId: 'companyId must be a company id',
  serviceId: 'serviceId must be a service id',
} as const;

/**
 * An optional id filter in a query string (companyId, serviceId): empty means no filter, as the
 * console sends it; anything else that is not an id is refused with `message`.
 */
export const ZOptionalQueryId = (message: string) =>
  z
    .union([z.literal(''), ZWholeNumber(message)], { error: message })
    .optional()
    .transform((value) => (value ? value : undefined));
