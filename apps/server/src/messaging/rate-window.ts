import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';

/**
 * Takes up to `wanted` hand-overs from the company's current window, one row per company shared by
 * every worker. A second is cut into ten windows of 100 ms, window k allowing
 * floor(rate x (k+1) / 10) - floor(rate x k / 10): never more than the rate in a second, and
 * spread over it, so a capped send keeps a steady pace. Returns the grant and when the next window opens.
 */
export async function takeSendTokens(db: Database, companyId: number, wanted: number, perSecond: number) {
  return inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows } = await sql<{ granted: number; next_window_ms: number }>`
      with now as (select clock_timestamp() as at),
      slot as (
        select date_trunc('second', at)
                 + floor(extract(milliseconds from at)::numeric % 1000 / 100) * interval '100 milliseconds' as start,
               floor(extract(milliseconds from at)::numeric % 1000 / 100)::int as k
          from now
      ),
      window_allows as (
        select start, (floor(${perSecond}::numeric * (k + 1) / 10) - floor(${perSecond}::numeric * k / 10))::int as allows
          from slot
      )
      insert into company_send_windows as w (company_id, window_start, used, last_grant)
      select ${companyId}, start, least(${wanted}::int, allows), least(${wanted}::int, allows) from window_allows
      on conflict (company_id) do update set
        last_grant = case when w.window_start = excluded.window_start
                          then least(${wanted}::int, greatest((select allows from window_allows) - w.used, 0))
                          else excluded.last_grant end,
        used = case when w.window_start = excluded.window_start
                    then w.used + least(${wanted}::int, greatest((select allows from window_allows) - w.used, 0))
                    else excluded.used end,
        window_start = excluded.window_start
      returning last_grant as granted,
                ceil(extract(epoch from (window_start + interval '100 milliseconds' - clock_timestamp())) * 1000)::int as next_window_ms`.execute(
      trx,
    );
    const row = rows[0];
    return { granted: row.granted, nextWindowInMs: Math.max(0, row.next_window_ms) };
  });
}
