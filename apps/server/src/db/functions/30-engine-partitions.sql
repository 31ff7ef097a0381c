-- Month partitions. Created ahead by the engine (and here); the application's role reaches rows
-- through the parent only (its policies), never a partition directly, and each partition carries
-- the same policy should anyone be granted it.
create or replace function delivery_report_partition_name(month_start date)
 returns text
 language sql
 immutable
as $function$
  select format('delivery_reports_y%sm%s', to_char(month_start, 'YYYY'), to_char(month_start, 'MM'))
$function$;


create or replace function recipient_gateway_partition_name(month_start date)
 returns text
 language sql
 immutable
as $function$
  select format('recipient_gateway_ids_y%sm%s', to_char(month_start, 'YYYY'), to_char(month_start, 'MM'))
$function$;

-- One month's partition of a tenant-owned table, walled like its parent: row-level security forced,
-- the InitPlan form of the tenant policy, nothing granted to sms_app on the partition itself.
-- p_storage: a WITH clause's storage parameters, or null. Called by the partition functions below
-- (SECURITY DEFINER), never by the application.
create or replace function create_tenant_month_partition(p_parent regclass, p_name text, p_month_start date, p_storage text)
 returns void
 language plpgsql
 set search_path to 'public', 'pg_temp'
as $function$
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
end $function$;
revoke execute on function create_tenant_month_partition(p_parent regclass, p_name text, p_month_start date, p_storage text) from public;

-- A month's partitions of both tables. The recipients' at fillfactor 50 (85 before): a recipient row
-- grows by its provider id, submission time and provider status at hand-over, and its new version
-- must find room on its own page to be a HOT update; the versions the hand-over leaves behind are
-- pruned when a delivery report next reads the page, which makes room for that report's version.
create or replace function ensure_delivery_report_partition(at timestamp with time zone)
 returns text
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
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
  partition regclass := to_regclass(delivery_report_partition_name(date_trunc('month', at at time zone 'UTC')::date));
begin
  -- reltuples is -1 for a partition never analyzed (or vacuumed).
  if partition is null or (select reltuples from pg_class where oid = partition) >= rows_written then
    return false;
  end if;
  execute format('analyze %s', partition);
  return true;
end $function$;
revoke execute on function analyze_delivery_report_partition(at timestamp with time zone, rows_written bigint) from public;
