-- The rollup triggers' three upserts (hourly, daily, monthly; migration 0009's record_activity) were
-- one statement written three times, differing only in their bucket: one function now takes the
-- bucket and builds that statement. record_activity keeps its name and arguments, so the trigger
-- functions that call it (and their triggers) stay as they are. Behaviour is unchanged: one upsert
-- per (company, bucket) in key order, no rows for a company being deleted, no all-zero rows.

-- Applies a statement's changes to one bucket's rollup: 'hour', 'day' or 'month' (the rollup
-- table's key column). The monthly rollup has no stock deltas (all-time totals never need them).
create function record_activity_in(bucket text, deltas activity_delta[]) returns void language plpgsql as $$
declare
  rollup_table text;
  bucket_of text;
  counted text[] := array['pending', 'submitted', 'sent', 'delivered', 'failed', 'rejected', 'expired',
                          'received', 'new_subscribers'];
  sums text;
  any_change text;
  additions text;
begin
  case bucket
    when 'hour' then
      rollup_table := 'company_hourly_activity';
      bucket_of := $b$date_trunc('hour', d.at, 'UTC')$b$;
    when 'day' then
      rollup_table := 'company_daily_activity';
      bucket_of := $b$(d.at at time zone 'UTC')::date$b$;
    when 'month' then
      rollup_table := 'company_monthly_activity';
      bucket_of := $b$date_trunc('month', d.at at time zone 'UTC')::date$b$;
  end case;
  if bucket <> 'month' then
    counted := counted || array['active_subscribers_delta', 'services_delta', 'active_services_delta'];
  end if;

  select string_agg(format('sum(d.%I)', c), ', '),
         string_agg(format('sum(d.%I) <> 0', c), ' or '),
         string_agg(format('%1$I = a.%1$I + excluded.%1$I', c), ', ')
    into sums, any_change, additions
    from unnest(counted) as c;

  execute format(
    'insert into %1$I as a (company_id, %2$I, %3$s)
     select d.company_id, %4$s, %5$s
       from unnest($1) d
      where exists (select 1 from companies c where c.id = d.company_id)
      group by 1, 2
     having %6$s
      order by 1, 2
     on conflict (company_id, %2$I) do update set %7$s',
    rollup_table, bucket, (select string_agg(format('%I', c), ', ') from unnest(counted) as c),
    bucket_of, sums, any_change, additions)
  using deltas;
end $$;

-- Every bucket, in the same order as before (hour, day, month), so two statements never wait on
-- each other's rows in opposite orders.
create or replace function record_activity(deltas activity_delta[]) returns void language plpgsql as $$
begin
  perform record_activity_in('hour', deltas);
  perform record_activity_in('day', deltas);
  perform record_activity_in('month', deltas);
end $$;
