-- Delivery-report intake (docs/decisions/0014-delivery-report-intake.md).

-- The counters' rollup trigger returns at once when its statement changed no counter row. An
-- INSERT ... ON CONFLICT DO UPDATE fires both statement triggers, insert and update, and every
-- delivery-report batch upserts a counter row that exists: its insert trigger ran the three rollup
-- upserts over an empty transition table each time. Otherwise as migration 0009 wrote it.
create or replace function delivery_counts_activity() returns trigger language plpgsql as $$
begin
  if not exists (select 1 from new_rows) then
    return null;
  end if;
  if tg_op = 'INSERT' then
    perform record_activity(array(
      select row(d.company_id, message_send_hour(d.company_id, d.message_id), d.pending, d.submitted, d.sent,
                 d.delivered, d.failed, d.rejected, d.expired, 0, 0, 0, 0, 0)::activity_delta
        from (select company_id, message_id, sum(pending) as pending, sum(submitted) as submitted, sum(sent) as sent,
                     sum(delivered) as delivered, sum(failed) as failed, sum(rejected) as rejected, sum(expired) as expired
                from new_rows group by company_id, message_id) d));
  else
    perform record_activity(array(
      select row(d.company_id, message_send_hour(d.company_id, d.message_id), d.pending, d.submitted, d.sent,
                 d.delivered, d.failed, d.rejected, d.expired, 0, 0, 0, 0, 0)::activity_delta
        from (select company_id, message_id, sum(pending) as pending, sum(submitted) as submitted, sum(sent) as sent,
                     sum(delivered) as delivered, sum(failed) as failed, sum(rejected) as rejected, sum(expired) as expired
                from (select company_id, message_id, pending, submitted, sent, delivered, failed, rejected, expired
                        from new_rows
                      union all
                      select company_id, message_id, -pending, -submitted, -sent, -delivered, -failed, -rejected, -expired
                        from old_rows) x
               group by company_id, message_id) d));
  end if;
  return null;
end $$;

-- One batch of one company's delivery reports (applyDeliveryUpdates in delivery-reports.ts):
-- each provider id takes its most advanced report of the batch; its recipient row is found by the
-- provider-id index and locked; the row moves only forward (pending < submitted < sent < final,
-- a final status is never replaced), so repeats and late intermediate reports change nothing;
-- ids no recipient carries are kept in unmatched_delivery_reports when p_keep_unknown. Returns one
-- row per recipient found: new_status is null when the report changed nothing.
--
-- A function, so its statement is planned once per session, not per batch: planning an UPDATE of
-- the partitioned table (every partition a result relation, each with its policy) took longer than
-- running it for a few hundred rows. The caller sets the index-only join preferences first
-- (preferIndexLookups); partitions outside the report window are pruned when the plan runs.
-- Security invoker: the caller's tenant binding and row-level security apply.
create function apply_delivery_reports(
  p_company_id bigint,
  p_ids text[],
  p_statuses text[],
  p_provider_statuses text[],
  p_errors text[],
  p_ats timestamptz[],
  p_window interval,
  p_keep_unknown boolean
) returns table (gid text, message_id bigint, old_status text, new_status text)
  language plpgsql as $$
#variable_conflict use_column
begin
  return query
  with input as (
    select distinct on (u.gid) u.gid, u.status, u.provider_status, u.error, u.at, r.rank
      from unnest(p_ids, p_statuses, p_provider_statuses, p_errors, p_ats)
           with ordinality as u(gid, status, provider_status, error, at, ord)
      cross join lateral (select case u.status when 'submitted' then 1 when 'sent' then 2 else 3 end as rank) r
     order by u.gid, r.rank desc, u.ord
  ),
  -- Each id looked up once and its row locked: a concurrent batch's change is seen after the lock.
  found as (
    select d.company_id, d.message_id, d.id, d.created_at, d.status as old_status,
           i.gid, i.status, i.provider_status, i.error, i.at, i.rank
      from input i
      join delivery_reports d
        on d.company_id = p_company_id and d.gateway_message_id = i.gid
       and d.created_at >= now() - p_window
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
    returning d.message_id, d.id, d.status
  ),
  kept as (
    insert into unmatched_delivery_reports (company_id, gateway_message_id, status, provider_status, error_message, reported_at)
    select p_company_id, i.gid, i.status, i.provider_status, i.error, i.at
      from input i
     where p_keep_unknown and i.gid not in (select f.gid from found f)
    on conflict do nothing
  )
  select f.gid, f.message_id, f.old_status, c.status
    from found f
    left join changed c on c.message_id = f.message_id and c.id = f.id;
end $$;
