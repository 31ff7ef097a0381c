import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import { AppError } from '../errors.ts';

/** Seconds a client is asked to wait while the database cannot be reached (a restart, a failover). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

// Losing or not reaching the server: the socket's errors, PostgreSQL's admin_shutdown,
// crash_shutdown and cannot_connect_now, any connection_exception (class 08), and pg's own words
// for a connection that ended under it.
const UNREACHABLE_SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const SERVER_GOING_AWAY = new Set(['57P01', '57P02', '57P03']);
const CONNECTION_LOST =
  /^(Connection terminated|Client has encountered a connection error and is not queryable)/;

/** Whether the error says the database is unreachable or the connection was lost, not that a statement failed. */
export function isDatabaseUnreachable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (
    typeof code === 'string' &&
    (UNREACHABLE_SOCKET.has(code) || SERVER_GOING_AWAY.has(code) || code.startsWith('08'))
  )
    return true;
  if (typeof message === 'string' && CONNECTION_LOST.test(message)) return true;
  // Node tries every address of a host name: refused by all of them is an AggregateError.
  if (Array.isArray(errors) && errors.some(isDatabaseUnreachable)) return true;
  return cause !== undefined && cause !== error && isDatabaseUnreachable(cause);
}

/** The 503 for a database that cannot be reached: a generic message, never the driver's words. */
export function databaseUnavailable(cause: unknown) {
  const error = new AppError('unavailable', REQUEST_LIMIT_MESSAGES.serviceUnavailable, {
    headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });
  error.cause = cause;
  return error;
}

/** Seconds a client is asked to wait when the database was too slow or too busy for its request. */
export const BUSY_RETRY_AFTER_SECONDS = 1;
export const TIMED_OUT_RETRY_AFTER_SECONDS = 5;

// pg-pool's two ways of giving up within connectionTimeoutMillis (its errors carry no code): every
// connection stayed checked out, or a new one did not finish opening. PostgreSQL's own refusal of
// one more connection is the same condition one step further.
const POOL_WAIT_EXPIRED =
  /^(timeout exceeded when trying to connect|Connection terminated due to connection timeout)$/;
const TOO_MANY_CONNECTIONS = '53300';
/** query_canceled: the statement ran past statement_timeout (db/tenant-scope.ts sets it). */
const STATEMENT_TIMED_OUT = '57014';

/**
 * The 503 for a request the database was too busy for: no connection came free in time, or its
 * statement ran past the statement timeout. Load, not a fault: a generic message and Retry-After.
 */
export function databaseBusyError(error: unknown): AppError | undefined {
  const { message, code } = (error ?? {}) as { message?: unknown; code?: unknown };
  let seconds: number;
  if (code === TOO_MANY_CONNECTIONS || (typeof message === 'string' && POOL_WAIT_EXPIRED.test(message)))
    seconds = BUSY_RETRY_AFTER_SECONDS;
  else if (code === STATEMENT_TIMED_OUT) seconds = TIMED_OUT_RETRY_AFTER_SECONDS;
  else return undefined;
  const busy = new AppError('unavailable', REQUEST_LIMIT_MESSAGES.serverBusy(seconds), {
    headers: { 'retry-after': String(seconds) },
  });
  busy.cause = error;
  return busy;
}
