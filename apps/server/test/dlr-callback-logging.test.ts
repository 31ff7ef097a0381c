import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../src/app.ts';
import { regenerateCallbackTokens } from '../src/modules/callbacks/callback-tokens.ts';
import { createCompany } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The delivery-report callback is the busiest route (thousands of reports a second): below debug
 * it writes no access lines and shares one logger, yet its warnings and errors are still written.
 */
let ctx: TestContext;
const lines: Record<'info' | 'debug', string[]> = { info: [], debug: [] };
const apps: Partial<Record<'info' | 'debug', App>> = {};

const appAt = async (level: 'info' | 'debug') => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines[level].push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp(ctx.deps, { logger: { level, stream }, serveConsole: false });
  await app.ready();
  apps[level] = app;
  return app;
};

const report = (app: App, url = `/api/v1/callbacks/dlr/1/${'x'.repeat(43)}`) =>
  app.inject({
    method: 'POST',
    url,
    payload: 'id=ATPid_log_1&status=Success',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
const dlrLines = (level: 'info' | 'debug') => lines[level].filter((line) => line.includes('dlr'));

beforeAll(async () => {
  ctx = await createTestContext();
  await appAt('info');
  await appAt('debug');
});
afterAll(async () => {
  await apps.info?.close();
  await apps.debug?.close();
  await ctx.close();
});

describe('the DLR callback’s logging', () => {
  it('at info, writes no access lines for a report, while other routes keep theirs', async () => {
    expect((await report(apps.info!)).statusCode).toBe(404);
    expect(dlrLines('info')).toEqual([]);
    await apps.info!.inject({ method: 'GET', url: '/api/v1/health' });
    expect(
      lines.info.some((line) => line.includes('incoming request') && line.includes('/api/v1/health')),
    ).toBe(true);
  });

  it('at debug, logs each report’s request with its own request id', async () => {
    await report(apps.debug!);
    await report(apps.debug!);
    const incoming = dlrLines('debug')
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'incoming request');
    expect(incoming).toHaveLength(2);
    expect(new Set(incoming.map((entry) => entry.reqId)).size).toBe(2);
  });

  it('at info, still writes an error of the route', async () => {
    // An intake that no longer takes reports fails the request (its URL is right): the route's error is logged.
    const company = await createCompany(ctx.ownerDb);
    const { dlr } = await regenerateCallbackTokens(ctx.ownerDb, company.id, ctx.deps.keys.encryption);
    await ctx.deps.messaging.deliveryReports.close();
    lines.info.length = 0;
    expect((await report(apps.info!, `/api/v1/callbacks/dlr/${company.id}/${dlr}`)).statusCode).toBe(500);
    const errors = lines.info.map((line) => JSON.parse(line)).filter((entry) => entry.level >= 50);
    expect(errors).toEqual([expect.objectContaining({ route: 'dlr callback', msg: 'unhandled error' })]);
  });
});
