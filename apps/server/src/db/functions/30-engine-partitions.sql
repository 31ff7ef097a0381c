-- Month partitions of delivery_reports and recipient_gateway_ids: the three things done to them
-- take their owner (creating, dropping and analyzing a table), and the application's role owns
-- nothing (db/app-role.ts: it would step around row-level security), so they are this one
-- SECURITY DEFINER function (named for its usual action, the one 90-delivery-report-months.sql,
-- the demo seed and the tests call):
--   'ensure'  creates the month of p_at (the engine's upkeep keeps months ahead; a send's start
--             creates its own should it be missing); returns its name.
--   'analyze' refreshes the statistics of the month of p_at while they count fewer rows than
--             p_rows (a fresh month the planner would otherwise scan whole); returns its name if
--             it analyzed.
--   'drop'    drops every month before p_at's (never the current one), in the platform scope only
--             (it drops any company's recipients); returns the names dropped.
--
-- A month's partitions are walled like their parents: row-level security forced, the InitPlan form
-- of the tenant policy, nothing granted to sms_app on the partition itself (the application reaches
-- rows through the parents' policies only). The recipients' at fillfactor 50: a recipient row grows
-- by its provider id, submission time and provider status at hand-over, and its new version must
-- find room on its own page to be a HOT update.
create or replace function ensure_delivery_report_partition(p_at timestamp with time zone, p_action text default 'ensure', p_rows bigint default null)
 returns setof text
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
declare
  month_start date := date_trunc('month', p_at at time zone 'UTC')::date;
  suffix text := to_char(month_start, '"_y"YYYY"m"MM');
  parent text;
  child text;
begin
  if p_action = 'ensure' then
    if to_regclass('delivery_reports' || suffix) is null or to_regclass('recipient_gateway_ids' || suffix) is null then
      -- Two workers creating the same month wait for each other instead of colliding.
      perform pg_advisory_xact_lock(hashtext('delivery_reports partition'));
      foreach parent in array array['delivery_reports', 'recipient_gateway_ids'] loop
        child := parent || suffix;
        continue when to_regclass(child) is not null;
        execute format(
          'create table %I partition of %I for values from (%L) to (%L)%s',
          child, parent, month_start::timestamp at time zone 'UTC',
          (month_start + interval '1 month')::timestamp at time zone 'UTC',
          case when parent = 'delivery_reports' then ' with (fillfactor = 50)' else '' end);
        execute format('revoke all on table %I from sms_app', child);
        execute format('alter table %I enable row level security, force row level security', child);
        execute format(
          'create policy tenant_isolation on %I using ((select app_platform_scope()) or company_id = (select app_company_id())) '
          'with check ((select app_platform_scope()) or company_id = (select app_company_id()))',
          child);
      end loop;
    end if;
    return next 'delivery_reports' || suffix;
  elsif p_action = 'analyze' then
    child := 'delivery_reports' || suffix;
    -- reltuples is -1 for a partition never analyzed (or vacuumed).
    if to_regclass(child) is not null and (select reltuples from pg_class where oid = to_regclass(child)) < p_rows then
      execute format('analyze %I', child);
      return next child;
    end if;
  elsif p_action = 'drop' then
    if not app_platform_scope() then
      raise exception 'recipient partitions are dropped in the platform scope only'
        using errcode = 'insufficient_privilege';
    end if;
    for child in
      select c.relname
        from pg_inherits i join pg_class c on c.oid = i.inhrelid
       where i.inhparent in ('delivery_reports'::regclass, 'recipient_gateway_ids'::regclass)
         and c.relname ~ '_y[0-9]{4}m[0-9]{2}$'
         and to_date(right(c.relname, 8), '"y"YYYY"m"MM') < least(month_start, date_trunc('month', now() at time zone 'UTC')::date)
       order by c.relname
    loop
      execute format('drop table %I', child);
      return next child;
    end loop;
  else
    raise exception 'unknown partition action %', p_action;
  end if;
end $function$;
revoke execute on function ensure_delivery_report_partition(timestamp with time zone, text, bigint) from public;
