-- The console's dashboard in one call with plans kept per connection, and the status index in the
-- message list's order (ADR 0012, 2026-11-23 "dashboard and search").

-- A chip's page (Pending is three statuses) read the (company_id, status, created_at) index and
-- fetched every matching row from the heap for its id, to sort them by (created_at, id). With the
-- id in the index the keys of a page are read from the index alone.
create index messages_company_status_created_id_idx
  on messages (company_id, status, created_at desc, id desc);
drop index messages_company_status_idx;

-- Everything GET /dashboard/stats reads, as one json value: one round trip instead of six, and
-- each statement planned once per connection instead of on every call. Console reads force custom
-- plans (a plan for the average company suits neither the big one nor a small one); these
-- statements read counters and rollups by their keys and the newest rows by the (company_id,
-- created_at, id) indexes, the same plan for any company, so they keep a generic plan.
-- SECURITY INVOKER: row-level security applies to every table it reads, as to the caller's own
-- statements. p_company_id null: every company the binding sees (a system admin).
create function dashboard_figures(
  p_company_id bigint,
  p_this_month date,
  p_last_month date,
  p_span_end_day date,
  p_span_end timestamptz,
  p_recent integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
declare
  span_start timestamptz := p_span_end_day::timestamp at time zone 'UTC';
begin
  if p_company_id is null then
    return (
      select json_build_object(
        'services_total', sv.total, 'services_active', sv.active,
        'active_subscribers', (select coalesce(sum(subscriber_count), 0) from company_subscriber_counts
                                where status = 'active'),
        'messages_sent', (select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)
                            from company_monthly_activity),
        'month', month,
        'sent_last_month_hours', (select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)
                                    from company_hourly_activity where hour >= span_start and hour < p_span_end),
        'audit', (select coalesce(json_agg(a order by a.created_at desc, a.id desc), '[]')
                    from (select id, action, entity, entity_id, user_name, details, created_at from audit_logs
                           where action <> all(array['LOGIN', 'LOGOUT']) and entity <> 'MESSAGE'
                           order by created_at desc, id desc limit p_recent) a),
        'messages', (select coalesce(json_agg(r order by r.created_at desc, r.id desc), '[]')
                       from (select m.id, m.direction, m.status, m.content, m.msisdn, m.recipient_count,
                                    s.name as service_name, m.created_at, m.updated_at
                               from (select * from messages order by created_at desc, id desc limit p_recent) m
                               left join services s on s.company_id = m.company_id and s.id = m.service_id) r),
        'companies', (select coalesce(json_agg(c), '[]')
                        from (select plan, status, count(*)::int as companies from companies group by plan, status) c))
        from (select count(*)::int as total, count(*) filter (where status = 'active')::int as active from services) sv,
             (select coalesce(sum(services_delta) filter (where day >= p_this_month), 0) as services_since,
                     coalesce(sum(active_services_delta) filter (where day >= p_this_month), 0) as active_services_since,
                     coalesce(sum(active_subscribers_delta) filter (where day >= p_this_month), 0) as active_subscribers_since,
                     coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                                filter (where day >= p_this_month), 0) as sent_this_month,
                     coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                                filter (where day < p_span_end_day), 0) as sent_last_month_days
                from company_daily_activity where day >= p_last_month) month);
  end if;
  return (
    select json_build_object(
      'services_total', sv.total, 'services_active', sv.active,
      'active_subscribers', (select coalesce(sum(subscriber_count), 0) from company_subscriber_counts
                              where company_id = p_company_id and status = 'active'),
      'messages_sent', (select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)
                          from company_monthly_activity where company_id = p_company_id),
      'month', month,
      'sent_last_month_hours', (select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)
                                  from company_hourly_activity
                                 where company_id = p_company_id and hour >= span_start and hour < p_span_end),
      'audit', (select coalesce(json_agg(a order by a.created_at desc, a.id desc), '[]')
                  from (select id, action, entity, entity_id, user_name, details, created_at from audit_logs
                         where company_id = p_company_id
                           and action <> all(array['LOGIN', 'LOGOUT']) and entity <> 'MESSAGE'
                         order by created_at desc, id desc limit p_recent) a),
      'messages', (select coalesce(json_agg(r order by r.created_at desc, r.id desc), '[]')
                     from (select m.id, m.direction, m.status, m.content, m.msisdn, m.recipient_count,
                                  s.name as service_name, m.created_at, m.updated_at
                             from (select * from messages where company_id = p_company_id
                                    order by created_at desc, id desc limit p_recent) m
                             left join services s on s.company_id = m.company_id and s.id = m.service_id) r),
      'company', (select row_to_json(c)
                    from (select name, plan, billing_status, package_name, package_expires_at,
                                 messages_limit, subscribers_limit, services_limit,
                                 (select messages_used from company_monthly_usage u
                                   where u.company_id = p_company_id and u.month = p_this_month) as messages_used
                            from companies where id = p_company_id) c))
      from (select count(*)::int as total, count(*) filter (where status = 'active')::int as active
              from services where company_id = p_company_id) sv,
           (select coalesce(sum(services_delta) filter (where day >= p_this_month), 0) as services_since,
                   coalesce(sum(active_services_delta) filter (where day >= p_this_month), 0) as active_services_since,
                   coalesce(sum(active_subscribers_delta) filter (where day >= p_this_month), 0) as active_subscribers_since,
                   coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                              filter (where day >= p_this_month), 0) as sent_this_month,
                   coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                              filter (where day < p_span_end_day), 0) as sent_last_month_days
              from company_daily_activity where company_id = p_company_id and day >= p_last_month) month);
end $$;
revoke execute on function dashboard_figures(bigint, date, date, date, timestamptz, integer) from public;
grant execute on function dashboard_figures(bigint, date, date, date, timestamptz, integer) to sms_app;

-- A message's msisdn is a normalised number (+ and digits, E.164: set where messages are written),
-- so text with any other character can only match the content. 0018 also looked such text up in
-- the numbers whenever it had a digit: '#25477' gave the trigram index ' 25', '254' and '547',
-- which every number (+2547...) holds, so each call built a bitmap of every inbound message and
-- rechecked them all for nothing (60 to 600 ms where the same search with other digits took 1 ms:
-- the rare search's tail in the console-reads bench). Same answers, the numbers left out unless the
-- text could be part of one.
--
-- p_few: the caller knows the text matches few messages (the list counted them first: at most its
-- cap). PostgreSQL estimates a LIKE from a sample of every company's text, so a text that is rare in
-- this company but in the sample (another company's word, one message of a million) looked common,
-- and the newest-first walk of the company's rows went through all of them: '#39177' walked 700,000
-- rows in 470 ms to find nothing. With p_few the matches are looked up by trigram and sorted (1 ms);
-- without it the planner chooses as before (a common word walks a few hundred rows).
drop function search_message_ids(bigint, text, integer);
create function search_message_ids(p_company_id bigint, p_pattern text, p_limit integer, p_few boolean default false)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer set search_path = public, pg_temp as $$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  scope text := '((select app_platform_scope()) or t.company_id = (select app_company_id()))';
  of_company text := case when company is null then 'true' else 't.company_id = $1' end;
  matches text := case when p_pattern ~ '^%\+?[0-9]+%$' then '(t.content like $2 or t.msisdn like $2)'
                       else 't.content like $2' end;
begin
  if p_pattern is null or p_limit is null or p_limit < 1 or (company is null and not platform) then
    return;
  end if;
  if p_pattern ~ '[[:alnum:]]{3}' and p_few then
    -- offset 0 keeps the order out of the inner query: every match by trigram, then sorted.
    return query execute format(
      'select t.company_id, t.message_id, t.created_at
         from (select t.company_id, t.message_id, t.created_at from message_search_text t
                where %s and %s and %s offset 0) t
        order by t.created_at desc, t.message_id desc limit $3', of_company, scope, matches)
      using company, p_pattern, p_limit;
  elsif p_pattern ~ '[[:alnum:]]{3}' then
    return query execute format(
      'select t.company_id, t.message_id, t.created_at from message_search_text t
        where %s and %s and %s
        order by t.created_at desc, t.message_id desc limit $3', of_company, scope, matches)
      using company, p_pattern, p_limit;
  else
    return query execute format(
      'select t.company_id, t.message_id, t.created_at
         from (select * from message_search_text t where %s and %s
                order by t.created_at desc, t.message_id desc limit 10000) t
        where %s
        order by t.created_at desc, t.message_id desc limit $3', of_company, scope, matches)
      using company, p_pattern, p_limit;
  end if;
end $$;
revoke execute on function search_message_ids(bigint, text, integer, boolean) from public;
grant execute on function search_message_ids(bigint, text, integer, boolean) to sms_app;

create or replace function count_message_matches(p_company_id bigint, p_pattern text, p_limit integer)
  returns integer
  language plpgsql stable security definer set search_path = public, pg_temp as $$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  scope text := '((select app_platform_scope()) or t.company_id = (select app_company_id()))';
  of_company text := case when company is null then 'true' else 't.company_id = $1' end;
  matches text := case when p_pattern ~ '^%\+?[0-9]+%$' then '(t.content like $2 or t.msisdn like $2)'
                       else 't.content like $2' end;
  counted integer;
begin
  if p_pattern is null or p_limit is null or p_limit < 1 or (company is null and not platform) then
    return 0;
  end if;
  if p_pattern !~ '[[:alnum:]]{3}' then
    return (select count(*) from search_message_ids(p_company_id, p_pattern, p_limit));
  end if;
  execute format(
    'select count(*) from (select 1 from message_search_text t where %s and %s and %s limit $3) x',
    of_company, scope, matches)
    into counted using company, p_pattern, p_limit;
  return counted;
end $$;

-- A message with its send state and delivery summary, for its details, recipients and job status:
-- one round trip instead of three, planned once per connection like dashboard_figures (a message by
-- its key, its send and counter rows by theirs: the same plan for any company). SECURITY INVOKER:
-- row-level security applies. p_company_id null: any company the binding sees (a system admin).
create function message_with_state(p_id bigint, p_company_id bigint)
  returns table (
    id bigint, company_id bigint, company_name text, service_id bigint, service_name text,
    service_ids integer[], direction text, content text, msisdn text, status text,
    scheduled_at timestamptz, sent_at timestamptz, created_at timestamptz, recipient_count integer,
    queue_job_id text, encoding text, parts smallint,
    send_state text, recipients_at timestamptz, recipients integer, started_at timestamptz,
    fanout_finished_at timestamptz, handed_over_at timestamptz, send_updated_at timestamptz,
    pending integer, submitted integer, sent integer, delivered integer, failed integer,
    rejected integer, expired integer)
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
begin
  if p_company_id is null then
    return query
      select m.id, m.company_id, c.name, m.service_id, s.name, m.service_ids::int[], m.direction, m.content,
             m.msisdn, m.status, m.scheduled_at, m.sent_at, m.created_at, m.recipient_count, m.queue_job_id,
             m.encoding, m.parts, ms.state, ms.recipients_at, ms.recipients, ms.started_at,
             ms.fanout_finished_at, ms.handed_over_at, ms.updated_at, dc.pending, dc.submitted, dc.sent,
             dc.delivered, dc.failed, dc.rejected, dc.expired
        from messages m
        join companies c on c.id = m.company_id
        left join services s on s.company_id = m.company_id and s.id = m.service_id
        left join message_sends ms on ms.company_id = m.company_id and ms.message_id = m.id
        cross join lateral (
          select coalesce(sum(d.pending), 0)::int as pending, coalesce(sum(d.submitted), 0)::int as submitted,
                 coalesce(sum(d.sent), 0)::int as sent, coalesce(sum(d.delivered), 0)::int as delivered,
                 coalesce(sum(d.failed), 0)::int as failed, coalesce(sum(d.rejected), 0)::int as rejected,
                 coalesce(sum(d.expired), 0)::int as expired
            from message_delivery_counts d where d.company_id = m.company_id and d.message_id = m.id) dc
       where m.id = p_id;
  else
    return query
      select m.id, m.company_id, c.name, m.service_id, s.name, m.service_ids::int[], m.direction, m.content,
             m.msisdn, m.status, m.scheduled_at, m.sent_at, m.created_at, m.recipient_count, m.queue_job_id,
             m.encoding, m.parts, ms.state, ms.recipients_at, ms.recipients, ms.started_at,
             ms.fanout_finished_at, ms.handed_over_at, ms.updated_at, dc.pending, dc.submitted, dc.sent,
             dc.delivered, dc.failed, dc.rejected, dc.expired
        from messages m
        join companies c on c.id = m.company_id
        left join services s on s.company_id = m.company_id and s.id = m.service_id
        left join message_sends ms on ms.company_id = m.company_id and ms.message_id = m.id
        cross join lateral (
          select coalesce(sum(d.pending), 0)::int as pending, coalesce(sum(d.submitted), 0)::int as submitted,
                 coalesce(sum(d.sent), 0)::int as sent, coalesce(sum(d.delivered), 0)::int as delivered,
                 coalesce(sum(d.failed), 0)::int as failed, coalesce(sum(d.rejected), 0)::int as rejected,
                 coalesce(sum(d.expired), 0)::int as expired
            from message_delivery_counts d where d.company_id = m.company_id and d.message_id = m.id) dc
       where m.company_id = p_company_id and m.id = p_id;
  end if;
end $$;
revoke execute on function message_with_state(bigint, bigint) from public;
grant execute on function message_with_state(bigint, bigint) to sms_app;
