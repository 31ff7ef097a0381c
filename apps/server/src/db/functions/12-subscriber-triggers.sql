-- What a statement on subscribers keeps in step, in one statement-level trigger function:
-- - the rollups: created subscribers count in their creation hour; active ones move the active
--   total at the hour of the change (an insert at its creation time, so backdated loads land in
--   their past);
-- - company_subscriber_counts, the totals per company and status the subscriber list reads instead
--   of counting millions of rows.
create or replace function subscribers_changed()
 returns trigger
 language plpgsql
as $function$
begin
  if tg_op = 'INSERT' then
    perform record_activity(array(
      select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, 0, count(*),
                 count(*) filter (where status = 'active'), 0, 0)::activity_delta
        from new_rows group by company_id, date_trunc('hour', created_at, 'UTC')));
  elsif tg_op = 'UPDATE' then
    perform record_activity(array(
      select row(company_id, at, 0, 0, 0, 0, 0, 0, 0, 0, sum(created), sum(active), 0, 0)::activity_delta
        from (select company_id, date_trunc('hour', created_at, 'UTC') as at, 1 as created, 0 as active from new_rows
              union all select company_id, date_trunc('hour', created_at, 'UTC'), -1, 0 from old_rows
              union all select company_id, now(), 0, 1 from new_rows where status = 'active'
              union all select company_id, now(), 0, -1 from old_rows where status = 'active') x
       group by company_id, at));
  else
    perform record_activity(array(
      select row(company_id, at, 0, 0, 0, 0, 0, 0, 0, 0, sum(created), sum(active), 0, 0)::activity_delta
        from (select company_id, date_trunc('hour', created_at, 'UTC') as at, -1 as created, 0 as active from old_rows
              union all select company_id, now(), 0, -1 from old_rows where status = 'active') x
       group by company_id, at));
  end if;

  if tg_op in ('INSERT', 'UPDATE') then
    insert into company_subscriber_counts as c (company_id, status, subscriber_count)
    select company_id, status, count(*) from new_rows group by company_id, status order by company_id, status
    on conflict (company_id, status) do update set subscriber_count = c.subscriber_count + excluded.subscriber_count;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    update company_subscriber_counts c set subscriber_count = c.subscriber_count - d.n
      from (select company_id, status, count(*) as n from old_rows group by company_id, status) d
     where c.company_id = d.company_id and c.status = d.status;
  end if;
  return null;
end $function$;

drop trigger if exists subscribers_inserted on subscribers;
create trigger subscribers_inserted after insert on subscribers referencing new table as new_rows for each statement execute function subscribers_changed();
drop trigger if exists subscribers_updated on subscribers;
create trigger subscribers_updated after update on subscribers referencing old table as old_rows new table as new_rows for each statement execute function subscribers_changed();
drop trigger if exists subscribers_deleted on subscribers;
create trigger subscribers_deleted after delete on subscribers referencing old table as old_rows for each statement execute function subscribers_changed();

-- What a statement on subscriptions keeps in step, in one statement-level trigger function:
-- - each service's count of active subscriptions (services.subscriber_count);
-- - webhook_events, the webhook outbox, as 11-message-triggers.sql writes it for messages:
--   subscriber.subscribed when a subscription became active (new, or back from unsubscribed),
--   subscriber.unsubscribed when an active one ended; in each company's shared webhook lock, in the
--   statement's key order, only for a company with an enabled endpoint that wants the type.
create or replace function subscriptions_changed()
 returns trigger
 language plpgsql
 set search_path to 'public', 'pg_temp'
as $function$
begin
  if tg_op = 'INSERT' then
    update services s set subscriber_count = s.subscriber_count + d.delta
      from (select company_id, service_id, count(*) as delta
              from new_rows where status = 'active' group by company_id, service_id) d
     where s.company_id = d.company_id and s.id = d.service_id;
  elsif tg_op = 'DELETE' then
    update services s set subscriber_count = s.subscriber_count - d.delta
      from (select company_id, service_id, count(*) as delta
              from old_rows where status = 'active' group by company_id, service_id) d
     where s.company_id = d.company_id and s.id = d.service_id;
    return null;
  else
    update services s set subscriber_count = s.subscriber_count + d.delta
      from (
        select coalesce(n.company_id, o.company_id) as company_id, coalesce(n.service_id, o.service_id) as service_id,
               sum((n.status = 'active')::int - (o.status = 'active')::int) as delta
          from new_rows n
          full join old_rows o on n.service_id = o.service_id and n.subscriber_id = o.subscriber_id
         group by 1, 2
      ) d
     where s.company_id = d.company_id and s.id = d.service_id and d.delta <> 0;
  end if;

  if not exists (select 1 from webhook_endpoints where enabled) then
    return null;
  end if;
  perform pg_advisory_xact_lock_shared(7201556, c.company_id::int) from (select distinct company_id from new_rows) c
   where exists (select 1 from webhook_endpoints w where w.company_id = c.company_id and w.enabled)
   order by c.company_id;
  -- Two statements: an insert has no old rows to name.
  if tg_op = 'INSERT' then
    insert into webhook_events (company_id, type, subject, payload)
    select n.company_id, 'subscriber.subscribed', 'subscriber:' || n.subscriber_id,
           jsonb_build_object('subscriberId', n.subscriber_id, 'msisdn', s.msisdn, 'serviceId', n.service_id,
                              'status', n.status, 'source', n.source, 'at', n.subscribed_at)
      from new_rows n
      join subscribers s on s.company_id = n.company_id and s.id = n.subscriber_id
     where n.status = 'active'
       and exists (select 1 from webhook_endpoints w
                    where w.company_id = n.company_id and w.enabled and 'subscriber.subscribed' = any(w.event_types))
     order by n.company_id, n.subscriber_id, n.service_id;
  else
    insert into webhook_events (company_id, type, subject, payload)
    select n.company_id, e.type, 'subscriber:' || n.subscriber_id,
           jsonb_build_object('subscriberId', n.subscriber_id, 'msisdn', s.msisdn, 'serviceId', n.service_id,
                              'status', n.status, 'source', n.source,
                              'at', case when n.status = 'active' then n.subscribed_at
                                         else coalesce(n.unsubscribed_at, now()) end)
      from new_rows n
      join subscribers s on s.company_id = n.company_id and s.id = n.subscriber_id
     cross join lateral (select case when n.status = 'active' then 'subscriber.subscribed'
                                     else 'subscriber.unsubscribed' end as type) e
     where not exists (select 1 from old_rows o
                        where o.company_id = n.company_id and o.service_id = n.service_id
                          and o.subscriber_id = n.subscriber_id and o.status = n.status)
       and exists (select 1 from webhook_endpoints w
                    where w.company_id = n.company_id and w.enabled and e.type = any(w.event_types))
     order by n.company_id, n.subscriber_id, n.service_id;
  end if;
  return null;
end $function$;

drop trigger if exists subscriptions_inserted on subscriptions;
create trigger subscriptions_inserted after insert on subscriptions referencing new table as new_rows for each statement execute function subscriptions_changed();
drop trigger if exists subscriptions_updated on subscriptions;
create trigger subscriptions_updated after update on subscriptions referencing old table as old_rows new table as new_rows for each statement execute function subscriptions_changed();
drop trigger if exists subscriptions_deleted on subscriptions;
create trigger subscriptions_deleted after delete on subscriptions referencing old table as old_rows for each statement execute function subscriptions_changed();

-- Statistics of the subscriber tables, refreshed by an import that added many rows: right after
-- importing 5,000 subscribers into a company the planner still believed it had none, and a send's
-- recipient count and preview took 22-48 s until autovacuum analysed the tables. ANALYZE needs the
-- tables' owner, so the app's role reaches it through this function; it takes no arguments and
-- can do nothing but refresh statistics (a sample of at most 30,000 rows per table at the default
-- target: bounded, whatever the table's size).
create or replace function analyze_subscriber_tables()
 returns void
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
begin
  analyze subscribers;
  analyze subscriptions;
end $function$;
revoke execute on function analyze_subscriber_tables() from public;
