import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { TEST_ENCRYPTION_KEY } from './test-app.ts';

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

export type SpawnedServer = {
  child: ChildProcess;
  /** Resolves with the API's URL, or 'worker', once the process says it is running. */
  ready: Promise<string>;
  alive: () => boolean;
  output: () => string;
  /** Resolves with how it ended (exit code or signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/**
 * `node src/main.ts --role <role>` on a database given by its two URLs, as a deployment starts it.
 * The fault suites kill and signal these processes; `stopAll` ends whatever is left.
 */
export function spawnServer(
  role: 'api' | 'worker' | 'both',
  database: { databaseUrl: string; databaseAppUrl: string },
  env: Record<string, string> = {},
): SpawnedServer {
  const child = spawn(process.execPath, [MAIN, '--role', role], {
    env: {
      ...process.env,
      DATABASE_URL: database.databaseUrl,
      DATABASE_APP_URL: database.databaseAppUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      JWT_SECRET: 'f'.repeat(48),
      SEED_DEMO: '0',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: '5',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(child);
  let output = '';
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      spawned.delete(child);
      resolve({ code, signal });
    }),
  );
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      const api = /SMS Console is running at (http:\/\/\S+)/.exec(line);
      if (api) resolve(api[1]);
      else if (line.includes('worker is running')) resolve('worker');
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`${role} process ended before it was ready (${signal ?? code}): ${output}`)),
    );
  });
  ready.catch(() => {});
  const alive = () => child.exitCode === null && child.signalCode === null;
  return { child, ready, alive, output: () => output, exited };
}

const spawned = new Set<ChildProcess>();

/** SIGKILLs every process spawnServer started that is still running (a test's afterAll). */
export async function stopAll() {
  await Promise.all(
    [...spawned].map(async (child) => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }),
  );
}

/** SIGKILL, and wait until the process is gone. */
export async function kill(server: SpawnedServer, signal: NodeJS.Signals = 'SIGKILL') {
  server.child.kill(signal);
  return server.exited;
}

/**
 * The simulator's ledger (SIMULATOR_LEDGER, one line per recipient key it saw): `A <key>` accepted,
 * `R <key>` offered again after it had accepted it (the worker never recorded the outcome).
 */
export async function readLedger(...files: string[]) {
  const accepted: string[] = [];
  const reoffered: string[] = [];
  for (const file of files) {
    for (const line of (await readFile(file, 'utf8').catch(() => '')).split('\n')) {
      if (line.startsWith('A ')) accepted.push(line.slice(2));
      else if (line.startsWith('R ')) reoffered.push(line.slice(2));
    }
  }
  const acceptedTwice = accepted.length - new Set(accepted).size;
  return { accepted, reoffered, acceptedTwice };
}
