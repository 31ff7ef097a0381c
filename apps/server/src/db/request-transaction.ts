import { sql, type Transaction } from 'kysely';
import type { Database } from './database.ts';
import type { DB } from './schema.ts';

type Outcome = 'commit' | 'rollback';

/**
 * A read request's one transaction: opened by its sign-in check, bound in that same message to the
 * user's scope, then used by every `inActorTransaction` of the request, and ended when the answer
 * has been handed to the socket (its COMMIT is a round trip nobody waits for).
 *
 * Work that fails leaves it for good (rolled back at the end; later work of the request opens its
 * own transactions, as before). Once ended, nothing runs in it: work still under way when the
 * request ends keeps the connection until it is done, so the connection never goes back to the
 * pool while this request could still send a statement on it.
 */
export class RequestTransaction {
  #connection: Transaction<DB>;
  #finish: (outcome: Outcome) => void;
  #working = 0;
  #state: 'open' | 'failed' | 'ending' | 'ended' = 'open';
  #outcome: Outcome = 'commit';

  private constructor(connection: Transaction<DB>, finish: (outcome: Outcome) => void) {
    this.#connection = connection;
    this.#finish = finish;
  }

  /**
   * Checks a connection out and runs `begin` on it (which must send BEGIN and bind the
   * transaction). Resolves once that has answered; a failure there rolls back and rejects.
   */
  static open<T>(db: Database, begin: (connection: Transaction<DB>) => Promise<T>) {
    return new Promise<{ transaction: RequestTransaction; value: T }>((resolve, reject) => {
      db.connection()
        .execute(async (connection) => {
          const trx = connection as unknown as Transaction<DB>;
          let value: T;
          try {
            value = await begin(trx);
          } catch (error) {
            await sql
              .raw('rollback')
              .execute(trx)
              .catch(() => {});
            throw error;
          }
          const outcome = new Promise<Outcome>((finish) =>
            resolve({ transaction: new RequestTransaction(trx, finish), value }),
          );
          // The request answered without waiting for this; a failure here has no one left to tell.
          await sql
            .raw(await outcome)
            .execute(trx)
            .catch(() => {});
        })
        .catch(reject);
    });
  }

  /**
   * Whom it is bound for (the request's actor, set once the lookup has answered). Work runs in it
   * only for that same actor, never for a context made up for someone else.
   */
  owner: object | undefined;

  /** Whether work for `owner` can still run in it (checked synchronously, just before `run`). */
  isOpenFor(owner: object) {
    return this.#state === 'open' && this.owner === owner;
  }

  async run<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    if (this.#state !== 'open') throw new Error('The request transaction is no longer open');
    this.#working += 1;
    try {
      return await work(this.#connection);
    } catch (error) {
      // An error may have aborted the transaction: nothing else runs in it, and it is rolled back.
      this.#outcome = 'rollback';
      if (this.#state === 'open') this.#state = 'failed';
      throw error;
    } finally {
      this.#working -= 1;
      // end() may have been called while the work ran.
      if ((this.#state as string) === 'ending' && this.#working === 0) this.#close();
    }
  }

  /** Ends it (again: nothing). Work under way finishes first. */
  end(outcome: Outcome = 'commit') {
    if (this.#state === 'ending' || this.#state === 'ended') return;
    if (outcome === 'rollback') this.#outcome = 'rollback';
    this.#state = 'ending';
    if (this.#working === 0) this.#close();
  }

  #close() {
    this.#state = 'ended';
    this.#finish(this.#outcome);
  }
}
