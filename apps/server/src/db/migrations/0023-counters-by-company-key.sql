-- The statement-level counter triggers of 0001 update services by id alone. Since 0010 the key of
-- services is (company_id, id) and no index serves a bare id: every subscribe, import and send
-- statement scanned the whole services table of every company to move its counters (a sharded
-- PostgreSQL would send the update to every shard). The counters now name the company with the id;
-- the rows each statement touched carry it.

create or replace function subscriptions_count_changes() returns trigger language plpgsql as $$
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
end $$;

create or replace function messages_count_changes() returns trigger language plpgsql as $$
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
end $$;
