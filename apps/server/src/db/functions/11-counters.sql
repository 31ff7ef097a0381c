create or replace function messages_count_changes()
 returns trigger
 language plpgsql
as $function$
begin
  update services s set message_count = s.message_count + d.delta,
                        last_activity_at = greatest(s.last_activity_at, d.latest)
    from (
      select company_id,
             unnest(case when cardinality(service_ids) > 0 then service_ids else array[service_id] end) as sid,
             count(*) as delta, max(created_at) as latest
        from new_rows group by 1, 2
    ) d
   where s.company_id = d.company_id and s.id = d.sid;
  return null;
end $function$;

drop trigger if exists messages_count_insert on messages;
create trigger messages_count_insert after insert on messages referencing new table as new_rows for each statement execute function messages_count_changes();

-- One statement's change: +1 for each new row, -1 for each old row, per (company, direction,
-- status), only where it is not zero (an update that leaves the status alone writes nothing).
-- Upserts in key order: two statements never wait on each other's rows in opposite orders. A
-- company being deleted (its messages go by cascade) gets no rows back. Three static statements
-- (plpgsql prepares each once per connection), one per kind of change.
create or replace function messages_status_counts()
 returns trigger
 language plpgsql
as $function$
begin
  if tg_op = 'INSERT' then
    insert into message_status_counts as c (company_id, direction, status, shard, messages)
    select n.company_id, n.direction, n.status, pg_backend_pid() % 8, count(*)
      from new_rows n
     where exists (select 1 from companies co where co.id = n.company_id)
     group by 1, 2, 3
     order by 1, 2, 3
    on conflict (company_id, direction, status, shard) do update set messages = c.messages + excluded.messages;
  elsif tg_op = 'DELETE' then
    insert into message_status_counts as c (company_id, direction, status, shard, messages)
    select o.company_id, o.direction, o.status, pg_backend_pid() % 8, -count(*)
      from old_rows o
     where exists (select 1 from companies co where co.id = o.company_id)
     group by 1, 2, 3
     order by 1, 2, 3
    on conflict (company_id, direction, status, shard) do update set messages = c.messages + excluded.messages;
  else
    insert into message_status_counts as c (company_id, direction, status, shard, messages)
    select d.company_id, d.direction, d.status, pg_backend_pid() % 8, d.n
      from (select x.company_id, x.direction, x.status, sum(x.n) as n
              from (select company_id, direction, status, 1 as n from new_rows
                    union all
                    select company_id, direction, status, -1 from old_rows) x
             group by 1, 2, 3
            having sum(x.n) <> 0) d
     where exists (select 1 from companies co where co.id = d.company_id)
     order by 1, 2, 3
    on conflict (company_id, direction, status, shard) do update set messages = c.messages + excluded.messages;
  end if;
  return null;
end $function$;

drop trigger if exists messages_status_counts_delete on messages;
create trigger messages_status_counts_delete after delete on messages referencing old table as old_rows for each statement execute function messages_status_counts();
drop trigger if exists messages_status_counts_insert on messages;
create trigger messages_status_counts_insert after insert on messages referencing new table as new_rows for each statement execute function messages_status_counts();
drop trigger if exists messages_status_counts_update on messages;
create trigger messages_status_counts_update after update on messages referencing old table as old_rows new table as new_rows for each statement execute function messages_status_counts();


create or replace function subscribers_status_count_changes()
 returns trigger
 language plpgsql
as $function$
begin
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

drop trigger if exists subscribers_status_count_delete on subscribers;
create trigger subscribers_status_count_delete after delete on subscribers referencing old table as old_rows for each statement execute function subscribers_status_count_changes();
drop trigger if exists subscribers_status_count_insert on subscribers;
create trigger subscribers_status_count_insert after insert on subscribers referencing new table as new_rows for each statement execute function subscribers_status_count_changes();
drop trigger if exists subscribers_status_count_update on subscribers;
create trigger subscribers_status_count_update after update on subscribers referencing old table as old_rows new table as new_rows for each statement execute function subscribers_status_count_changes();


create or replace function subscriptions_count_changes()
 returns trigger
 language plpgsql
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
  return null;
end $function$;

drop trigger if exists subscriptions_count_delete on subscriptions;
create trigger subscriptions_count_delete after delete on subscriptions referencing old table as old_rows for each statement execute function subscriptions_count_changes();
drop trigger if exists subscriptions_count_insert on subscriptions;
create trigger subscriptions_count_insert after insert on subscriptions referencing new table as new_rows for each statement execute function subscriptions_count_changes();
drop trigger if exists subscriptions_count_update on subscriptions;
create trigger subscriptions_count_update after update on subscriptions referencing old table as old_rows new table as new_rows for each statement execute function subscriptions_count_changes();

-- A deleted message takes its recipients along (there is no foreign key to cascade).
create or replace function messages_delete_recipients()
 returns trigger
 language plpgsql
as $function$
begin
  delete from delivery_reports d using old_rows o
   where d.company_id = o.company_id and d.message_id = o.id;
  return null;
end $function$;

drop trigger if exists messages_delete_recipients on messages;
create trigger messages_delete_recipients after delete on messages referencing old table as old_rows for each statement execute function messages_delete_recipients();

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
