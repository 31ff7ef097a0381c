import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';

export type Sent = { statements: string[]; writes: number; checkouts: number };

type Writable = Socket & {
  _write: (...args: unknown[]) => unknown;
  _writev: (...args: unknown[]) => unknown;
};

/**
 * The statements the app's connections are sent while `work` runs (the pool's and the read lanes',
 * any pg client of this process), how many socket writes carried them, and how many times the
 * pool handed out a connection. Nothing else in the test may query meanwhile.
 */
export async function recordSent(pool: pg.Pool, work: () => Promise<unknown>): Promise<Sent> {
  const sent: Sent = { statements: [], writes: 0, checkouts: 0 };
  const restore: (() => void)[] = [];
  const counted = new Set<Socket>();
  const countWrites = (client: pg.Client) => {
    const socket = (client as unknown as { connection: { stream: Writable } }).connection.stream;
    if (counted.has(socket)) return;
    counted.add(socket);
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
      socket._write = _write;
      socket._writev = _writev;
    });
  };
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = prototype.query;
  prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
    const [first] = args;
    sent.statements.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    countWrites(this);
    return query.apply(this, args);
  };
  restore.push(() => {
    prototype.query = query;
  });
  const onAcquire = () => {
    sent.checkouts += 1;
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
