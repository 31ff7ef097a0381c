import { z } from 'zod';
import { ZWholeNumber } from './pagination.ts';

/** Every success answer is `{ success: true, data }`; this wraps a data schema in it. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

export const ZApiError = z.object({
  success: z.literal(false),
  message: z.string(),
  error: z.string(),
  details: z.array(z.string()).optional(),
});
export type TApiError = z.infer<typeof ZApiError>;

export const ERROR_CODES = [
  'bad_request',
  'validation_failed',
  'unauthorized',
  'token_expired',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'unavailable',
  'internal',
] as const;
export type TErrorCode = (typeof ERROR_CODES)[number];

export const ID_PARAM_MESSAGE = 'id must be a whole number of 1 or more';
export const ZIdParam = z.object({ id: ZWholeNumber(ID_PARAM_MESSAGE) });
