import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_FILE } from '../src/db/embedded.ts';
import { createTestContext, TEST_ENCRYPTION_KEY, type TestContext } from './support/test-app.ts';

// A demo install (the embedded database, whose demo sign-ins share one published password) is
// reachable from this machine only unless HOST says otherwise; with DATABASE_URL the server
// listens on every interface, as a container must. The start-up banner says which.

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
/** This machine's first address other than loopback, if it has one. */
const NETWORK_ADDRESS = Object.values(os.networkInterfaces())
  .flat()
  .find((address) => address && !address.internal && address.family === 'IPv4')?.address;

let ctx: TestContext;
let dataDir: string;
const running: ChildProcess[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'sms-listen-'));
});

afterAll(async () => {
  await Promise.all(running.map(stop));
  await ctx?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** `node src/main.ts` with the given environment (and none of the test runner's database or HOST). */
function startMain(env: Record<string, string>) {
  const { DATABASE_URL: _url, DATABASE_APP_URL: _appUrl, HOST: _host, ...inherited } = process.env;
  const child = spawn(process.execPath, [MAIN], {
    env: { ...inherited, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  return new Promise<{ child: ChildProcess; port: number; output: () => string }>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const port = /SMS Console is running at http:\/\/localhost:(\d+)/.exec(output)?.[1];
      if (port && /Press Ctrl-C to stop/.test(output))
        resolve({ child, port: Number(port), output: () => output });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) =>
      reject(new Error(`main.ts ended (${code}) before it was running: ${output}`)),
    );
  });
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** 'connected', or the error code of the attempt. */
function connectTo(host: string, port: number) {
  return new Promise<string>((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(5000);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('where the server listens', () => {
  it('with the embedded database and the demo sign-ins: 127.0.0.1 only, unless HOST is set', {
    timeout: 180_000,
  }, async () => {
    const server = await startMain({ DATA_DIR: dataDir });
    expect(server.output()).toContain('Demo sign-ins (password');
    expect(server.output()).toContain('Listening on 127.0.0.1: this machine only');
    expect(await connectTo('127.0.0.1', server.port)).toBe('connected');
    if (NETWORK_ADDRESS) expect(await connectTo(NETWORK_ADDRESS, server.port)).toBe('ECONNREFUSED');
    // The embedded superuser's password is the data folder's own, never `postgres`.
    expect(statSync(path.join(dataDir, PASSWORD_FILE)).mode & 0o777).toBe(0o600);
    await stop(server.child);

    const exposed = await startMain({ DATA_DIR: dataDir, HOST: '0.0.0.0' });
    expect(exposed.output()).toContain('Listening on 0.0.0.0: every network interface');
    if (NETWORK_ADDRESS) expect(await connectTo(NETWORK_ADDRESS, exposed.port)).toBe('connected');
    await stop(exposed.child);
  });

  it('with DATABASE_URL: every interface by default, as a container needs', { timeout: 60_000 }, async () => {
    const server = await startMain({
      DATABASE_URL: ctx.config.databaseUrl!,
      DATABASE_APP_URL: ctx.config.databaseAppUrl!,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      JWT_SECRET: 'l'.repeat(48),
      SEED_DEMO: '0',
      DATABASE_POOL_SIZE: '2',
    });
    expect(server.output()).toContain('Listening on 0.0.0.0: every network interface');
    if (NETWORK_ADDRESS) expect(await connectTo(NETWORK_ADDRESS, server.port)).toBe('connected');
    await stop(server.child);
  });
});
