-- The console's lists with their statements planned once per connection (ADR 0012, "The lists
-- planned once", 2026-11-23 night).
--
-- Console reads force custom plans (db/tenant-scope.ts): each statement was planned for its values
-- on every call, because a plan made for the average company suits neither the big one nor a small
-- one. For the message list that planning was most of the database's work: the page statement took
-- 1.8 to 2.7 ms to plan and 0.5 to 1 ms to run (pg_stat_statements, tenth-size bench data), the
-- counters' statement 0.3 ms to plan and 0.05 ms to run.
--
-- message_list_page reads the counters and the page in one call, its statements planned once per
-- connection (force_generic_plan), in shapes whose plan is the same for any company and any status:
-- - no status and no direction: the (company_id, created_at, id) index walked newest first (every
--   company: the (created_at, id) index);
-- - statuses or a direction: each status's newest from the (company_id, status, created_at, id)
--   index, merged, offset + limit per status at most. The statuses are the filter's that the
--   counters say have messages (in the direction asked for), read in the same snapshot (a STABLE
--   function's statements share the calling query's). A walk of the company's newest filtered by
--   status (what a generic plan chooses for `status = any($2)`) walked 49,000 rows to find 20
--   pending ones: its cost depends on how common the status is, this merge's does not.
-- The counters' exact total of the filter says when a page is past the end: it is not read.
--
-- SECURITY INVOKER: row-level security applies to everything it reads. p_company_id null: every
-- company the binding sees (a system admin). p_direction 'inbound' means status 'received' (the
-- caller narrows p_statuses to it).
-- The rows of a page of messages named by their keys, in that order, with their company's and
-- service's names, as json: shared by both lists below. PL/pgSQL so that its plan is kept for the
-- connection (a SQL function's is not, in PostgreSQL 17). SECURITY INVOKER.
create function message_page_rows(p_company_ids bigint[], p_message_ids bigint[]) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
begin
  return (
    select coalesce(json_agg(r order by r.n), '[]')
      from (select k.n, m.id, m.company_id, c.name as company_name, m.service_id, s.name as service_name,
                   m.service_ids::int[] as service_ids, m.direction, m.content, m.msisdn, m.status,
                   m.scheduled_at, m.sent_at, m.created_at, m.recipient_count, m.queue_job_id, m.encoding, m.parts
              from unnest(p_company_ids, p_message_ids) with ordinality k(company_id, id, n)
              join messages m on m.company_id = k.company_id and m.id = k.id
              join companies c on c.id = m.company_id
              left join services s on s.company_id = m.company_id and s.id = m.service_id) r);
end $$;
revoke execute on function message_page_rows(bigint[], bigint[]) from public;
grant execute on function message_page_rows(bigint[], bigint[]) to sms_app;

create function message_list_page(
  p_company_id bigint,
  p_direction text,
  p_statuses text[],
  p_offset integer,
  p_limit integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
declare
  counts json;
  total bigint;
  statuses text[];
  company_ids bigint[];
  message_ids bigint[];
begin
  if p_company_id is null then
    select coalesce(json_agg(json_build_object('direction', c.direction, 'status', c.status, 'messages', c.n)), '[]'),
           coalesce(sum(c.n) filter (where (p_direction is null or c.direction = p_direction)
                                       and (p_statuses is null or c.status = any(p_statuses))), 0),
           coalesce(array_agg(distinct c.status) filter (where (p_direction is null or c.direction = p_direction)
                                                           and (p_statuses is null or c.status = any(p_statuses))
                                                           and c.n > 0), '{}')
      into counts, total, statuses
      from (select direction, status, sum(messages) as n from message_status_counts
             group by direction, status having sum(messages) <> 0) c;
  else
    select coalesce(json_agg(json_build_object('direction', c.direction, 'status', c.status, 'messages', c.n)), '[]'),
           coalesce(sum(c.n) filter (where (p_direction is null or c.direction = p_direction)
                                       and (p_statuses is null or c.status = any(p_statuses))), 0),
           coalesce(array_agg(distinct c.status) filter (where (p_direction is null or c.direction = p_direction)
                                                           and (p_statuses is null or c.status = any(p_statuses))
                                                           and c.n > 0), '{}')
      into counts, total, statuses
      from (select direction, status, sum(messages) as n from message_status_counts
             where company_id = p_company_id
             group by direction, status having sum(messages) <> 0) c;
  end if;

  if p_offset >= total or p_limit < 1 then
    return json_build_object('counts', counts, 'messages', '[]'::json);
  end if;

  if p_statuses is null and p_direction is null then
    if p_company_id is null then
      select array_agg(k.company_id order by k.created_at desc, k.id desc),
             array_agg(k.id order by k.created_at desc, k.id desc)
        into company_ids, message_ids
        from (select m.company_id, m.id, m.created_at from messages m
               order by m.created_at desc, m.id desc offset p_offset limit p_limit) k;
    else
      select array_agg(k.company_id order by k.created_at desc, k.id desc),
             array_agg(k.id order by k.created_at desc, k.id desc)
        into company_ids, message_ids
        from (select m.company_id, m.id, m.created_at from messages m
               where m.company_id = p_company_id
               order by m.created_at desc, m.id desc offset p_offset limit p_limit) k;
    end if;
  elsif p_company_id is null and p_direction is null then
    select array_agg(k.company_id order by k.created_at desc, k.id desc),
           array_agg(k.id order by k.created_at desc, k.id desc)
      into company_ids, message_ids
      from (select n.company_id, n.id, n.created_at
              from companies c cross join unnest(statuses) st(status)
              cross join lateral (select m.company_id, m.id, m.created_at from messages m
                                   where m.company_id = c.id and m.status = st.status
                                   order by m.created_at desc, m.id desc limit p_offset + p_limit) n
             order by n.created_at desc, n.id desc offset p_offset limit p_limit) k;
  elsif p_company_id is null then
    select array_agg(k.company_id order by k.created_at desc, k.id desc),
           array_agg(k.id order by k.created_at desc, k.id desc)
      into company_ids, message_ids
      from (select n.company_id, n.id, n.created_at
              from companies c cross join unnest(statuses) st(status)
              cross join lateral (select m.company_id, m.id, m.created_at from messages m
                                   where m.company_id = c.id and m.status = st.status and m.direction = p_direction
                                   order by m.created_at desc, m.id desc limit p_offset + p_limit) n
             order by n.created_at desc, n.id desc offset p_offset limit p_limit) k;
  elsif p_direction is null then
    select array_agg(k.company_id order by k.created_at desc, k.id desc),
           array_agg(k.id order by k.created_at desc, k.id desc)
      into company_ids, message_ids
      from (select n.company_id, n.id, n.created_at
              from unnest(statuses) st(status)
              cross join lateral (select m.company_id, m.id, m.created_at from messages m
                                   where m.company_id = p_company_id and m.status = st.status
                                   order by m.created_at desc, m.id desc limit p_offset + p_limit) n
             order by n.created_at desc, n.id desc offset p_offset limit p_limit) k;
  else
    select array_agg(k.company_id order by k.created_at desc, k.id desc),
           array_agg(k.id order by k.created_at desc, k.id desc)
      into company_ids, message_ids
      from (select n.company_id, n.id, n.created_at
              from unnest(statuses) st(status)
              cross join lateral (select m.company_id, m.id, m.created_at from messages m
                                   where m.company_id = p_company_id and m.status = st.status
                                     and m.direction = p_direction
                                   order by m.created_at desc, m.id desc limit p_offset + p_limit) n
             order by n.created_at desc, n.id desc offset p_offset limit p_limit) k;
  end if;

  return json_build_object('counts', counts, 'messages', message_page_rows(company_ids, message_ids));
end $$;
revoke execute on function message_list_page(bigint, text, text[], integer, integer) from public;
grant execute on function message_list_page(bigint, text, text[], integer, integer) to sms_app;

-- A searched message list in one call: the counters (as message_list_page), the search's own
-- count and the page, its own statements planned once per connection. The search itself is still
-- 0018/0027's search_message_ids and count_message_matches, which plan their statement for each
-- pattern (EXECUTE); what was planned on every call around them (the join of the matches to
-- messages and the page's rows: 2.4 ms a call against 0.4 to 7 ms to run) now is not.
-- The rules are the message list's (modules/messages/message-logs.repository.ts), moved here:
-- - the count: without another filter, count_message_matches up to p_cap + 1 (more: past p_cap);
--   with one, the newest max(p_cap + 1, 10,001) matches joined to their messages, those passing
--   counted (more: the window was full);
-- - the page, unless the count was exact and the page is past it: the matches passing the filter,
--   newest first, from the newest max(offset + limit, 10,001 with another filter) matches; looked up
--   by trigram and sorted (p_few) when the count was exact.
-- p_direction 'inbound' means status 'received' (the caller narrows p_statuses to it).
create function message_search_page(
  p_company_id bigint,
  p_pattern text,
  p_direction text,
  p_statuses text[],
  p_offset integer,
  p_limit integer,
  p_cap integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
declare
  window_size constant integer := 10001;
  filtered boolean := p_direction is not null or p_statuses is not null;
  counts json;
  counted integer;
  more boolean;
  exact boolean;
  company_ids bigint[];
  message_ids bigint[];
begin
  if p_company_id is null then
    select coalesce(json_agg(json_build_object('direction', c.direction, 'status', c.status, 'messages', c.n)), '[]')
      into counts
      from (select direction, status, sum(messages) as n from message_status_counts
             group by direction, status having sum(messages) <> 0) c;
  else
    select coalesce(json_agg(json_build_object('direction', c.direction, 'status', c.status, 'messages', c.n)), '[]')
      into counts
      from (select direction, status, sum(messages) as n from message_status_counts
             where company_id = p_company_id
             group by direction, status having sum(messages) <> 0) c;
  end if;

  if not filtered then
    counted := count_message_matches(p_company_id, p_pattern, p_cap + 1);
    more := counted > p_cap;
  else
    select count(m.id)::int, count(*) >= greatest(p_cap + 1, window_size) into counted, more
      from search_message_ids(p_company_id, p_pattern, greatest(p_cap + 1, window_size)) s
      left join messages m on m.company_id = s.company_id and m.id = s.message_id
       and (p_direction is null or m.direction = p_direction)
       and (p_statuses is null or m.status = any(p_statuses));
  end if;
  exact := counted <= p_cap and not more;

  if not (exact and p_offset >= counted) then
    select array_agg(k.company_id order by k.created_at desc, k.message_id desc),
           array_agg(k.message_id order by k.created_at desc, k.message_id desc)
      into company_ids, message_ids
      from (select s.company_id, s.message_id, s.created_at
              from search_message_ids(p_company_id, p_pattern,
                                      greatest(p_offset + p_limit, case when filtered then window_size else 0 end), exact) s
              join messages m on m.company_id = s.company_id and m.id = s.message_id
             where (p_direction is null or m.direction = p_direction)
               and (p_statuses is null or m.status = any(p_statuses))
             order by s.created_at desc, s.message_id desc
             offset p_offset limit p_limit) k;
  end if;
  return json_build_object('counts', counts, 'searched', json_build_object('n', counted, 'more', more),
                           'messages', message_page_rows(company_ids, message_ids));
end $$;
revoke execute on function message_search_page(bigint, text, text, text[], integer, integer, integer) from public;
grant execute on function message_search_page(bigint, text, text, text[], integer, integer, integer) to sms_app;

-- A common word's page walks the company's newest rows of the side table until it has found enough
-- (search_message_ids without p_few): 'weekend' read 1,020 rows for 20, each row's text from the
-- table (975 buffers at a tenth of the bench's data, whose table holds its rows out of time order;
-- fewer where rows arrive in time order). With the text in the index the walk reads the index
-- alone (13 buffers), as does text too short for trigrams (the newest 10,000 rows). The table only
-- grows at its newest end, so its visibility map is kept current by vacuuming it every 10,000
-- inserted rows rather than after a fifth of the table: rows not yet marked all-visible are read
-- from the table as before.
create index message_search_text_company_created_text_idx
  on message_search_text (company_id, created_at desc, message_id desc) include (content, msisdn);
drop index message_search_text_company_created_idx;
alter table message_search_text
  set (autovacuum_vacuum_insert_threshold = 10000, autovacuum_vacuum_insert_scale_factor = 0);

-- A company's whole subscriber list (no filter), newest first, in one call planned once per
-- connection: its exact total (the per-status counters), its newest id (with the total, the state
-- of the list the page starts of subscriber-page-anchors.ts belong to) and one page from the top or
-- from a remembered id (p_at_or_below_id), skipping p_offset. The page's ids are consecutive in the
-- company's key, so its rows and their active services are each read as one range of keys, not
-- looked up one by one (a deep page of 100: 723 buffers a call before, most of them 100 lookups of
-- the rows and 100 of their subscriptions). The same snapshot for every statement (STABLE), so
-- the range holds exactly the page. SECURITY INVOKER, as above.
create function subscriber_list_page(
  p_company_id bigint,
  p_offset integer,
  p_limit integer,
  p_at_or_below_id bigint
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
declare
  total bigint;
  newest bigint;
  -- A variable, not coalesce(...) in the statement: the generic plan then keeps it in the index
  -- condition (with the expression it walked the company's whole key and filtered).
  upper_id bigint;
  lowest bigint;
  highest bigint;
  page json;
begin
  select coalesce(sum(subscriber_count), 0) into total
    from company_subscriber_counts where company_id = p_company_id;
  select max(id) into newest from subscribers where company_id = p_company_id;
  upper_id := coalesce(p_at_or_below_id, newest);
  select min(k.id), max(k.id) into lowest, highest
    from (select s.id from subscribers s
           where s.company_id = p_company_id and s.id <= upper_id
           order by s.id desc offset p_offset limit p_limit) k;
  select coalesce(json_agg(r order by r.id desc), '[]') into page
    from (select s.id, s.msisdn, s.status, s.company_id, c.name as company_name, s.created_at,
                 coalesce(a.ids, '{}') as active_services
            from subscribers s
            join companies c on c.id = s.company_id
            left join (select x.subscriber_id, array_agg(x.service_id order by x.service_id)::int[] as ids
                         from subscriptions x
                        where x.company_id = p_company_id and x.subscriber_id between lowest and highest
                          and x.status = 'active'
                        group by x.subscriber_id) a on a.subscriber_id = s.id
           where s.company_id = p_company_id and s.id between lowest and highest) r;
  return json_build_object('total', total, 'newest', newest, 'subscribers', page);
end $$;
revoke execute on function subscriber_list_page(bigint, integer, integer, bigint) from public;
grant execute on function subscriber_list_page(bigint, integer, integer, bigint) to sms_app;

-- A report's figures (GET /reports) in one call planned once per connection: the rollup's rows from
-- the previous span's start (hourly for a day's report, daily for a week's or a month's; one
-- company's by its key, or every company's), then sums over the timeframe [p_from, p_to) and the span
-- before it [p_previous_from, p_from) of recipients handed over (every status but pending),
-- delivered, failed (failed, rejected, expired), received and new subscribers, and sent and
-- received per bucket from p_from, every bucket present. The window's bounds are whole buckets
-- (UTC), so a day compares as its midnight (UTC). It was one statement planned on every call
-- (0.5 to 0.6 ms of 1.6 to 2 ms of the database's work a request). SECURITY INVOKER, as above.
create function report_figures(
  p_company_id bigint,
  p_hourly boolean,
  p_previous_from timestamptz,
  p_from timestamptz,
  p_to timestamptz,
  p_points integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
declare
  -- Variables, not expressions in the statements: the generic plans keep them in the index condition.
  first_day date := (p_previous_from at time zone 'UTC')::date;
  step interval := case when p_hourly then interval '1 hour' else interval '1 day' end;
  rows_at timestamptz[];
  rows_handed_over bigint[];
  rows_delivered bigint[];
  rows_failed bigint[];
  rows_received bigint[];
  rows_new_subscribers bigint[];
begin
  if p_hourly and p_company_id is null then
    select array_agg(hour), array_agg(submitted + sent + delivered + failed + rejected + expired),
           array_agg(a.delivered), array_agg(a.failed + rejected + expired), array_agg(a.received),
           array_agg(a.new_subscribers)
      into rows_at, rows_handed_over, rows_delivered, rows_failed, rows_received, rows_new_subscribers
      from company_hourly_activity a where hour >= p_previous_from;
  elsif p_hourly then
    select array_agg(hour), array_agg(submitted + sent + delivered + failed + rejected + expired),
           array_agg(a.delivered), array_agg(a.failed + rejected + expired), array_agg(a.received),
           array_agg(a.new_subscribers)
      into rows_at, rows_handed_over, rows_delivered, rows_failed, rows_received, rows_new_subscribers
      from company_hourly_activity a where company_id = p_company_id and hour >= p_previous_from;
  elsif p_company_id is null then
    select array_agg(day::timestamp at time zone 'UTC'), array_agg(submitted + sent + delivered + failed + rejected + expired),
           array_agg(a.delivered), array_agg(a.failed + rejected + expired), array_agg(a.received),
           array_agg(a.new_subscribers)
      into rows_at, rows_handed_over, rows_delivered, rows_failed, rows_received, rows_new_subscribers
      from company_daily_activity a where day >= first_day;
  else
    select array_agg(day::timestamp at time zone 'UTC'), array_agg(submitted + sent + delivered + failed + rejected + expired),
           array_agg(a.delivered), array_agg(a.failed + rejected + expired), array_agg(a.received),
           array_agg(a.new_subscribers)
      into rows_at, rows_handed_over, rows_delivered, rows_failed, rows_received, rows_new_subscribers
      from company_daily_activity a where company_id = p_company_id and day >= first_day;
  end if;
  return (
    with a as (select * from unnest(rows_at, rows_handed_over, rows_delivered, rows_failed, rows_received, rows_new_subscribers)
                               as a(at, handed_over, delivered, failed, received, new_subscribers))
    select json_build_object(
             'current', json_build_object(
               'sent', coalesce(sum(a.handed_over) filter (where a.at >= p_from and a.at < p_to), 0),
               'delivered', coalesce(sum(a.delivered) filter (where a.at >= p_from and a.at < p_to), 0),
               'failed', coalesce(sum(a.failed) filter (where a.at >= p_from and a.at < p_to), 0),
               'received', coalesce(sum(a.received) filter (where a.at >= p_from and a.at < p_to), 0),
               'newSubscribers', coalesce(sum(a.new_subscribers) filter (where a.at >= p_from and a.at < p_to), 0)),
             'previous', json_build_object(
               'sent', coalesce(sum(a.handed_over) filter (where a.at < p_from), 0),
               'delivered', coalesce(sum(a.delivered) filter (where a.at < p_from), 0),
               'failed', coalesce(sum(a.failed) filter (where a.at < p_from), 0),
               'received', coalesce(sum(a.received) filter (where a.at < p_from), 0),
               'newSubscribers', coalesce(sum(a.new_subscribers) filter (where a.at < p_from), 0)),
             'volume', (select json_agg(json_build_object('time', b.time, 'sent', coalesce(v.sent, 0),
                                                          'received', coalesce(v.received, 0)) order by b.time)
                          from generate_series(p_from, p_from + (p_points - 1) * step, step) as b(time)
                          left join (select a.at, sum(a.handed_over) as sent, sum(a.received) as received
                                       from a where a.at >= p_from group by a.at) v on v.at = b.time))
      from a);
end $$;
revoke execute on function report_figures(bigint, boolean, timestamptz, timestamptz, timestamptz, integer) from public;
grant execute on function report_figures(bigint, boolean, timestamptz, timestamptz, timestamptz, integer) to sms_app;

-- The top bar's first pass in one call planned once per connection: the services whose name, short
-- code or keyword holds the text (names or keywords starting with it first), and the messages
-- among the newest p_recent whose content holds it (modules/search/search.repository.ts: a text
-- found often is found there; the older ones are looked for by their words afterwards, only when
-- this finds fewer than p_limit). p_pattern and p_prefix are LIKE patterns, lower-cased, LIKE's own
-- characters escaped; null leaves a kind out. Both statements were planned on every call (about
-- 1.3 ms of 2.6 to 3 ms of the database's work a request). SECURITY INVOKER, as above.
create function top_bar_first_pass(
  p_company_id bigint,
  p_service_pattern text,
  p_service_prefix text,
  p_message_pattern text,
  p_limit integer,
  p_recent integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
declare
  found_services json := '[]';
  found_messages json := '[]';
begin
  if p_service_pattern is not null and p_company_id is null then
    select coalesce(json_agg(f order by f.starts desc, f.name, f.id), '[]') into found_services
      from (select s.id, s.name, s.shortcode, s.keyword, s.status, c.name as company_name,
                   (lower(s.name) like p_service_prefix or lower(s.keyword) like p_service_prefix) as starts
              from services s join companies c on c.id = s.company_id
             where lower(s.name) like p_service_pattern or lower(s.shortcode) like p_service_pattern
                or lower(s.keyword) like p_service_pattern
             order by 7 desc, s.name, s.id limit p_limit) f;
  elsif p_service_pattern is not null then
    select coalesce(json_agg(f order by f.starts desc, f.name, f.id), '[]') into found_services
      from (select s.id, s.name, s.shortcode, s.keyword, s.status, c.name as company_name,
                   (lower(s.name) like p_service_prefix or lower(s.keyword) like p_service_prefix) as starts
              from services s join companies c on c.id = s.company_id
             where s.company_id = p_company_id
               and (lower(s.name) like p_service_pattern or lower(s.shortcode) like p_service_pattern
                    or lower(s.keyword) like p_service_pattern)
             order by 7 desc, s.name, s.id limit p_limit) f;
  end if;
  if p_message_pattern is not null and p_company_id is null then
    select coalesce(json_agg(f order by f.created_at desc, f.id desc), '[]') into found_messages
      from (select r.id, r.content, r.direction, r.status, r.created_at, c.name as company_name
              from (select m.id, m.company_id, m.content, m.direction, m.status, m.created_at from messages m
                     order by m.created_at desc, m.id desc limit p_recent) r
              join companies c on c.id = r.company_id
             where lower(r.content) like p_message_pattern
             order by r.created_at desc, r.id desc limit p_limit) f;
  elsif p_message_pattern is not null then
    select coalesce(json_agg(f order by f.created_at desc, f.id desc), '[]') into found_messages
      from (select r.id, r.content, r.direction, r.status, r.created_at, c.name as company_name
              from (select m.id, m.company_id, m.content, m.direction, m.status, m.created_at from messages m
                     where m.company_id = p_company_id
                     order by m.created_at desc, m.id desc limit p_recent) r
              join companies c on c.id = r.company_id
             where lower(r.content) like p_message_pattern
             order by r.created_at desc, r.id desc limit p_limit) f;
  end if;
  return json_build_object('services', found_services, 'messages', found_messages);
end $$;
revoke execute on function top_bar_first_pass(bigint, text, text, text, integer, integer) from public;
grant execute on function top_bar_first_pass(bigint, text, text, text, integer, integer) to sms_app;

-- A page of a message's recipients (its details and /delivery-reports), in the order they were
-- resolved, planned once per connection: all rows of a message share one created_at (the send's
-- recipients_at), so the read touches one partition, pruned when the plan starts, by its primary
-- key; p_from_id: from a remembered id (0: from the first). p_status null: any status. It was
-- planned on every call (0.4 to 0.5 ms, against 0.1 ms to run a page). SECURITY INVOKER, as above.
create function recipient_page(
  p_company_id bigint,
  p_message_id bigint,
  p_recipients_at timestamptz,
  p_status text,
  p_from_id bigint,
  p_offset integer,
  p_limit integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
begin
  return (
    select coalesce(json_agg(r order by r.id), '[]')
      from (select d.id, d.recipient_phone, d.status, d.gateway_message_id, d.delivered_at, d.error_message,
                   d.attempts::int as attempts, d.updated_at
              from delivery_reports d
             where d.company_id = p_company_id and d.message_id = p_message_id
               and d.created_at = p_recipients_at and d.id >= p_from_id
               and (p_status is null or d.status = p_status)
             order by d.id
            offset p_offset limit p_limit) r);
end $$;
revoke execute on function recipient_page(bigint, bigint, timestamptz, text, bigint, integer, integer) from public;
grant execute on function recipient_page(bigint, bigint, timestamptz, text, bigint, integer, integer) to sms_app;

-- The rows of a page of subscribers named by their keys, in that order, with their company's name
-- and their active services, as json, planned once per connection: a filtered list (a status, a
-- phone search, a service) finds its page's keys and its capped count in one statement planned for
-- its values (the search's ranges differ in how much they match), and its rows here. Its one
-- statement with the rows' join and their active services took 1.2 to 2 ms to plan, the keys alone
-- 0.2 ms. SECURITY INVOKER, as above.
create function subscriber_page_rows(p_company_ids bigint[], p_ids bigint[]) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
begin
  return (
    select coalesce(json_agg(r order by r.n), '[]')
      from (select k.n, s.id, s.msisdn, s.status, s.company_id, c.name as company_name, s.created_at,
                   coalesce((select array_agg(x.service_id order by x.service_id) from subscriptions x
                              where x.company_id = s.company_id and x.subscriber_id = s.id and x.status = 'active'),
                            '{}')::int[] as active_services
              from unnest(p_company_ids, p_ids) with ordinality k(company_id, id, n)
              join subscribers s on s.company_id = k.company_id and s.id = k.id
              join companies c on c.id = s.company_id) r);
end $$;
revoke execute on function subscriber_page_rows(bigint[], bigint[]) from public;
grant execute on function subscriber_page_rows(bigint[], bigint[]) to sms_app;
