import { z } from 'zod';

/** Page numbers beyond this are refused: deep OFFSET scans are what make lists slow. */
export const MAX_PAGE = 10_000;
export const MAX_PAGE_SIZE = 100;

export const ZPage = z.coerce.number().int().min(1).max(MAX_PAGE).default(1);
export const ZPageSize = (fallback: number) =>
  z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(fallback);

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
