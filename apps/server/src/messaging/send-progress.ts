import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';

/**
 * Moves sends and their messages forward from the recipient counts: a send whose fan-out is done
 * and that has no pending recipient is handed over (done); its message is then sent while any
 * recipient waits for its delivery report, delivered once all are final and any was delivered,
 * failed when all failed. Run after any batch that may have been a send's last; idempotent.
 * Returns the messages whose status changed.
 */
export async function settleSends(trx: Executor, companyId: number, messageIds: readonly number[]) {
  if (messageIds.length === 0) return [];
  const { rows } = await sql<{ id: number; status: string }>`
    with totals as (
      select t.message_id, t.pending, t.submitted + t.sent as in_flight, t.delivered, t.total
        from message_delivery_totals t
       where t.company_id = ${companyId} and t.message_id = any(${messageIds}::bigint[])
    ),
    handed_over as (
      update message_sends s
         set state = 'done', handed_over_at = now(), updated_at = now()
        from totals t
       where s.company_id = ${companyId} and s.message_id = t.message_id
         and s.state = 'dispatch' and t.pending = 0
      returning s.message_id
    ),
    finished as (
      select s.message_id from message_sends s
       where s.company_id = ${companyId} and s.message_id = any(${messageIds}::bigint[]) and s.state = 'done'
      union
      select message_id from handed_over
    ),
    outcome as (
      select f.message_id,
             case when coalesce(t.in_flight, 0) > 0 or coalesce(t.total, 0) = 0 then 'sent'
                  when t.delivered > 0 then 'delivered'
                  else 'failed' end as status
        from finished f left join totals t on t.message_id = f.message_id
    )
    update messages m
       set status = o.status, sent_at = coalesce(m.sent_at, now()), updated_at = now()
      from outcome o
     where m.company_id = ${companyId} and m.id = o.message_id
       and m.status in ('processing', 'sent', 'delivered', 'failed') and m.status <> o.status
    returning m.id, m.status`.execute(trx);
  return rows;
}
