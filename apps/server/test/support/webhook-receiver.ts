import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_REPLAY_WINDOW_SECONDS } from '@sms/contracts/webhooks/webhook';

export type ReceivedEvent = { id: string; type: string; created: string; data: Record<string, unknown> };

/**
 * A company's webhook receiver on 127.0.0.1 that does what the README tells receivers to do: it
 * verifies the Webhook-Signature (HMAC-SHA256 of "t.body" with the endpoint's secret, t within the
 * replay window) and refuses the request (400) when it does not hold. While `down`, it answers 503.
 */
export async function startWebhookReceiver() {
  let secret = '';
  const received: ReceivedEvent[] = [];
  const requests: { verified: boolean; status: number; events: number }[] = [];
  const state = { down: false };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verified = verifySignature(body, String(request.headers['webhook-signature'] ?? ''), secret);
      const status = state.down ? 503 : verified ? 200 : 400;
      const events = status === 200 ? (JSON.parse(body).events as ReceivedEvent[]) : [];
      requests.push({ verified, status, events: events.length });
      received.push(...events);
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    requests,
    state,
    useSecret(value: string) {
      secret = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The README's verification recipe. */
export function verifySignature(body: string, header: string, secret: string, now = Date.now() / 1000) {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || !parts.v1) return false;
  if (Math.abs(now - timestamp) > WEBHOOK_REPLAY_WINDOW_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
