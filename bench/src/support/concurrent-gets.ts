import net from 'node:net';
import { readHttpAnswer } from './http-answer.ts';
import { percentileOf } from './percentile.ts';
import { cpuReadingOf, cpuSecondsSince } from './process-cpu.ts';

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

/** A request with no answer after this long fails, and its connection is opened again. */
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * `clients` keep-alive connections each sending GETs one after another for `seconds`, every
 * latency recorded (so the percentiles are exact, not a histogram's buckets). `pathOf(i)` gives
 * the i-th request's path, so a read can vary (a different number searched each time).
 *
 * Each client is a bare HTTP/1.1 connection (as in http-posts.ts): the request is one string
 * written to the socket, the answer is read for its status, its length and its end, and its body
 * is kept only when it is a failure. node's http.get with an Agent cost the bench 0.25-0.7 ms of
 * CPU a request, on the same two cores as the server it measures. It understands answers with a
 * Content-Length (what Fastify sends for JSON); any other answer counts as a failure and its
 * connection is opened again.
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
  const { hostname, port } = new URL(options.baseUrl);
  const headers = `host: ${hostname}:${port}\r\nauthorization: Bearer ${options.token}\r\naccept: application/json\r\n\r\n`;
  let next = 0;
  let failures = 0;
  let firstFailure: string | null = null;
  const fail = (message: string) => {
    failures++;
    firstFailure ??= message;
  };

  /** One timed stretch: connections send until `until`, then `done` once none is waiting for an answer. */
  type Phase = { until: number; samples: number[] | null; waiting: number; done: () => void };
  let phase: Phase | null = null;

  type Client = {
    socket: net.Socket;
    connected: boolean;
    /** The request waiting for its answer (null: none). */
    path: string | null;
    startedAt: number;
    pending: Buffer | null;
  };
  const clients: Client[] = [];

  const open = (): Client => {
    const client: Client = {
      socket: net.connect({ host: hostname, port: Number(port), noDelay: true }),
      connected: false,
      path: null,
      startedAt: 0,
      pending: null,
    };
    const { socket } = client;
    socket.on('data', (chunk: Buffer) => read(client, chunk));
    socket.on('error', () => {});
    socket.once('connect', () => {
      client.connected = true;
      send(client);
    });
    socket.on('close', () => {
      if (client.path !== null) answered(client, `${client.path}: connection closed before the answer`);
      const index = clients.indexOf(client);
      if (index < 0) return;
      // A dead server: the request a connection could not carry fails, and the phase ends on time.
      if (!client.connected) fail('could not connect');
      if (phase && performance.now() < phase.until) setTimeout(() => (clients[index] = open()), 10);
      else clients.splice(index, 1);
    });
    return client;
  };

  const send = (client: Client) => {
    if (!phase || performance.now() >= phase.until || client.socket.destroyed) return;
    const path = options.pathOf(next++);
    client.path = path;
    phase.waiting++;
    client.startedAt = performance.now();
    client.socket.write(`GET ${path} HTTP/1.1\r\n${headers}`);
  };

  /** The waiting request is over: timed, and counted as a failure when `failure` says why. */
  const answered = (client: Client, failure?: string) => {
    const elapsed = performance.now() - client.startedAt;
    client.path = null;
    client.pending = null;
    // Every request's latency, failed ones too (as node's http.get loop timed them).
    phase?.samples?.push(elapsed);
    if (failure !== undefined) fail(failure);
    if (phase && --phase.waiting === 0 && performance.now() >= phase.until) phase.done();
  };

  const read = (client: Client, chunk: Buffer) => {
    const path = client.path;
    if (path === null) return drop(client);
    const answer = readHttpAnswer(client.pending, chunk);
    if (answer.kind === 'partial') {
      client.pending = answer.pending;
      return;
    }
    if (answer.kind === 'broken') {
      answered(client, `${path}: ${answer.why}`);
      return drop(client);
    }
    const { status } = answer;
    answered(
      client,
      status >= 200 && status < 300 ? undefined : `${path}: ${status} ${answer.body().slice(0, 300)}`,
    );
    if (answer.closes) return drop(client);
    send(client);
  };

  /** Closes a connection whose answer was wrong or which the server closes; 'close' opens another. */
  const drop = (client: Client) => client.socket.destroy();

  const watchdog = setInterval(() => {
    const now = performance.now();
    for (const client of clients) {
      if (client.path !== null && now - client.startedAt > ANSWER_TIMEOUT_MS) {
        answered(client, `${client.path}: no answer within ${ANSWER_TIMEOUT_MS} ms`);
        drop(client);
      }
    }
  }, 250);

  const run = (seconds: number, samples: number[] | null) =>
    new Promise<void>((resolve) => {
      const current: Phase = {
        until: performance.now() + seconds * 1000,
        samples,
        waiting: 0,
        done: resolve,
      };
      phase = current;
      for (const client of clients) if (client.connected) send(client);
      // The first phase opens the connections; a later one replaces any that closed in between.
      while (clients.length < options.clients) clients.push(open());
      // Nothing got under way (no connection came up): the phase is over at its end.
      setTimeout(
        () => {
          if (current.waiting === 0) resolve();
        },
        seconds * 1000 + 50,
      );
    });

  try {
    await run(options.warmUpSeconds, null);
    const groups = (await options.cpuPids?.()) ?? [];
    const cpuBefore = groups.map(cpuReadingOf);
    const samples: number[] = [];
    const started = performance.now();
    await run(options.seconds, samples);
    const elapsed = (performance.now() - started) / 1000;
    // The processes of now: a pool may have closed and opened connections during the run.
    const groupsAfter = (await options.cpuPids?.()) ?? groups;
    const cpuMsPerRequest = groupsAfter.map(
      (pids, i) => (cpuSecondsSince(cpuBefore[i] ?? new Map(), pids) * 1000) / Math.max(1, samples.length),
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
    clearInterval(watchdog);
    phase = null;
    for (const client of clients.splice(0)) client.socket.destroy();
  }
}
