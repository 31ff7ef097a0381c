import type { TErrorCode } from '@sms/contracts/common/envelope';

const STATUS_BY_CODE: Record<TErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  token_expired: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/** The one error type of the API: services throw it, the error handler maps it to status + envelope. */
export class AppError extends Error {
  readonly code: TErrorCode;
  readonly details: string[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: TErrorCode,
    message: string,
    options: { details?: string[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status() {
    return STATUS_BY_CODE[this.code];
  }
}

export const badRequest = (message: string, details?: string[]) =>
  new AppError('bad_request', message, { details });
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);

const UNIQUE_VIOLATION = '23505';

/**
 * Runs work whose pre-checks give the clear message; when two requests race past them, the
 * unique index decides and its error becomes the same 409.
 */
export async function conflictOnDuplicate<T>(work: Promise<T>, message: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw conflict(message);
    throw error;
  }
}
