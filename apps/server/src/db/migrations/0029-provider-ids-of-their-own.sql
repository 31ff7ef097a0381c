-- Provider ids in a table of their own, so the hand-over's update of a recipient is a HOT update
-- (docs/decisions/0011-engine-throughput.md, 2026-11-23 night).
--
-- The hand-over wrote the provider id into the recipient row, and delivery_reports_gateway_idx
-- covered that column: no hand-over could be a HOT update, so every one wrote a new row version
-- elsewhere plus an entry in each index of the partition (about 60 % of PostgreSQL's statement
-- time in a bulk send). Now delivery reports find their recipient through recipient_gateway_ids,
-- written only by inserts, in the hand-over's own statement; the recipient row keeps its
-- gateway_message_id (the message details show it) but no index covers it. With no indexed column
-- changing (the key's columns never change; next_attempt_at, of the retry index, stays null for an
-- accepted recipient) and room on the page (fillfactor below), the hand-over's update and the
-- delivery reports' later ones are HOT updates.

-- One row per provider id handed out: where its recipient lives (the recipient key). Partitioned by
-- the recipient's month like delivery_reports (created ahead and dropped with it, by the same
-- functions below), so a report's lookup prunes the same months.
create table recipient_gateway_ids (
  company_id bigint not null,
  gateway_message_id text not null,
  -- The recipient's created_at (its partition key) and the rest of its key.
  created_at timestamptz(3) not null,
  message_id bigint not null,
  id bigint not null,
  -- Not unique by provider id alone: two recipients may carry one id (providers are not bound to
  -- give unique ids across accounts), and a report then reaches both, as it did through the index.
  primary key (company_id, gateway_message_id, id, created_at) include (message_id)
) partition by range (created_at);

alter table recipient_gateway_ids enable row level security, force row level security;
create policy tenant_isolation on recipient_gateway_ids
  using ((select app_platform_scope()) or company_id = (select app_company_id()))
  with check ((select app_platform_scope()) or company_id = (select app_company_id()));

create function recipient_gateway_partition_name(month_start date) returns text
  language sql immutable as $$
  select format('recipient_gateway_ids_y%sm%s', to_char(month_start, 'YYYY'), to_char(month_start, 'MM'))
$$;

-- One month's partition of a tenant-owned table, walled like its parent: row-level security forced,
-- the InitPlan form of the tenant policy, nothing granted to sms_app on the partition itself.
-- p_storage: a WITH clause's storage parameters, or null. Called by the partition functions below
-- (SECURITY DEFINER), never by the application.
create function create_tenant_month_partition(p_parent regclass, p_name text, p_month_start date, p_storage text)
  returns void language plpgsql set search_path = public, pg_temp as $$
begin
  execute format(
    'create table %I partition of %s for values from (%L) to (%L)%s',
    p_name, p_parent, p_month_start::timestamp at time zone 'UTC',
    (p_month_start + interval '1 month')::timestamp at time zone 'UTC',
    coalesce(' with (' || p_storage || ')', ''));
  execute format('revoke all on table %I from sms_app', p_name);
  execute format('alter table %I enable row level security, force row level security', p_name);
  execute format(
    'create policy tenant_isolation on %I using ((select app_platform_scope()) or company_id = (select app_company_id())) '
    'with check ((select app_platform_scope()) or company_id = (select app_company_id()))',
    p_name);
end $$;
revoke execute on function create_tenant_month_partition(regclass, text, date, text) from public;

-- A month's partitions of both tables. The recipients' at fillfactor 50 (85 before): a recipient row
-- grows by its provider id, submission time and provider status at hand-over, and its new version
-- must find room on its own page to be a HOT update; the versions the hand-over leaves behind are
-- pruned when a delivery report next reads the page, which makes room for that report's version.
create or replace function ensure_delivery_report_partition(at timestamptz) returns text
  language plpgsql security definer set search_path = public, pg_temp as $$
declare
  month_start date := date_trunc('month', at at time zone 'UTC')::date;
  partition_name text := delivery_report_partition_name(month_start);
  gateway_partition text := recipient_gateway_partition_name(month_start);
begin
  if to_regclass(partition_name) is not null and to_regclass(gateway_partition) is not null then
    return partition_name;
  end if;
  -- Two workers creating the same month wait for each other instead of colliding.
  perform pg_advisory_xact_lock(hashtext('delivery_reports partition'));
  if to_regclass(partition_name) is null then
    perform create_tenant_month_partition('delivery_reports', partition_name, month_start, 'fillfactor = 50');
  end if;
  if to_regclass(gateway_partition) is null then
    perform create_tenant_month_partition('recipient_gateway_ids', gateway_partition, month_start, null);
  end if;
  return partition_name;
end $$;

-- Retention: whole months of both tables go at once. Never the current month or a later one.
create or replace function drop_delivery_report_partitions_before(cutoff timestamptz) returns setof text
  language plpgsql security definer set search_path = public, pg_temp as $$
declare
  keep_from date := least(date_trunc('month', cutoff at time zone 'UTC'), date_trunc('month', now() at time zone 'UTC'))::date;
  child record;
begin
  for child in
    select c.relname
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where (i.inhparent = 'delivery_reports'::regclass
            and c.relname ~ '^delivery_reports_y[0-9]{4}m[0-9]{2}$'
            and to_date(substr(c.relname, 19, 4) || substr(c.relname, 24, 2), 'YYYYMM') < keep_from)
        or (i.inhparent = 'recipient_gateway_ids'::regclass
            and c.relname ~ '^recipient_gateway_ids_y[0-9]{4}m[0-9]{2}$'
            and to_date(substr(c.relname, 24, 4) || substr(c.relname, 29, 2), 'YYYYMM') < keep_from)
     order by c.relname
  loop
    execute format('drop table %I', child.relname);
    return next child.relname;
  end loop;
end $$;

-- The months that exist get their provider-id partitions, and the provider ids already handed out.
select ensure_delivery_report_partition(to_date(substr(c.relname, 19, 4) || substr(c.relname, 24, 2), 'YYYYMM')::timestamp
                                        at time zone 'UTC')
  from pg_inherits i join pg_class c on c.oid = i.inhrelid
 where i.inhparent = 'delivery_reports'::regclass and c.relname ~ '^delivery_reports_y[0-9]{4}m[0-9]{2}$';
insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
select company_id, gateway_message_id, created_at, message_id, id
  from delivery_reports
 where gateway_message_id is not null
on conflict do nothing;

-- Existing months' partitions leave the same room on the pages they fill from now on.
do $$
declare
  child record;
begin
  for child in
    select c.relname
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'delivery_reports'::regclass and c.relname ~ '^delivery_reports_y[0-9]{4}m[0-9]{2}$'
  loop
    execute format('alter table %I set (fillfactor = 50)', child.relname);
  end loop;
end $$;

drop index delivery_reports_gateway_idx;

-- apply_delivery_reports (migration 0024) finds each reported recipient through recipient_gateway_ids
-- instead of an index of delivery_reports. Same rule, same results: the lookup is bounded to the
-- report window's months on both tables (partitions outside it are pruned when the statement
-- starts), each recipient row is locked before it is read for its status (FOR UPDATE of d: a
-- concurrent batch's change is seen after the lock) and found again by its primary key for the
-- update. The index-only join preferences stay with the function.
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
  -- Each id looked up once and its recipient row locked: a concurrent batch's change is seen after the lock.
  -- The provider id's row is read per reported id (a lateral subquery the planner cannot flatten):
  -- a month's provider ids have no statistics until autovacuum's first analyze, and the planner
  -- then read a whole company's ids and every recipient of them for each batch.
  found as (
    select d.company_id, d.message_id, d.id, d.created_at, d.status as old_status,
           i.gid, i.status, i.provider_status, i.error, i.at, i.rank
      from input i
      cross join lateral (
        select g.message_id, g.id, g.created_at
          from recipient_gateway_ids g
         where g.company_id = p_company_id and g.gateway_message_id = i.gid
           and g.created_at >= now() - p_window and g.created_at <= now() + interval '1 day'
        offset 0) g
      join delivery_reports d
        on d.company_id = p_company_id and d.message_id = g.message_id and d.id = g.id and d.created_at = g.created_at
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
