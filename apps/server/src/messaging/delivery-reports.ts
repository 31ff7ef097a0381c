import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
import { upsertCountDeltas } from './delivery-counts.ts';
import { preferIndexLookups } from './index-plans.ts';
import type { DeliveryUpdate } from './providers/provider.ts';
import { settleSends } from './send-progress.ts';

/**
 * What became of one delivery report: applied (the recipient moved on), unchanged (a repeat, or
 * older news than the recipient already has), unknown (no recipient has that provider id, yet:
 * kept for a while in case our own hand-over commit is still on its way).
 */
export type DeliveryOutcome = 'applied' | 'unchanged' | 'unknown';

/** Reports name recipients handed over at most this long ago (the partitions they may live in). */
const REPORT_WINDOW = '62 days';

/**
 * Applies a batch of one company's delivery reports with one statement: each provider id takes
 * its most advanced report of the batch; a recipient's status only moves forward (pending <
 * submitted < sent < final, and a final status is never replaced), so repeats and late
 * intermediate reports change nothing; the counters move in the same statement. Messages follow
 * (settleSends). Reports for ids no recipient carries are kept in unmatched_delivery_reports when
 * `keepUnknown` (the sweep re-applies them). Returns one outcome per input, in order.
 */
export async function applyDeliveryUpdates(
  trx: Executor,
  companyId: number,
  updates: readonly DeliveryUpdate[],
  options: { keepUnknown: boolean } = { keepUnknown: true },
): Promise<DeliveryOutcome[]> {
  if (updates.length === 0) return [];
  const ids = updates.map((update) => update.providerMessageId);
  // Every join here goes by index from the batch's few hundred ids (no statement may read a whole
  // partition), and the outcomes are matched up below rather than by joins.
  await preferIndexLookups(trx);
  const { rows } = await sql<{ kind: 'changed' | 'known'; gid: string; message_id: number | null }>`
    with input as (
      select distinct on (u.gid) u.gid, u.status, u.provider_status, u.error, u.at, r.rank
        from unnest(${ids}::text[], ${updates.map((u) => u.status)}::text[],
                    ${updates.map((u) => u.providerStatus)}::text[], ${updates.map((u) => u.error)}::text[],
                    ${updates.map((u) => u.at)}::timestamptz[]) with ordinality as u(gid, status, provider_status, error, at, ord)
        cross join lateral (select case u.status when 'submitted' then 1 when 'sent' then 2 else 3 end as rank) r
       order by u.gid, r.rank desc, u.ord
    ),
    -- Each id is looked up once, by the provider-id index, and its row locked: the rows found are
    -- the known ones, those whose report is news move on (a concurrent batch's change is seen
    -- after the lock, so statuses still only move forward).
    found as (
      select d.company_id, d.message_id, d.id, d.created_at, d.status as old_status,
             i.gid, i.status, i.provider_status, i.error, i.at, i.rank
        from input i
        join delivery_reports d
          on d.company_id = ${companyId} and d.gateway_message_id = i.gid
         and d.created_at >= now() - ${REPORT_WINDOW}::interval
         for update of d
    ),
    changed as (
      update delivery_reports d
         set status = t.status,
             provider_status = t.provider_status,
             error_message = case when t.status in ('failed', 'rejected', 'expired') then coalesce(t.error, t.provider_status)
                                  else d.error_message end,
             delivered_at = case when t.status = 'delivered' then t.at else d.delivered_at end,
             updated_at = now()
        from found t
       where d.company_id = t.company_id and d.message_id = t.message_id and d.id = t.id and d.created_at = t.created_at
         and t.rank > case t.old_status when 'pending' then 0 when 'submitted' then 1 when 'sent' then 2 else 3 end
      returning d.message_id, t.old_status, d.status, t.gid
    ),
    counted as (
      ${upsertCountDeltas(
        companyId,
        sql`select message_id, old_status, -1 from changed union all select message_id, status, 1 from changed`,
      )}
    ),
    kept as (
      insert into unmatched_delivery_reports (company_id, gateway_message_id, status, provider_status, error_message, reported_at)
      select ${companyId}, i.gid, i.status, i.provider_status, i.error, i.at
        from input i
       where ${options.keepUnknown} and i.gid not in (select gid from found)
      on conflict do nothing
    )
    select 'changed' as kind, gid, message_id from changed
    union all
    select 'known', gid, null from found`.execute(trx);

  const applied = new Set(rows.filter((row) => row.kind === 'changed').map((row) => row.gid));
  const known = new Set(rows.filter((row) => row.kind === 'known').map((row) => row.gid));
  const touched = [...new Set(rows.flatMap((row) => (row.message_id === null ? [] : [row.message_id])))];
  await settleSends(trx, companyId, touched);
  const byId = new Map<string, DeliveryOutcome>(
    ids.map((id) => [id, applied.has(id) ? 'applied' : known.has(id) ? 'unchanged' : 'unknown']),
  );
  // A provider id reported twice in one batch: the first copy carried its news, the rest are repeats.
  const seen = new Set<string>();
  return ids.map((id) => {
    const outcome = byId.get(id) ?? 'unknown';
    if (seen.has(id) && outcome === 'applied') return 'unchanged';
    seen.add(id);
    return outcome;
  });
}
