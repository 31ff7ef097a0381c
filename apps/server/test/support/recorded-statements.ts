import pg from 'pg';

export type Sent = { statements: string[]; checkouts: number };

/**
 * The statements any pg client of this process is sent while `work` runs, and how many times the
 * pool handed out a connection. Nothing else in the test may query meanwhile.
 */
export async function recordSent(pool: pg.Pool, work: () => Promise<unknown>): Promise<Sent> {
  const sent: Sent = { statements: [], checkouts: 0 };
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = prototype.query;
  prototype.query = function recorded(this: pg.Client, ...args: unknown[]) {
    const [first] = args;
    sent.statements.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    return query.apply(this, args);
  };
  const onAcquire = () => {
    sent.checkouts += 1;
  };
  pool.on('acquire', onAcquire);
  try {
    await work();
  } finally {
    pool.off('acquire', onAcquire);
    prototype.query = query;
  }
  return sent;
}
