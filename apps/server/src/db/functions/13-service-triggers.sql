-- What a statement on services keeps in step, in one statement-level trigger function:
-- - service_keyword_claims, the registry that keeps a short code + keyword pair unique across the
--   platform (a sharded table cannot hold a unique index across companies; see the table in the
--   baseline). A taken pair is a unique violation, which the services module turns into its 409.
--   SECURITY DEFINER: the application's role cannot read the registry. An update redoes the claims
--   of the rows whose pair changed only (found with EXCEPT: most updates of services are their
--   counters', kept by the triggers on messages and subscriptions);
-- - the rollups' service totals (a service moved between companies leaves one and joins the other).
create or replace function services_changed()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
begin
  if tg_op = 'INSERT' then
    insert into service_keyword_claims (shortcode, keyword, service_id)
    select upper(n.shortcode), upper(n.keyword), n.id from new_rows n;

    perform record_activity(array(
      select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*),
                 count(*) filter (where status = 'active'))::activity_delta
        from new_rows group by company_id, date_trunc('hour', created_at, 'UTC')));
  elsif tg_op = 'UPDATE' then
    delete from service_keyword_claims k
     using (select id, upper(shortcode), upper(keyword) from new_rows
            except
            select id, upper(shortcode), upper(keyword) from old_rows) c
     where k.service_id = c.id;
    insert into service_keyword_claims (shortcode, keyword, service_id)
    select c.shortcode, c.keyword, c.id
      from (select id, upper(shortcode) as shortcode, upper(keyword) as keyword from new_rows
            except
            select id, upper(shortcode), upper(keyword) from old_rows) c;

    perform record_activity(array(
      select row(company_id, now(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, sum(services), sum(active))::activity_delta
        from (select company_id, 1 as services, (status = 'active')::int as active from new_rows
              union all select company_id, -1, -(status = 'active')::int from old_rows) x
       group by company_id));
  else
    delete from service_keyword_claims k using old_rows o where k.service_id = o.id;

    perform record_activity(array(
      select row(company_id, now(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -count(*), -count(*) filter (where status = 'active'))::activity_delta
        from old_rows group by company_id));
  end if;
  return null;
end $function$;
revoke execute on function services_changed() from public;
revoke execute on function services_changed() from sms_app;

drop trigger if exists services_inserted on services;
create trigger services_inserted after insert on services referencing new table as new_rows for each statement execute function services_changed();
drop trigger if exists services_updated on services;
create trigger services_updated after update on services referencing old table as old_rows new table as new_rows for each statement execute function services_changed();
drop trigger if exists services_deleted on services;
create trigger services_deleted after delete on services referencing old table as old_rows for each statement execute function services_changed();
