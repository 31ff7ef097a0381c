-- apply_delivery_reports (migration 0014) reads fewer index pages per report: the month partitions
-- that cannot hold a reported recipient are left out
-- (docs/decisions/0014-delivery-report-intake.md, fourth pass). Same rule, same results:
-- - The lookup by provider id is bounded above as well as below (created_at <= now() + 1 day): the
--   month partitions created ahead of time hold no recipient yet, and each of them cost every report
--   an index descent. Now they are pruned when the statement starts, like the months past the window.
--   (A recipient's created_at is the moment its send's fan-out began, never after the report; the
--   day of slack covers clocks, not rules.)
-- - The update, which finds each locked row again by its primary key, carries the same bounds, so
--   the partitions outside them are left out of it as well.
-- (Finding the row again by the ctid the lookup returned instead was tried: after waiting for a
-- concurrent batch, FOR UPDATE returns the address of the version it first saw, not of the one it
-- locked, and the report was lost. test/delivery-report-apply.test.ts has that race.)
-- The index-only join preferences of migration 0017 stay with the function.
create or replace function apply_delivery_reports(
  p_company_id bigint,
  p_ids text[],
  p_statuses text[],
  p_provider_statuses text[],
  p_errors text[],
  p_ats timestamptz[],
  p_window interval,
  p_keep_unknown boolean
) returns table (gid text, message_id bigint, old_status text, new_status text)
  language plpgsql
  set enable_hashjoin = off
  set enable_mergejoin = off
  set enable_seqscan = off
as $$
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
       and d.created_at >= now() - p_window and d.created_at <= now() + interval '1 day'
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
       and d.created_at >= now() - p_window and d.created_at <= now() + interval '1 day'
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
