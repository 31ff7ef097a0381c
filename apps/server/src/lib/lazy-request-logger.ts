import type { FastifyBaseLogger } from 'fastify';
import type { FastifyChildLoggerFactory } from 'fastify/types/logger.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];
type LogCall = (...args: unknown[]) => void;

/**
 * Fastify gives every request a child of the app's logger (bound to its request id). Pino builds a
 * child eagerly (its bindings serialised, its serializers and redaction set up): about 8 µs of a
 * console read's API CPU in a profile, for a logger most requests never write to at `warn`. This one
 * makes the same child the first time a line at an enabled level is written, or when asked for its
 * own child, so every line a request writes is the one the eager child would have written.
 */
class LazyRequestLogger {
  #parent: FastifyBaseLogger;
  #bindings: Record<string, unknown>;
  #options: object;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Record<string, unknown>, options: object) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger() {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  get level() {
    return this.#child?.level ?? (this.#options as { level?: string }).level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  child(bindings: Record<string, unknown>, options?: object) {
    return this.#logger.child(bindings, options);
  }

  silent() {}

  isLevelEnabled(level: string) {
    const logger = (this.#child ?? this.#parent) as Partial<{ isLevelEnabled: (level: string) => boolean }>;
    return logger.isLevelEnabled ? logger.isLevelEnabled(level) : true;
  }

  static {
    for (const level of LEVELS) {
      (LazyRequestLogger.prototype as unknown as Record<Level, LogCall>)[level] = function (
        this: LazyRequestLogger,
        ...args: unknown[]
      ) {
        if (!this.isLevelEnabled(level)) return;
        (this.#logger[level] as LogCall)(...args);
      };
    }
  }
}

/**
 * Fastify's `childLoggerFactory`: a request logger made only when used. A request's own log level
 * (a route's `logLevel`) makes its child at once, as before, since the parent's level no longer says
 * what the request writes.
 */
export const lazyChildLogger: FastifyChildLoggerFactory = (logger, bindings, options) => {
  if ((options as { level?: string }).level) return logger.child(bindings, options);
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
};
