import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import { inTenantTransaction, platformScope } from '../db/tenant-scope.ts';

/**
 * The engine's batch statements touch a few hundred rows of a table with millions, always through
 * an index (recipient key, provider id). Early in a month its partition has no statistics yet, and
 * the planner then prefers hashing the whole partition: every batch would read all of it. For the
 * rest of the caller's transaction, joins go by index.
 */
export async function preferIndexLookups(trx: Executor) {
  await sql`select set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true),
                   set_config('enable_seqscan', 'off', true)`.execute(trx);
}

/**
 * Refreshes the statistics of the partition a send's recipients live in while they count fewer rows
 * than the send has written (`rowsWritten`): a fresh month's partition, not one autovacuum already
 * keeps (migrations 0006 and 0043). Best effort: it never waits on a running autovacuum. True when
 * the partition was analyzed.
 */
export async function refreshRecipientStatistics(db: Database, recipientsAt: Date, rowsWritten: number) {
  try {
    return await inTenantTransaction(db, platformScope, async (trx) => {
      await sql`select set_config('lock_timeout', '200ms', true)`.execute(trx);
      const { rows } = await sql`
        select ensure_delivery_report_partition(${recipientsAt}::timestamptz, 'analyze', ${rowsWritten}::bigint)`.execute(
        trx,
      );
      return rows.length > 0;
    });
  } catch {
    return false;
  }
}
