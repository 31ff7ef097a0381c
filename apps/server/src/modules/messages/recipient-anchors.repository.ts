import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { ANCHOR_STEP } from '../../lib/page-anchors.ts';

/** Every ANCHOR_STEP-th id of a send's recipients (those of its fan-out time), in id order: where deep pages start. */
export async function recipientAnchorIds(
  db: Executor,
  send: { companyId: number; messageId: number; recipientsAt: Date },
) {
  const { rows } = await sql<{ id: number }>`
    select id from (
      select d.id, row_number() over (order by d.id) as n
        from delivery_reports d
       where d.company_id = ${send.companyId} and d.message_id = ${send.messageId}
         and d.created_at = ${send.recipientsAt}) numbered
     where (n - 1) % ${ANCHOR_STEP} = 0
     order by id`.execute(db);
  return rows.map((row) => row.id);
}
