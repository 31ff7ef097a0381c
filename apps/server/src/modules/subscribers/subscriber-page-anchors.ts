import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { ANCHOR_STEP, createPageAnchors, type PageStart } from '../../lib/page-anchors.ts';

/** Companies whose anchors this process keeps (the most recently read). */
const anchorsOfCompany = createPageAnchors<number>(100);

/**
 * Where a deep page of a company's whole subscriber list (newest first) starts
 * (lib/page-anchors.ts): 560,000 keys walked for page 5,600 of 100 with OFFSET, fewer than 1,000
 * from an anchor. The anchors belong to one state of the list, named by its exact total (the
 * per-status counters) and its newest id: ids come from one sequence and are never reused, so any
 * insert or delete changes one of the two, and the anchors are then read again. A deep page's
 * start comes with that exact total (total: the list's totalItems, no other statement needed).
 */
export async function subscriberPageStart(
  db: Executor,
  companyId: number,
  offset: number,
): Promise<PageStart & { total?: number }> {
  if (offset < ANCHOR_STEP) return { anchorId: null, skip: offset };
  const { rows } = await sql<{ total: number; newest: number | null }>`
    select (select coalesce(sum(subscriber_count), 0)::bigint from company_subscriber_counts
             where company_id = ${companyId}) as total,
           (select max(id) from subscribers where company_id = ${companyId}) as newest`.execute(db);
  const total = Number(rows[0].total);
  const start = await anchorsOfCompany(companyId, `${total}:${rows[0].newest}`, offset, async () => {
    const { rows: anchors } = await sql<{ id: number }>`
      select id from (
        select id, row_number() over (order by id desc) as n from subscribers where company_id = ${companyId}) numbered
       where (n - 1) % ${ANCHOR_STEP} = 0
       order by id desc`.execute(db);
    return anchors.map((row) => row.id);
  });
  return { ...start, total };
}
