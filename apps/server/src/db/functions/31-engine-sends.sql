-- Rebuilds the engine's per-message state of outbound messages that have none (rows moved here,
-- or loaded by the demo seed): their send state, their recipient counts and the monthly usage.
create or replace function backfill_message_sends()
 returns void
 language plpgsql
as $function$
begin
  create temporary table backfill_totals on commit drop as
  select d.company_id, d.message_id, min(d.created_at) as recipients_at, count(*)::int as recipients,
         count(*) filter (where d.status = 'pending')::int as pending,
         count(*) filter (where d.status = 'submitted')::int as submitted,
         count(*) filter (where d.status = 'sent')::int as sent,
         count(*) filter (where d.status = 'delivered')::int as delivered,
         count(*) filter (where d.status = 'failed')::int as failed,
         count(*) filter (where d.status = 'rejected')::int as rejected,
         count(*) filter (where d.status = 'expired')::int as expired,
         sum(d.parts)::int as units
    from delivery_reports d
   where not exists (select 1 from message_sends s where s.company_id = d.company_id and s.message_id = d.message_id)
   group by d.company_id, d.message_id;

  insert into message_delivery_counts (company_id, message_id, shard, pending, submitted, sent, delivered, failed, rejected, expired)
  select company_id, message_id, 0, pending, submitted, sent, delivered, failed, rejected, expired from backfill_totals;

  insert into message_sends (company_id, message_id, state, fanout_cursor, recipients_at, recipients, reserved_units,
                             usage_month, started_at, fanout_finished_at, handed_over_at)
  select t.company_id, t.message_id,
         case when t.pending > 0 then 'dispatch' else 'done' end,
         (select coalesce(max(d.subscriber_id), 0) from delivery_reports d
           where d.company_id = t.company_id and d.message_id = t.message_id and d.created_at = t.recipients_at),
         t.recipients_at, t.recipients, t.units, date_trunc('month', t.recipients_at at time zone 'UTC')::date,
         t.recipients_at, t.recipients_at, case when t.pending = 0 then coalesce(m.sent_at, t.recipients_at) end
    from backfill_totals t join messages m on m.id = t.message_id;

  insert into company_monthly_usage as u (company_id, month, messages_used)
  select company_id, date_trunc('month', recipients_at at time zone 'UTC')::date, sum(units)
    from backfill_totals group by 1, 2
  on conflict (company_id, month) do update set messages_used = u.messages_used + excluded.messages_used;

  -- Sends not started yet: queued ones and scheduled ones (the engine gives them a job if they lack one).
  insert into message_sends (company_id, message_id, state)
  select m.company_id, m.id, 'waiting'
    from messages m
   where m.direction = 'outbound' and m.status in ('queued', 'scheduled')
     and not exists (select 1 from message_sends s where s.company_id = m.company_id and s.message_id = m.id);
  drop table backfill_totals;
end $function$;
revoke execute on function backfill_message_sends() from public;
revoke execute on function backfill_message_sends() from sms_app;

-- The per-message counters' upsert (recordCountChanges in delivery-counts.ts), the one rule every
-- status move goes through: the fan-out, the hand-over and delivery reports. One row per message
-- and shard (this session's: pg_backend_pid() modulo 8, so concurrent batches of one send rarely wait
-- on the same row; readers sum the shards), messages in id order (no deadlocks between batches).
-- plpgsql: planned once per session instead of once per batch.
create or replace function record_count_changes(p_company_id bigint, p_message_ids bigint[], p_statuses text[], p_deltas integer[])
 returns void
 language plpgsql
as $function$
begin
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
    from unnest(p_message_ids, p_statuses, p_deltas) as x(message_id, status, delta)
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
end $function$;


create or replace function settle_sends(p_company_id bigint, p_message_ids bigint[])
 returns TABLE(id bigint, status text)
 language plpgsql
as $function$
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
end $function$;
