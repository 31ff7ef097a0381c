import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPublicAddressPolicy, NonPublicAddressError } from '../src/lib/public-address.ts';
import {
  mayHaveArrived,
  ProviderTimeoutError,
  ProviderUnansweredError,
  postToProvider,
} from '../src/messaging/providers/provider-http.ts';

// Whether a call that ended without an answer may have reached the provider decides whether its
// recipients are offered again (a duplicate if it had arrived) or wait for a report (lost if it
// had not). These calls go to a real local HTTP server that takes the request and then misbehaves.

const loopback = createPublicAddressPolicy(['127.0.0.1']);
const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A server that reads each request whole, records it, and then does what `answer` says. */
async function provider(answer: (res: import('node:http').ServerResponse, nth: number) => void) {
  const received: string[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    received.push(body);
    answer(res, received.length);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/send`);
  return { url, received };
}

const post = (url: URL, body: string, timeoutMs = 200, policy = loopback) =>
  postToProvider(url, { headers: {}, body, timeoutMs }, policy);

async function failureOf(call: Promise<unknown>) {
  const error = await call.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(Error);
  return error as NodeJS.ErrnoException;
}

describe('postToProvider: a call without an answer', () => {
  it('timed out after the provider read the request: it may have arrived', async () => {
    const { url, received } = await provider(() => {}); // takes it and never answers
    const error = await failureOf(post(url, 'to=%2B254700000001'));
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(received).toEqual(['to=%2B254700000001']);
    expect(mayHaveArrived(error)).toBe(true);
  });

  it('timed out before a connection was made (the name never resolved): it did not arrive', async () => {
    const neverResolves = createPublicAddressPolicy([], () => new Promise(() => {}));
    const error = await failureOf(post(new URL('http://provider.example/send'), 'to=1', 100, neverResolves));
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(mayHaveArrived(error)).toBe(false);
  });

  it('the connection was cut after the provider read the request: it may have arrived', async () => {
    const { url, received } = await provider((res) => res.destroy());
    const error = await failureOf(post(url, 'to=1'));
    expect(error).toBeInstanceOf(ProviderUnansweredError);
    expect(error).not.toBeInstanceOf(ProviderTimeoutError);
    expect(received).toHaveLength(1);
    expect(mayHaveArrived(error)).toBe(true);
  });

  it('a kept-alive socket reset as the next request is written: read as stale, it did not arrive', async () => {
    // How a socket the provider closed while idle looks to the client (Node's `reusedSocket` case).
    const { url, received } = await provider((res, nth) =>
      nth === 1 ? res.end('ok') : res.socket?.resetAndDestroy(),
    );
    expect((await post(url, 'first')).body).toBe('ok');
    const error = await failureOf(post(url, 'second'));
    expect(received).toEqual(['first', 'second']);
    expect(error.code).toBe('ECONNRESET');
    expect(mayHaveArrived(error)).toBe(false);
  });

  it('nobody listens: it did not arrive', async () => {
    const { url } = await provider(() => {});
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const error = await failureOf(post(url, 'to=1'));
    expect(error.code).toBe('ECONNREFUSED');
    expect(mayHaveArrived(error)).toBe(false);
  });

  it('a private address the policy refuses at connection: refused as such, it did not arrive', async () => {
    const { url } = await provider(() => {});
    const error = await failureOf(post(url, 'to=1', 200, createPublicAddressPolicy([])));
    expect(error).toBeInstanceOf(NonPublicAddressError);
    expect(mayHaveArrived(error)).toBe(false);
  });
});
