import http from 'node:http';
import https from 'node:https';
import { NonPublicAddressError, type PublicAddressPolicy } from '../../lib/public-address.ts';

export type ProviderAnswer = { status: number; body: string };

/** A provider's answer to one batch is a few kilobytes; a larger one is not read into memory. */
const MAX_BODY_BYTES = 1024 * 1024;

/** A call that ended without an answer; `mayHaveArrived`: offering it again could send it twice. */
export class ProviderUnansweredError extends Error {
  readonly mayHaveArrived: boolean;
  readonly code: string | undefined;
  constructor(message: string, mayHaveArrived: boolean, cause?: NodeJS.ErrnoException) {
    super(message, { cause });
    this.mayHaveArrived = mayHaveArrived;
    this.code = cause?.code;
  }
}

export class ProviderTimeoutError extends ProviderUnansweredError {
  override readonly name = 'TimeoutError';
}

export const mayHaveArrived = (error: unknown) =>
  error instanceof ProviderUnansweredError && error.mayHaveArrived;

/** A provider address's problem: a scheme other than http(s), or credentials in it. */
export function providerUrlProblem(url: URL): 'scheme' | 'credentials' | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'scheme';
  if (url.username || url.password) return 'credentials';
  return null;
}

/**
 * One POST to a provider, never to a private address: a name is checked by the policy's lookup at
 * the moment of connecting, so the address checked is the address used. Redirects come back as
 * they are. Rejects with ProviderTimeoutError past `timeoutMs`, NonPublicAddressError, the socket's
 * error when the request cannot have arrived, or a ProviderUnansweredError when it may have.
 *
 * Whether it may have arrived is read from the socket, not from the request's 'finish' event: on a
 * busy event loop an overdue timer runs before the write's completion is seen. A socket is written
 * to in the turn it connects, so "connected" is the safe answer.
 */
export function postToProvider(
  url: URL,
  request: { headers: Record<string, string>; body: string; timeoutMs: number },
  policy: PublicAddressPolicy,
): Promise<ProviderAnswer> {
  return new Promise((resolve, reject) => {
    if (policy.refusalOf(url.hostname)) return reject(new NonPublicAddressError());
    const client = url.protocol === 'https:' ? https : http;
    const body = Buffer.from(request.body);
    const outgoing = client.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'Content-Length': String(body.length) },
      lookup: policy.lookup,
    });
    let connected = false;
    outgoing.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    const timer = setTimeout(() => {
      reject(new ProviderTimeoutError(`no answer within ${request.timeoutMs} ms`, connected));
      outgoing.destroy();
    }, request.timeoutMs);
    const fail = (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // A kept-alive socket the provider had already closed resets on our write: nothing arrived
      // (the case Node's documentation retries on, `request.reusedSocket`).
      const staleSocket = outgoing.reusedSocket && error.code === 'ECONNRESET';
      if (!connected || staleSocket) return reject(error);
      reject(
        new ProviderUnansweredError(`the connection ended without an answer (${error.message})`, true, error),
      );
    };
    outgoing.on('error', fail);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // Past the cap the answer reads as unreadable, never as a huge string.
        if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        clearTimeout(timer);
        const text = size <= MAX_BODY_BYTES ? Buffer.concat(chunks).toString() : '';
        resolve({ status: response.statusCode ?? 0, body: text });
      });
    });
    outgoing.end(body);
  });
}
