import { z } from 'zod';

/** Page numbers beyond this are refused: deep OFFSET scans are what make lists slow. */
export const MAX_PAGE = 10_000;
export const MAX_PAGE_SIZE = 100;

/** A whole number from 1 to `max` (a query parameter, coerced), refused with `message` whatever is wrong with it. */
const wholeNumberUpTo = (max: number, message: string) =>
  z.coerce
    .number({ error: message })
    .int({ error: message })
    .min(1, { error: message })
    .max(max, { error: message });

export const PAGINATION_MESSAGES = {
  page: `page must be a whole number from 1 to ${MAX_PAGE.toLocaleString('en-US')}`,
  limit: `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`,
} as const;

export const ZPage = wholeNumberUpTo(MAX_PAGE, PAGINATION_MESSAGES.page).default(1);
export const ZPageSize = (fallback: number) =>
  wholeNumberUpTo(MAX_PAGE_SIZE, PAGINATION_MESSAGES.limit).default(fallback);

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

/** An optional record id in a query string (companyId, serviceId), refused with `message` when it is not one. */
export const ZOptionalQueryId = (message: string) =>
  z.coerce.number({ error: message }).int({ error: message }).positive({ error: message }).optional();
