import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { lazyChildLogger } from '../src/lib/lazy-request-logger.ts';

function loggerAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  // Fastify's own pino, as the app's logger is.
  const logger: FastifyBaseLogger = Fastify({ logger: { level, stream } }).log;
  return { logger, lines };
}

const requestLoggerOf = (logger: FastifyBaseLogger, options: object = {}) =>
  lazyChildLogger.call(null as never, logger, { reqId: 'req-7' }, options, {} as never);

describe('a request logger made when first used', () => {
  it('writes nothing and makes no child for lines below the level', async () => {
    const { logger, lines } = loggerAt('warn');
    const child = vi.spyOn(logger, 'child');
    const log = requestLoggerOf(logger);
    log.info({ req: 'x' }, 'incoming request');
    log.debug('detail');
    expect(child).not.toHaveBeenCalled();
    expect(log.level).toBe('warn');
    expect(lines).toEqual([]);
  });

  it('writes the lines the eager child would, with the request id', async () => {
    const { logger, lines } = loggerAt('info');
    const log = requestLoggerOf(logger);
    log.info({ companyId: 3 }, 'incoming request');
    log.warn('busy');
    log.error({ err: new Error('boom') }, 'unhandled error');
    expect(lines).toMatchObject([
      { level: 30, reqId: 'req-7', companyId: 3, msg: 'incoming request' },
      { level: 40, reqId: 'req-7', msg: 'busy' },
      { level: 50, reqId: 'req-7', msg: 'unhandled error', err: { message: 'boom' } },
    ]);
    log.child({ part: 'export' }).warn('child line');
    expect(lines[3]).toMatchObject({ reqId: 'req-7', part: 'export', msg: 'child line' });
  });

  it("keeps a route's own level", async () => {
    const { logger, lines } = loggerAt('warn');
    const log = requestLoggerOf(logger, { level: 'debug' });
    log.debug('detail');
    expect(log.level).toBe('debug');
    expect(lines).toMatchObject([{ level: 20, reqId: 'req-7', msg: 'detail' }]);
  });
});
