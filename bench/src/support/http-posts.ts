import net from 'node:net';
import { readHttpAnswer } from './http-answer.ts';
import { percentileOf } from './percentile.ts';

export type PostsResult = {
  /** Requests answered 2xx, and answered otherwise (any other status). */
  ok: number;
  notOk: number;
  /** Requests that got no complete answer: the connection failed or closed, or the answer was unreadable. */
  errors: number;
  /** Requests not answered within the timeout (their connection is dropped and opened again). */
  timeouts: number;
  /** The first answer that was not 2xx, or the first error, for the log. */
  firstFailure: string | null;
  /** Milliseconds from writing a request to reading its whole answer, every answered request (exact percentiles). */
  latency: { p50: number; p99: number; max: number };
};

/**
 * Posts `count` requests over `connections` keep-alive HTTP/1.1 connections, each connection sending
 * its next request only once the previous one is answered (no pipelining), as a provider's callback
 * sender does, and times every request. A load generator that costs far less CPU per request than
 * autocannon: the request is one prepared buffer written to the socket, the answer is read only for
 * its status, its length and its end. It understands answers with a Content-Length (what Fastify
 * sends for these routes); a chunked or unreadable answer counts as an error.
 */
export async function postEach(options: {
  url: string;
  connections: number;
  count: number;
  /** The i-th request (0-based): its path, content type and body. */
  requestOf: (i: number) => { path: string; contentType: string; body: string };
  timeoutMs: number;
}): Promise<PostsResult> {
  const { hostname, port } = new URL(options.url);
  const host = `${hostname}:${port}`;
  const latencies = new Float64Array(options.count);
  let answered = 0;
  let next = 0;
  const result = { ok: 0, notOk: 0, errors: 0, timeouts: 0, firstFailure: null as string | null };
  const fail = (kind: 'errors' | 'timeouts', message: string) => {
    result[kind]++;
    result.firstFailure ??= message;
  };

  const requestBytes = (i: number) => {
    const { path, contentType, body } = options.requestOf(i);
    return Buffer.from(
      `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: ${contentType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  };

  type Connection = {
    socket: net.Socket;
    startedAt: number;
    pending: Buffer | null;
    busy: boolean;
    connected: boolean;
  };
  const connections: Connection[] = [];
  let finish: () => void;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const settle = () => {
    if (answered + result.errors + result.timeouts >= options.count) finish();
  };

  const open = (): Connection => {
    const connection: Connection = {
      socket: net.connect({ host: hostname, port: Number(port), noDelay: true }),
      startedAt: 0,
      pending: null,
      busy: false,
      connected: false,
    };
    const { socket } = connection;
    socket.on('data', (chunk: Buffer) => {
      const answer = readHttpAnswer(connection.pending, chunk);
      if (answer.kind === 'partial') {
        connection.pending = answer.pending;
        return;
      }
      if (answer.kind === 'broken') {
        fail('errors', answer.why);
        return drop(connection);
      }
      connection.pending = null;
      connection.busy = false;
      latencies[answered++] = performance.now() - connection.startedAt;
      if (answer.status >= 200 && answer.status < 300) result.ok++;
      else {
        result.notOk++;
        result.firstFailure ??= `${answer.status}: ${answer.body().slice(0, 300)}`;
      }
      if (answer.closes) return drop(connection, false);
      send(connection);
    });
    socket.on('error', () => {});
    socket.once('connect', () => {
      connection.connected = true;
      send(connection);
    });
    socket.on('close', () => {
      if (!connection.connected && next < options.count) {
        // No connection at all: the request it would have carried fails, so a dead server ends the run.
        next++;
        fail('errors', 'could not connect');
      }
      if (connection.busy) fail('errors', 'connection closed before the answer');
      connection.busy = false;
      replace(connection);
    });
    return connection;
  };

  const send = (connection: Connection) => {
    settle();
    if (next >= options.count) {
      connection.socket.end();
      return;
    }
    const bytes = requestBytes(next++);
    connection.busy = true;
    connection.startedAt = performance.now();
    connection.socket.write(bytes);
  };

  /** Closes a connection whose answer was wrong or which the server closes; 'close' opens another. */
  const drop = (connection: Connection, failed = true) => {
    if (failed) connection.busy = false;
    connection.socket.destroy();
  };

  const replace = (connection: Connection) => {
    const index = connections.indexOf(connection);
    if (index < 0) return;
    settle();
    if (next >= options.count) {
      connections.splice(index, 1);
      return;
    }
    connections[index] = open();
  };

  const watchdog = setInterval(() => {
    const now = performance.now();
    for (const connection of connections) {
      if (connection.busy && now - connection.startedAt > options.timeoutMs) {
        fail('timeouts', `no answer within ${options.timeoutMs} ms`);
        connection.busy = false;
        connection.socket.destroy();
      }
    }
  }, 250);

  for (let c = 0; c < options.connections; c++) {
    connections.push(open());
  }
  await finished;
  clearInterval(watchdog);
  for (const connection of connections) connection.socket.destroy();

  const sorted = latencies.subarray(0, answered).sort();
  return {
    ...result,
    latency: {
      p50: round(percentileOf(sorted, 0.5)),
      p99: round(percentileOf(sorted, 0.99)),
      max: round(percentileOf(sorted, 1)),
    },
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;
