import http from 'node:http';
import https from 'node:https';
import { NonPublicAddressError, type PublicAddressPolicy } from '../../lib/public-address.ts';

/** An answer of a provider's HTTP API; the body is read up to MAX_BODY_BYTES. */
export type ProviderAnswer = { status: number; body: string };

/** A provider's answer to one batch is a few kilobytes; a larger one is not read into memory. */
const MAX_BODY_BYTES = 1024 * 1024;

export class ProviderTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  /** Whether the whole request had been written: then the provider may have taken it. */
  readonly requestSent: boolean;
  constructor(message: string, requestSent: boolean) {
    super(message);
    this.requestSent = requestSent;
  }
}

/** The URL's problem as a provider address, if any: a scheme other than http(s), or credentials in it. */
export function providerUrlProblem(url: URL): 'scheme' | 'credentials' | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'scheme';
  if (url.username || url.password) return 'credentials';
  return null;
}

/**
 * One POST to a provider through node:http(s), never to a private address: an IP address in the
 * URL is checked here, a name by the policy's lookup at the moment of connecting (so the address
 * checked is the address used, whatever DNS says in between). Redirects are not followed (node:http
 * never does): a 3xx comes back as it is. Rejects with ProviderTimeoutError past `timeoutMs`
 * (the whole exchange), NonPublicAddressError, or the socket's own error.
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
    let requestSent = false;
    outgoing.on('finish', () => {
      requestSent = true;
    });
    const timer = setTimeout(() => {
      reject(new ProviderTimeoutError(`no answer within ${request.timeoutMs} ms`, requestSent));
      outgoing.destroy();
    }, request.timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    outgoing.on('error', fail);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // Past the cap the rest is dropped: the answer reads as unreadable, never as a huge string.
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
