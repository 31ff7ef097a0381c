import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';

/**
 * Takes up to `wanted` hand-overs from the company's current one-second window, shared by every
 * worker through one row per company (the database's clock decides the second). Returns how many
 * were granted (0 when the second is used up) and when the next window opens.
 */
export async function takeSendTokens(db: Database, companyId: number, wanted: number, perSecond: number) {
  return inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows } = await sql<{ granted: number; next_window_ms: number }>`
      insert into company_send_windows as w (company_id, window_start, used, last_grant)
      values (${companyId}, date_trunc('second', clock_timestamp()), least(${wanted}::int, ${perSecond}::int),
              least(${wanted}::int, ${perSecond}::int))
      on conflict (company_id) do update set
        last_grant = case when w.window_start = excluded.window_start
                          then least(${wanted}::int, greatest(${perSecond}::int - w.used, 0))
                          else excluded.last_grant end,
        used = case when w.window_start = excluded.window_start
                    then w.used + least(${wanted}::int, greatest(${perSecond}::int - w.used, 0))
                    else excluded.used end,
        window_start = excluded.window_start
      returning last_grant as granted,
                ceil(extract(epoch from (window_start + interval '1 second' - clock_timestamp())) * 1000)::int as next_window_ms`.execute(
      trx,
    );
    const row = rows[0];
    return { granted: row.granted, nextWindowInMs: Math.max(0, row.next_window_ms) };
  });
}
