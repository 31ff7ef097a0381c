-- Delivery-report batches with fewer statements and fewer plans (docs/decisions/0014-delivery-report-intake.md).

-- The index-only join preferences travel with the apply function instead of being set by a
-- statement of their own before every call (one round trip less per batch). They hold while the
-- function runs, so its cached plan is made under them, as before (see preferIndexLookups).
alter function apply_delivery_reports(bigint, text[], text[], text[], text[], timestamptz[], interval, boolean)
  set enable_hashjoin = off
  set enable_mergejoin = off
  set enable_seqscan = off;

-- settleSends' statement (send-progress.ts) as a function, so it is planned once per session
-- instead of on every batch of every delivery-report, fan-out and hand-over transaction. The rule
-- is unchanged: a send whose fan-out is done and that has no pending recipient is handed over
-- (done); its message is then sent while any recipient waits for its report, delivered once all are
-- final and any was delivered, failed when all failed. Returns the messages whose status changed.
-- Security invoker: the caller's tenant binding and row-level security apply.
create function settle_sends(p_company_id bigint, p_message_ids bigint[])
  returns table (id bigint, status text)
  language plpgsql as $$
#variable_conflict use_column
begin
  return query
  with totals as (
    select t.message_id, t.pending, t.submitted + t.sent as in_flight, t.delivered, t.total
      from message_delivery_totals t
     where t.company_id = p_company_id and t.message_id = any(p_message_ids)
  ),
  handed_over as (
    update message_sends s
       set state = 'done', handed_over_at = now(), updated_at = now()
      from totals t
     where s.company_id = p_company_id and s.message_id = t.message_id
       and s.state = 'dispatch' and t.pending = 0
    returning s.message_id
  ),
  finished as (
    select s.message_id from message_sends s
     where s.company_id = p_company_id and s.message_id = any(p_message_ids) and s.state = 'done'
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
   where m.company_id = p_company_id and m.id = o.message_id
     and m.status in ('processing', 'sent', 'delivered', 'failed') and m.status <> o.status
  returning m.id, m.status;
end $$;
