import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import { companyScope, inTenantTransaction, platformScope } from '../db/tenant-scope.ts';
import { SEND_STARTED_CHANNEL } from './send-jobs.ts';
import { failSend } from './send-progress.ts';

/**
 * A company that is not active (suspended, pending) sends nothing. The hand-over asks at every batch
 * it claims, so a send under way stops at its next batch, and one that fell due meanwhile hands
 * nothing over: the send is held (migration 0046), out of the lanes' way, its recipients not handed
 * over still pending. Once the company is active again the engine resumes it, unless it is past
 * its due time by SEND_VALIDITY_HOURS or more: then it ends failed.
 */
export async function companyMaySend(trx: Executor, companyId: number) {
  const { rows } = await sql<{ active: boolean }>`
    select status = 'active' as active from companies where id = ${companyId}`.execute(trx);
  return rows[0]?.active === true;
}

export async function holdSend(trx: Executor, companyId: number, messageId: number) {
  await sql`
    update message_sends set state = 'held', updated_at = now()
     where company_id = ${companyId} and message_id = ${messageId} and state = 'dispatch'`.execute(trx);
}

/**
 * Held sends of companies active again: each goes back to its hand-over, or fails when its due time
 * (the schedule, else when it started) is validityHours or more ago. A send held just as its company
 * came back is found by the next look. Returns how many went back to their hand-over.
 */
export async function resumeHeldSends(db: Database, validityHours: number) {
  const held = await inTenantTransaction(db, platformScope, async (trx) => {
    const { rows } = await sql<{ company_id: number; message_id: number; in_time: boolean }>`
      select s.company_id, s.message_id,
             coalesce(m.scheduled_at, s.started_at) > now() - make_interval(hours => ${validityHours}) as in_time
        from message_sends s
        join companies c on c.id = s.company_id and c.status = 'active'
        join messages m on m.company_id = s.company_id and m.id = s.message_id
       where s.state = 'held'
       order by s.message_id
       limit 1000`.execute(trx);
    return rows;
  });
  let resumed = 0;
  for (const send of held) {
    const companyId = Number(send.company_id);
    const messageId = Number(send.message_id);
    await inTenantTransaction(db, companyScope(companyId), async (trx) => {
      if (!send.in_time) {
        await failSend(trx, companyId, messageId, 'held', MESSAGE_MESSAGES.companySuspended);
        return;
      }
      const moved = await sql`
        update message_sends set state = 'dispatch', updated_at = now()
         where company_id = ${companyId} and message_id = ${messageId} and state = 'held'`.execute(trx);
      if (Number(moved.numAffectedRows ?? 0) === 0) return;
      resumed++;
      // Every worker's idle lanes look now, as at a send's start.
      await sql`select pg_notify(${SEND_STARTED_CHANNEL}, '')`.execute(trx);
    });
  }
  return resumed;
}
