import underPressure from '@fastify/under-pressure';
import { REQUEST_LIMIT_MESSAGES } from '@sms/contracts/common/request-limits';
import type { FastifyInstance } from 'fastify';
import { type Database, settingsOf } from '../db/database.ts';
import { AppError } from '../errors.ts';
import { BUSY_RETRY_AFTER_SECONDS } from './database-unavailable.ts';

/** Requests waiting for a connection, per connection of the pool, past which new requests are turned away. */
export const WAITING_PER_CONNECTION = 10;

/** The 503 of an overloaded process, in the API's envelope (plugins/error-handler.ts). */
export class ServerBusyError extends AppError {
  constructor() {
    super('unavailable', REQUEST_LIMIT_MESSAGES.serverBusy(BUSY_RETRY_AFTER_SECONDS), {
      headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) },
    });
  }
}

/**
 * @fastify/under-pressure: while the event loop lags or too many requests wait for a database
 * connection, a new request is answered 503 with Retry-After at once, not queued behind the rest.
 */
export async function registerLoadShedding(
  app: FastifyInstance,
  db: Database,
  options: { maxEventLoopDelayMs: number; healthCheckIntervalMs?: number },
) {
  const { pool } = settingsOf(db);
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    retryAfter: BUSY_RETRY_AFTER_SECONDS,
    customError: ServerBusyError,
    ...(pool && {
      healthCheck: async () => pool.waitingCount <= WAITING_PER_CONNECTION * (pool.options.max ?? 10),
      healthCheckInterval: options.healthCheckIntervalMs ?? 250,
    }),
  });
}
