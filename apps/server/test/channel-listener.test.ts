import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { listenOnChannel } from '../src/db/channel-listener.ts';
import { withAdmin } from './support/database-url.ts';

const { adminUrl } = inject('database');

const notify = (channel: string, payload: string) =>
  withAdmin(adminUrl, (admin) => admin.query('select pg_notify($1, $2)', [channel, payload]));

/** Ends the listening session from the server's side, as a restarted server or a dropped link would. */
const terminateListener = (channel: string) =>
  withAdmin(adminUrl, async (admin) => {
    const { rowCount } = await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where pid <> pg_backend_pid() and query = $1`,
      [`listen "${channel}"`],
    );
    return rowCount;
  });

describe('listenOnChannel', () => {
  it('delivers notifications, listens again after its connection is killed, and stops when closed', async () => {
    const channel = `test_channel_${process.pid}_${Date.now().toString(36)}`;
    const received: string[] = [];
    const events: string[] = [];
    const listener = await listenOnChannel({ connectionString: adminUrl }, channel, {
      onNotification: (payload) => received.push(payload),
      onListening: () => events.push('listening'),
      onLost: (_error, retryInMs) => events.push(`lost, again in ${retryInMs} ms`),
    });
    try {
      expect(listener.listening).toBe(true);
      expect(events).toEqual(['listening']);
      await notify(channel, 'first');
      await expect.poll(() => received, { timeout: 5000 }).toEqual(['first']);

      expect(await terminateListener(channel)).toBe(1);
      await expect
        .poll(() => events, { timeout: 5000 })
        .toEqual(['listening', 'lost, again in 1000 ms', 'listening']);
      expect(listener.listening).toBe(true);
      await notify(channel, 'second');
      await expect.poll(() => received, { timeout: 5000 }).toEqual(['first', 'second']);
    } finally {
      await listener.close();
    }
    expect(listener.listening).toBe(false);
    await notify(channel, 'after close');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toEqual(['first', 'second']);
    expect(await terminateListener(channel)).toBe(0);
  });

  it("LISTENs on the pool's listenConnectionString (DATABASE_LISTEN_URL) rather than its own URL", async () => {
    const channel = `test_direct_${process.pid}_${Date.now().toString(36)}`;
    // The pool's own URL goes nowhere, as a transaction pooler would for a LISTEN.
    const pooler = new URL(adminUrl);
    pooler.port = '1';
    const received: string[] = [];
    const listener = await listenOnChannel(
      { connectionString: pooler.toString(), listenConnectionString: adminUrl },
      channel,
      { onNotification: (payload) => received.push(payload) },
    );
    try {
      expect(listener.listening).toBe(true);
      await notify(channel, 'direct');
      await expect.poll(() => received, { timeout: 5000 }).toEqual(['direct']);
    } finally {
      await listener.close();
    }
  });

  it('keeps trying a server it cannot reach, and resolves without waiting for it', async () => {
    const unreachable = new URL(adminUrl);
    unreachable.port = '1';
    const events: string[] = [];
    const listener = await listenOnChannel({ connectionString: unreachable.toString() }, 'nowhere', {
      onNotification: () => {},
      onLost: (_error, retryInMs) => events.push(`again in ${retryInMs} ms`),
    });
    try {
      expect(listener.listening).toBe(false);
      await expect.poll(() => events, { timeout: 5000 }).toEqual(['again in 1000 ms', 'again in 2000 ms']);
    } finally {
      await listener.close();
    }
  });
});

/**
 * A TCP relay to the database whose open links can be made silent: bytes are dropped both ways and
 * nothing is closed, as when a failover or a firewall loses a flow. Links opened later relay again.
 */
async function silenceableRelay(target: URL) {
  const links: { silent: boolean }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const link = { silent: false };
    links.push(link);
    const outbound = connect(Number(target.port), target.hostname);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    inbound.on('data', (chunk) => link.silent || outbound.write(chunk));
    outbound.on('data', (chunk) => link.silent || inbound.write(chunk));
    inbound.on('end', () => link.silent || outbound.end());
    outbound.on('end', () => link.silent || inbound.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    silenceOpenLinks: () => {
      for (const link of links) link.silent = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('listenOnChannel heartbeat', () => {
  it('notices a link that went silent without closing, and listens again on a new one', async () => {
    const relay = await silenceableRelay(new URL(adminUrl));
    const channel = `test_silent_${process.pid}_${Date.now().toString(36)}`;
    const received: string[] = [];
    const events: string[] = [];
    const listener = await listenOnChannel(
      { connectionString: relay.url },
      channel,
      {
        onNotification: (payload) => received.push(payload),
        onListening: () => events.push('listening'),
        onLost: (error) => events.push(`lost: ${error.message}`),
      },
      { everyMs: 150, timeoutMs: 300 },
    );
    try {
      expect(events).toEqual(['listening']);
      relay.silenceOpenLinks();
      await notify(channel, 'unheard');
      await expect
        .poll(() => events, { timeout: 5000 })
        .toEqual([
          'listening',
          `lost: the LISTEN connection for ${channel} did not answer within 300 ms`,
          'listening',
        ]);
      await notify(channel, 'heard');
      await expect.poll(() => received, { timeout: 5000 }).toEqual(['heard']);
    } finally {
      await listener.close();
      await relay.close();
    }
  });
});
