import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { appRoleUrl } from '../../../apps/server/src/db/app-role.ts';

const MAIN = path.resolve(import.meta.dirname, '../../../apps/server/src/main.ts');

export type ServerProcess = {
  /** http://127.0.0.1:<port> for API processes; undefined for workers. */
  url: string | undefined;
  pid: number;
  /** Peak resident memory so far (VmHWM), in MiB. */
  peakRssMiB(): number;
  /** The error and fatal lines it has logged so far (pino levels 50 and 60), and whether it has exited. */
  problems(): string[];
  stop(): Promise<void>;
};

export type ServerProcessOptions = {
  databaseUrl: string;
  role: 'api' | 'worker' | 'both';
  /** Extra environment (SIMULATOR_*, WORKER_LANES, ...). */
  env?: Record<string, string>;
};

const BASE_ENV: Record<string, string> = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  SEED_DEMO: '0',
  HOST: '127.0.0.1',
  JWT_SECRET: 'bench-jwt-secret-bench-jwt-secret-0123456789',
  ENCRYPTION_KEY: 'b'.repeat(64),
  // The bench is a few clients sending as fast as they can: measure the work, not the limiter.
  RATE_LIMIT_PER_MINUTE: '100000000',
  RATE_LIMIT_AUTH_PER_MINUTE: '100000000',
  RATE_LIMIT_VALIDATE_PER_MINUTE: '100000000',
  RATE_LIMIT_CALLBACKS_PER_SECOND: '100000000',
};

/**
 * sms_app's password for this bench run (the role is the cluster's): every server process logs in
 * with it, and gives it to sms_app as it starts, each the same.
 */
const APP_PASSWORD = randomBytes(18).toString('base64url');

/** Every server process started and not yet stopped, so a scenario that throws leaves none behind. */
const running = new Set<ServerProcess>();

/** Stops whatever server processes are still running (run.ts, after each scenario). */
export async function stopServerProcesses() {
  await Promise.all([...running].map((server) => server.stop()));
}

/** The ENCRYPTION_KEY every bench process runs with (fixtures that encrypt need it too). */
export const BENCH_ENCRYPTION_KEY = Buffer.from(BASE_ENV.ENCRYPTION_KEY, 'hex');

/**
 * The real server (`node apps/server/src/main.ts --role ...`) in production mode as a child
 * process on the given database, listening on a free port. Resolves once it says it is running.
 */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const env = {
    ...process.env,
    ...BASE_ENV,
    DATABASE_URL: options.databaseUrl,
    DATABASE_APP_URL: appRoleUrl(options.databaseUrl, APP_PASSWORD),
    PORT: '0',
    ...options.env,
  };
  const child: ChildProcess = spawn(process.execPath, [MAIN, '--role', options.role], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const problems: string[] = [];
  let pending = '';
  const watchForErrors = (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines)
      if (/"level":(50|60)\b/.test(line) && problems.length < 100) problems.push(line);
  };
  child.stdout?.on('data', watchForErrors);
  child.stderr?.on('data', watchForErrors);
  let stopAsked = false;
  child.once('exit', (code, signal) => {
    if (!stopAsked) problems.push(`exited unasked (${signal ?? `code ${code}`})`);
  });
  const url = await new Promise<string | undefined>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const port = /SMS Console is running at http:\/\/localhost:(\d+)/.exec(output)?.[1];
      if (options.role !== 'worker' && port) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
      if (options.role === 'worker' && /worker is running/.test(output)) {
        clearTimeout(timer);
        resolve(undefined);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 20_000) output = output.slice(-10_000);
    });
    // 'close', not 'exit': a child's last words can still be in its pipes when it has exited.
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready:\n${output}`));
    });
  });
  const pid = child.pid ?? 0;
  const server: ServerProcess = {
    url,
    pid,
    peakRssMiB() {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
        return kb / 1024;
      } catch {
        return 0;
      }
    },
    problems: () => [...problems],
    stop: () =>
      new Promise<void>((resolve) => {
        stopAsked = true;
        running.delete(server);
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
  running.add(server);
  return server;
}
