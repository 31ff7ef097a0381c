import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type pg from 'pg';

export type Sent = { statements: string[]; writes: number; checkouts: number };

/** The statements the app's connections are sent while `work` runs, and how many socket writes carried them. */
export async function recordSent(pool: pg.Pool, work: () => Promise<unknown>): Promise<Sent> {
  const sent: Sent = { statements: [], writes: 0, checkouts: 0 };
  const restore: (() => void)[] = [];
  const patched = new Set<pg.PoolClient>();
  const onAcquire = (client: pg.PoolClient) => {
    sent.checkouts += 1;
    if (patched.has(client)) return;
    patched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const [first] = args;
      sent.statements.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
      return query(...args);
    };
    const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream as Socket & {
      _write: (...args: unknown[]) => unknown;
      _writev: (...args: unknown[]) => unknown;
    };
    const { _write, _writev } = socket;
    socket._write = (...args) => {
      sent.writes += 1;
      return _write.apply(socket, args);
    };
    socket._writev = (...args) => {
      sent.writes += 1;
      return _writev.apply(socket, args);
    };
    restore.push(() => {
      delete (client as unknown as { query?: unknown }).query;
      socket._write = _write;
      socket._writev = _writev;
    });
  };
  pool.on('acquire', onAcquire);
  try {
    await work();
    // The answers' 'close' events (a read's COMMIT) have run.
    await delay(20);
  } finally {
    pool.off('acquire', onAcquire);
    for (const undo of restore) undo();
  }
  return sent;
}
