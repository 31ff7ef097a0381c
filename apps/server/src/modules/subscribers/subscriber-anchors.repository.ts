import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { ANCHOR_STEP } from '../../lib/page-anchors.ts';

/** Every ANCHOR_STEP-th id of a company's subscribers, newest first: where deep pages start. */
export async function subscriberAnchorIds(db: Executor, companyId: number) {
  const { rows } = await sql<{ id: number }>`
    select id from (
      select id, row_number() over (order by id desc) as n from subscribers where company_id = ${companyId}) numbered
     where (n - 1) % ${ANCHOR_STEP} = 0
     order by id desc`.execute(db);
  return rows.map((row) => row.id);
}
