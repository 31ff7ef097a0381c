-- A status move, the one rule every one goes through (the fan-out, the hand-over, delivery reports,
-- the upkeep): first the per-message counters move by (p_moved_ids, p_statuses, p_deltas), then
-- the sends and messages of p_settle_ids follow from the counters. Returns the messages whose
-- status changed.
--
-- The counters: one row per message and shard (this session's: pg_backend_pid() modulo 8, so
-- concurrent batches of one send rarely wait on the same row; readers sum the shards), messages in
-- id order (no deadlocks between batches).
--
-- Settling: a send whose fan-out is done and that has no pending recipient is handed over (done);
-- its message is then sent while any recipient waits for its delivery report, delivered once all
-- are final and any was delivered, failed when all failed. The sends' rows are locked (in id order)
-- before the statement that moves them, which so starts after any settle committing meanwhile: the
-- engine's own may be moving a send to 'done' right now, and a statement whose snapshot predated
-- that commit would skip the row (no longer 'dispatch') without seeing it 'done' either, and leave
-- the message 'sent'.
-- Nothing is written (and no trigger runs) unless a send or message moves: the hand-over settles
-- after every batch.
-- plpgsql: planned once per session instead of once per batch.
create or replace function record_send_progress(p_company_id bigint, p_moved_ids bigint[], p_statuses text[], p_deltas integer[], p_settle_ids bigint[])
 returns TABLE(id bigint, status text)
 language plpgsql
as $function$
#variable_conflict use_column
begin
  if cardinality(p_moved_ids) > 0 then
    insert into message_delivery_counts as c
           (company_id, message_id, shard, pending, submitted, sent, delivered, failed, rejected, expired)
    select p_company_id, x.message_id, (pg_backend_pid() % 8)::smallint,
           coalesce(sum(x.delta) filter (where x.status = 'pending'), 0),
           coalesce(sum(x.delta) filter (where x.status = 'submitted'), 0),
           coalesce(sum(x.delta) filter (where x.status = 'sent'), 0),
           coalesce(sum(x.delta) filter (where x.status = 'delivered'), 0),
           coalesce(sum(x.delta) filter (where x.status = 'failed'), 0),
           coalesce(sum(x.delta) filter (where x.status = 'rejected'), 0),
           coalesce(sum(x.delta) filter (where x.status = 'expired'), 0)
      from unnest(p_moved_ids, p_statuses, p_deltas) as x(message_id, status, delta)
     group by x.message_id
     order by x.message_id
    on conflict (company_id, message_id, shard) do update set
      pending = c.pending + excluded.pending,
      submitted = c.submitted + excluded.submitted,
      sent = c.sent + excluded.sent,
      delivered = c.delivered + excluded.delivered,
      failed = c.failed + excluded.failed,
      rejected = c.rejected + excluded.rejected,
      expired = c.expired + excluded.expired;
  end if;
  if cardinality(p_settle_ids) = 0 or not exists (
    with totals as (
      select t.message_id, t.pending, t.submitted + t.sent as in_flight, t.delivered, t.total
        from message_delivery_totals t
       where t.company_id = p_company_id and t.message_id = any(p_settle_ids)
    )
    select 1
      from message_sends s
      left join totals t on t.message_id = s.message_id
     where s.company_id = p_company_id and s.message_id = any(p_settle_ids)
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
   where s.company_id = p_company_id and s.message_id = any(p_settle_ids)
   order by s.message_id
     for update;
  return query
  with totals as (
    select t.message_id, t.pending, t.submitted + t.sent as in_flight, t.delivered, t.total
      from message_delivery_totals t
     where t.company_id = p_company_id and t.message_id = any(p_settle_ids)
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
     where s.company_id = p_company_id and s.message_id = any(p_settle_ids) and s.state = 'done'
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
end $function$;
