import type { Transaction } from 'kysely';
import { type Database, type StatementLead, withPreparedStatements } from './database.ts';
import { readLanesOf } from './read-lanes.ts';
import type { DB } from './schema.ts';

/**
 * A read worked on for the user its sign-in was last found to be, before the database has said so
 * again (plugins/authenticate.ts). Each of its statements is sent with BEGIN and the session lookup
 * that binds it, and COMMIT, in one round trip (db/database.ts, StatementLead), where a read that
 * looks its user up first takes three: the lookup, the statement, COMMIT. The statement's rows are
 * used only if its lookup answers that same user (`confirm` throws otherwise). Under READ COMMITTED
 * each statement read its own snapshot before too, so a transaction per statement changes nothing
 * a read sees.
 */
export class LeadedRead {
  /** Whom it works for (the request's actor); statements run for that actor only. */
  owner: object | undefined;
  /** 'pending' until a lookup has answered; then whether it answered the user the read was worked on for. */
  state: 'pending' | 'confirmed' | 'refused' = 'pending';
  #db: Database;
  #lookup: StatementLead;
  #bound: StatementLead;

  /**
   * `lookup`: BEGIN and the session lookup that binds the transaction; `bound`: BEGIN and the same
   * binding without the lookup, for the statements after one whose lookup has confirmed the user.
   */
  constructor(db: Database, lookup: string, bound: string, confirm: (answer: unknown[]) => void) {
    this.#db = db;
    this.#bound = { begin: bound, check: () => {} };
    this.#lookup = {
      begin: lookup,
      check: (answer) => {
        try {
          confirm(answer);
        } catch (error) {
          this.state = 'refused';
          throw error;
        }
        if (this.state === 'pending') this.state = 'confirmed';
      },
    };
  }

  isOpenFor(owner: object) {
    return this.owner === owner;
  }

  run<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    // Once a lookup has answered someone else, nothing more is read for this request.
    if (this.state === 'refused')
      return Promise.reject(new Error('The read was refused by its session lookup'));
    return (readLanesOf(this.#db)?.db ?? this.#db)
      .connection()
      .execute((connection) =>
        withPreparedStatements(
          () => work(connection as Transaction<DB>),
          this.state === 'confirmed' ? this.#bound : this.#lookup,
        ),
      );
  }

  /** Nothing is held between statements. */
  end() {}
}
