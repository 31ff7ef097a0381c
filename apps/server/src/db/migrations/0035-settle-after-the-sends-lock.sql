-- settle_sends locks the sends it settles before it reads them (ADR 0014, "A settle race").
--
-- The engine's own settle (a transaction that moves no counter) can commit a send's move to 'done'
-- while a delivery-report batch's settle_sends runs. That statement's update of message_sends then
-- waits for the engine's commit and skips the row (no longer 'dispatch'), while its read of the
-- finished sends, on the snapshot taken before, does not see it 'done' either: the message keeps
-- 'sent' for good (the sweep of settles only looks at sends still in 'dispatch'). Migration 0032
-- closed it for the inbox's applier by a lock of its own; the sweep of kept reports
-- (take_delivery_reports) and every other caller still had it. Now settle_sends itself locks the
-- sends' rows, in id order, once it knows there is something to settle, so its statement starts
-- with any such commit in its snapshot. Callers take it after the company's rollup rows, as before;
-- the rows it locks are the ones its update was going to lock anyway.

create or replace function settle_sends(p_company_id bigint, p_message_ids bigint[])
  returns table (id bigint, status text)
  language plpgsql as $$
#variable_conflict use_column
begin
  if not exists (
    with totals as (
      select t.message_id, t.pending, t.submitted + t.sent as in_flight, t.delivered, t.total
        from message_delivery_totals t
       where t.company_id = p_company_id and t.message_id = any(p_message_ids)
    )
    select 1
      from message_sends s
      left join totals t on t.message_id = s.message_id
     where s.company_id = p_company_id and s.message_id = any(p_message_ids)
       and ((s.state = 'dispatch' and t.pending = 0)
            or (s.state = 'done' and exists (
                  select 1 from messages m
                   where m.company_id = p_company_id and m.id = s.message_id
                     and m.status in ('processing', 'sent', 'delivered', 'failed')
                     and m.status <> case when coalesce(t.in_flight, 0) > 0 or coalesce(t.total, 0) = 0 then 'sent'
                                          when t.delivered > 0 then 'delivered'
                                          else 'failed' end)))
  ) then
    return;
  end if;
  perform 1 from message_sends s
   where s.company_id = p_company_id and s.message_id = any(p_message_ids)
   order by s.message_id
     for update;
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
