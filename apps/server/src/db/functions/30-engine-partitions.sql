-- Month partitions of delivery_reports and recipient_gateway_ids, created ahead by the engine's
-- maintenance (and by a send's start, should its month be missing). These run as the owner
-- (SECURITY DEFINER) because creating, dropping and analyzing a table take its owner, and the
-- application's role owns nothing (db/app-role.ts: it would step around row-level security).
--
-- A month's partitions of both tables, walled like their parents: row-level security forced, the
-- InitPlan form of the tenant policy, nothing granted to sms_app on the partition itself (the
-- application reaches rows through the parents' policies only). The recipients' at fillfactor 50:
-- a recipient row grows by its provider id, submission time and provider status at hand-over, and
-- its new version must find room on its own page to be a HOT update; the versions the hand-over
-- leaves behind are pruned when a delivery report next reads the page, which makes room for that
-- report's version.
create or replace function ensure_delivery_report_partition(at timestamp with time zone)
 returns text
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
declare
  month_start date := date_trunc('month', at at time zone 'UTC')::date;
  suffix text := to_char(month_start, '"_y"YYYY"m"MM');
  parent text;
  partition_name text;
begin
  if to_regclass('delivery_reports' || suffix) is not null and to_regclass('recipient_gateway_ids' || suffix) is not null then
    return 'delivery_reports' || suffix;
  end if;
  -- Two workers creating the same month wait for each other instead of colliding.
  perform pg_advisory_xact_lock(hashtext('delivery_reports partition'));
  foreach parent in array array['delivery_reports', 'recipient_gateway_ids'] loop
    partition_name := parent || suffix;
    continue when to_regclass(partition_name) is not null;
    execute format(
      'create table %I partition of %I for values from (%L) to (%L)%s',
      partition_name, parent, month_start::timestamp at time zone 'UTC',
      (month_start + interval '1 month')::timestamp at time zone 'UTC',
      case when parent = 'delivery_reports' then ' with (fillfactor = 50)' else '' end);
    execute format('revoke all on table %I from sms_app', partition_name);
    execute format('alter table %I enable row level security, force row level security', partition_name);
    execute format(
      'create policy tenant_isolation on %I using ((select app_platform_scope()) or company_id = (select app_company_id())) '
      'with check ((select app_platform_scope()) or company_id = (select app_company_id()))',
      partition_name);
  end loop;
  return 'delivery_reports' || suffix;
end $function$;
revoke execute on function ensure_delivery_report_partition(at timestamp with time zone) from public;

-- Drops any company's recipients: the engine's maintenance, in the platform scope only.
create or replace function drop_delivery_report_partitions_before(cutoff timestamp with time zone)
 returns setof text
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
declare
  keep_from date := least(date_trunc('month', cutoff at time zone 'UTC'), date_trunc('month', now() at time zone 'UTC'))::date;
  child record;
begin
  if not app_platform_scope() then
    raise exception 'recipient partitions are dropped in the platform scope only'
      using errcode = 'insufficient_privilege';
  end if;
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
end $function$;
revoke execute on function drop_delivery_report_partitions_before(cutoff timestamp with time zone) from public;


create or replace function analyze_delivery_report_partition(at timestamp with time zone, rows_written bigint)
 returns boolean
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
declare
  partition regclass := to_regclass('delivery_reports' || to_char(date_trunc('month', at at time zone 'UTC'), '"_y"YYYY"m"MM'));
begin
  -- reltuples is -1 for a partition never analyzed (or vacuumed).
  if partition is null or (select reltuples from pg_class where oid = partition) >= rows_written then
    return false;
  end if;
  execute format('analyze %s', partition);
  return true;
end $function$;
revoke execute on function analyze_delivery_report_partition(at timestamp with time zone, rows_written bigint) from public;
