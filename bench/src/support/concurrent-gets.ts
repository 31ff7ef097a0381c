import http from 'node:http';
import { percentileOf } from './percentile.ts';
import { cpuSecondsOf } from './process-cpu.ts';

export type ConcurrentGetsResult = {
  requests: number;
  /** Answers other than 2xx (and requests that failed outright), warm-up included. */
  failures: number;
  firstFailure: string | null;
  p50: number;
  p95: number;
  p99: number;
  perSecond: number;
  /** CPU milliseconds per request of the processes `cpuPids` named (server and database backends). */
  cpuMsPerRequest: number[];
};

/**
 * `clients` keep-alive connections each sending GETs one after another for `seconds`, every
 * latency recorded (so the percentiles are exact, not a histogram's buckets). `pathOf(i)` gives
 * the i-th request's path, so a read can vary (a different number searched each time).
 */
export async function driveConcurrentGets(options: {
  baseUrl: string;
  token: string;
  clients: number;
  seconds: number;
  warmUpSeconds: number;
  pathOf: (i: number) => string;
  /** Groups of processes whose CPU time to account per request, asked for after the warm-up. */
  cpuPids?: () => Promise<number[][]>;
}): Promise<ConcurrentGetsResult> {
  const url = new URL(options.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.clients });
  const headers = { authorization: `Bearer ${options.token}`, accept: 'application/json' };
  let next = 0;
  let failures = 0;
  let firstFailure: string | null = null;

  const get = (path: string) =>
    new Promise<number>((resolve) => {
      const request = http.get({ host: url.hostname, port: url.port, path, agent, headers }, (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => {
          if (status >= 300) chunks.push(chunk);
        });
        response.on('end', () => {
          if (status < 200 || status >= 300) {
            failures++;
            firstFailure ??= `${path}: ${status} ${Buffer.concat(chunks).toString().slice(0, 300)}`;
          }
          resolve(status);
        });
      });
      request.on('error', (error) => {
        failures++;
        firstFailure ??= `${path}: ${error.message}`;
        resolve(0);
      });
    });

  const run = async (seconds: number, samples: number[] | null) => {
    const until = performance.now() + seconds * 1000;
    const client = async () => {
      while (performance.now() < until) {
        const path = options.pathOf(next++);
        const started = performance.now();
        await get(path);
        samples?.push(performance.now() - started);
      }
    };
    await Promise.all(Array.from({ length: options.clients }, client));
  };

  try {
    await run(options.warmUpSeconds, null);
    const groups = (await options.cpuPids?.()) ?? [];
    const cpuBefore = groups.map(cpuSecondsOf);
    const samples: number[] = [];
    const started = performance.now();
    await run(options.seconds, samples);
    const elapsed = (performance.now() - started) / 1000;
    const cpuMsPerRequest = groups.map(
      (pids, i) => ((cpuSecondsOf(pids) - cpuBefore[i]) * 1000) / Math.max(1, samples.length),
    );
    samples.sort((a, b) => a - b);
    return {
      requests: samples.length,
      failures,
      firstFailure,
      p50: percentileOf(samples, 0.5),
      p95: percentileOf(samples, 0.95),
      p99: percentileOf(samples, 0.99),
      perSecond: samples.length / elapsed,
      cpuMsPerRequest,
    };
  } finally {
    agent.destroy();
  }
}
