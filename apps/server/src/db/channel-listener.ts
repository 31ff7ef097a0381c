import pg from 'pg';

export type ChannelListener = {
  /** Whether the LISTEN is in place right now (false while the connection is being opened again). */
  readonly listening: boolean;
  /** Ends the connection and any reconnecting; nothing is delivered after it resolves. */
  close(): Promise<void>;
};

export type ChannelHandlers = {
  onNotification(payload: string): void;
  /**
   * After every LISTEN, the first and each one after a lost connection: what was notified while
   * nobody listened is gone, so the caller looks for it itself.
   */
  onListening?(): void;
  /** The connection failed or could not be opened; it is tried again after `retryInMs`. */
  onLost?(error: Error, retryInMs: number): void;
};

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

/**
 * LISTEN on `channel` on a connection of its own (a pooled connection is handed to others between
 * queries, and a notification comes only to the session that listens), kept open: when it fails or
 * ends, or cannot be opened, it is opened again after 1 s, doubling to 30 s. A NOTIFY is only ever
 * a hint to look sooner: every caller also polls, and onListening tells it to look after a gap.
 * Resolves after the first attempt, whether it succeeded or is being retried.
 */
export async function listenOnChannel(
  connection: pg.ClientConfig,
  channel: string,
  handlers: ChannelHandlers,
): Promise<ChannelListener> {
  let closed = false;
  let client: pg.Client | undefined;
  let listening = false;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  const lose = (lost: pg.Client, error: Error) => {
    if (closed || client !== lost) return;
    client = undefined;
    listening = false;
    lost.removeAllListeners('notification');
    lost.end().catch(() => {});
    const retryInMs = Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
    failures++;
    handlers.onLost?.(error, retryInMs);
    retry = setTimeout(() => {
      retry = undefined;
      void open();
    }, retryInMs);
  };

  const open = async () => {
    if (closed) return;
    const next = new pg.Client({ ...connection, keepAlive: true });
    client = next;
    // An error on an idle client is emitted, not thrown: without a listener it would end the process.
    next.on('error', (error) => lose(next, error));
    next.on('end', () => lose(next, new Error(`the LISTEN connection for ${channel} ended`)));
    next.on('notification', (message) => {
      if (!closed && message.channel === channel) handlers.onNotification(message.payload ?? '');
    });
    try {
      await next.connect();
      await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      lose(next, error as Error);
      return;
    }
    if (closed || client !== next) return;
    listening = true;
    failures = 0;
    handlers.onListening?.();
  };

  await open();
  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const last = client;
      client = undefined;
      listening = false;
      await last?.end().catch(() => {});
    },
  };
}
