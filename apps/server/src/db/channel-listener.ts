import net from 'node:net';
import pg from 'pg';

/** DATABASE_LISTEN_URL: behind PgBouncer in transaction mode a LISTEN needs a direct connection. */
export type ListenConfig = { listenConnectionString?: string | undefined };

export type ChannelListener = {
  readonly listening: boolean;
  /** Nothing is delivered after it resolves. */
  close(): Promise<void>;
};

export type ChannelHandlers = {
  onNotification(payload: string): void;
  /** After every LISTEN: what was notified while nobody listened is gone, so the caller looks itself. */
  onListening?(): void;
  onLost?(error: Error, retryInMs: number): void;
};

const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

/**
 * How often a listening connection is asked for a `select 1`, and how long it may take: a link that
 * dies without a word (a failover, a NAT dropping an idle flow) would never notify again, and TCP
 * keepalive notices only after two hours.
 */
export type Heartbeat = { everyMs: number; timeoutMs: number };
const HEARTBEAT: Heartbeat = { everyMs: 30_000, timeoutMs: 10_000 };

/**
 * LISTEN on `channel` on a connection of its own, opened again after any loss (1 s, doubling to
 * 30 s). A NOTIFY is only a hint to look sooner: every caller also polls. Resolves after the first
 * attempt, whether it succeeded or is being retried.
 */
export async function listenOnChannel(
  connection: pg.ClientConfig & ListenConfig,
  channel: string,
  handlers: ChannelHandlers,
  heartbeat: Heartbeat = HEARTBEAT,
): Promise<ChannelListener> {
  let closed = false;
  let client: pg.Client | undefined;
  let listening = false;
  let retry: NodeJS.Timeout | undefined;
  let beat: NodeJS.Timeout | undefined;
  let failures = 0;
  const { listenConnectionString, ...settings } = connection;
  const target = { ...settings, connectionString: listenConnectionString ?? settings.connectionString };
  // The client's socket, made here (pg's `stream` option) so that a lost link can be cut at once.
  const sockets = new WeakMap<pg.Client, net.Socket>();

  const lose = (lost: pg.Client, error: Error) => {
    if (closed || client !== lost) return;
    client = undefined;
    listening = false;
    clearInterval(beat);
    lost.removeAllListeners('notification');
    lost.end().catch(() => {});
    // A silent link would hold end()'s goodbye, and the socket, until TCP gives up.
    sockets.get(lost)?.destroy();
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
    let socket: net.Socket | undefined;
    const next = new pg.Client({
      ...target,
      keepAlive: true,
      stream: () => {
        socket = new net.Socket();
        return socket;
      },
    });
    // pg makes the socket in its constructor.
    if (socket) sockets.set(next, socket);
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
    beat = setInterval(() => checkAlive(next), heartbeat.everyMs);
    beat.unref();
    handlers.onListening?.();
  };

  const checkAlive = (listened: pg.Client) => {
    const silent = setTimeout(
      () =>
        lose(
          listened,
          new Error(`the LISTEN connection for ${channel} did not answer within ${heartbeat.timeoutMs} ms`),
        ),
      heartbeat.timeoutMs,
    );
    silent.unref();
    listened.query('select 1').then(
      () => clearTimeout(silent),
      (error: Error) => {
        clearTimeout(silent);
        lose(listened, error);
      },
    );
  };

  await open();
  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      clearInterval(beat);
      const last = client;
      client = undefined;
      listening = false;
      await last?.end().catch(() => {});
    },
  };
}
