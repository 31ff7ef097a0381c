create or replace function message_with_state(p_id bigint, p_company_id bigint)
 returns TABLE(id bigint, company_id bigint, company_name text, service_id bigint, service_name text, service_ids integer[], direction text, content text, msisdn text, status text, scheduled_at timestamp with time zone, sent_at timestamp with time zone, created_at timestamp with time zone, recipient_count integer, queue_job_id text, encoding text, parts smallint, send_state text, recipients_at timestamp with time zone, recipients integer, started_at timestamp with time zone, fanout_finished_at timestamp with time zone, handed_over_at timestamp with time zone, send_updated_at timestamp with time zone, pending integer, submitted integer, sent integer, delivered integer, failed integer, rejected integer, expired integer, send_failed_reason text)
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
begin
  if p_company_id is null then
    return query
      select m.id, m.company_id, c.name, m.service_id, s.name, m.service_ids::int[], m.direction, m.content,
             m.msisdn, m.status, m.scheduled_at, m.sent_at, m.created_at, m.recipient_count, m.queue_job_id,
             m.encoding, m.parts, ms.state, ms.recipients_at, ms.recipients, ms.started_at,
             ms.fanout_finished_at, ms.handed_over_at, ms.updated_at, dc.pending, dc.submitted, dc.sent,
             dc.delivered, dc.failed, dc.rejected, dc.expired, ms.failed_reason
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
             dc.delivered, dc.failed, dc.rejected, dc.expired, ms.failed_reason
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
end $function$;
revoke execute on function message_with_state(p_id bigint, p_company_id bigint) from public;

create or replace function message_list_page(p_company_id bigint, p_direction text, p_statuses text[], p_offset integer, p_limit integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
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
end $function$;
revoke execute on function message_list_page(p_company_id bigint, p_direction text, p_statuses text[], p_offset integer, p_limit integer) from public;

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
create or replace function message_page_rows(p_company_ids bigint[], p_message_ids bigint[])
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
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
end $function$;
revoke execute on function message_page_rows(p_company_ids bigint[], p_message_ids bigint[]) from public;

-- A message's details in one call (ADR 0012, 2026-11-27): the message with its send state and
-- delivery counts (0027's message_with_state) and a page of its recipients (recipient_page_columns,
-- above), which were two round trips, called here in one. The caller names where a page of the send's
-- whole list starts from a remembered id (recipient-page-anchors.ts) for the fan-out time those ids
-- were read for: the start serves only when the send has finished its fan-out at that time and the
-- page has no status filter; otherwise the page is walked from the top, skipping p_offset rows (the
-- same page). The page is read only once the send's recipients have a fan-out time. null: no such
-- message for the caller. p_company_id null: any company the binding sees (a system admin).
-- SECURITY INVOKER: row-level security applies.
create or replace function message_details_page(p_id bigint, p_company_id bigint, p_status text, p_offset integer, p_limit integer, p_anchor_recipients_at timestamp with time zone, p_anchor_id bigint, p_anchor_skip integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  message json;
  company bigint;
  send_state text;
  recipients_at timestamptz;
  from_id bigint := 0;
  skip integer := p_offset;
  recipients json;
begin
  select row_to_json(w), w.company_id, w.send_state, w.recipients_at
    into message, company, send_state, recipients_at
    from message_with_state(p_id, p_company_id) w;
  if message is null then
    return null;
  end if;
  if recipients_at is not null then
    if p_status is null and send_state in ('dispatch', 'done') and recipients_at = p_anchor_recipients_at then
      from_id := p_anchor_id;
      skip := p_anchor_skip;
    end if;
    recipients := recipient_page_columns(company, p_id, recipients_at, p_status, from_id, skip, p_limit);
  end if;
  return json_build_object('message', message, 'recipients', recipients);
end $function$;
revoke execute on function message_details_page(p_id bigint, p_company_id bigint, p_status text, p_offset integer, p_limit integer, p_anchor_recipients_at timestamp with time zone, p_anchor_id bigint, p_anchor_skip integer) from public;

-- A page of a message's recipients as columns (ADR 0012, 2026-11-27): 0034's recipient_page with
-- its page as one array a column (as above) instead of a JSON object a row. Its callers are the
-- recipients' list and message_details_page; recipient_page stays for an API process of before
-- during a deploy. SECURITY INVOKER: row-level security applies.
create or replace function recipient_page_columns(p_company_id bigint, p_message_id bigint, p_recipients_at timestamp with time zone, p_status text, p_from_id bigint, p_offset integer, p_limit integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  first_id bigint := p_from_id;
  skip integer := p_offset;
  ids bigint[];
  phones text[];
  statuses text[];
  gateway_ids text[];
  delivered timestamptz[];
  errors text[];
  attempts integer[];
  updated timestamptz[];
begin
  -- The skip walked over the key alone.
  if p_status is null and p_offset > 0 then
    select d.id into first_id
      from delivery_reports d
     where d.company_id = p_company_id and d.message_id = p_message_id
       and d.created_at = p_recipients_at and d.id >= p_from_id
     order by d.id
    offset p_offset limit 1;
    skip := 0;
  end if;
  if first_id is not null then
    select array_agg(k.id), array_agg(k.recipient_phone), array_agg(k.status), array_agg(k.gateway_message_id),
           array_agg(k.delivered_at), array_agg(k.error_message), array_agg(k.attempts), array_agg(k.updated_at)
      into ids, phones, statuses, gateway_ids, delivered, errors, attempts, updated
      from (select d.id, d.recipient_phone, d.status, d.gateway_message_id, d.delivered_at, d.error_message,
                   d.attempts::int as attempts, d.updated_at
              from delivery_reports d
             where d.company_id = p_company_id and d.message_id = p_message_id
               and d.created_at = p_recipients_at and d.id >= first_id
               and (p_status is null or d.status = p_status)
             order by d.id
            offset skip limit p_limit) k;
  end if;
  return json_build_object('ids', coalesce(ids, '{}'), 'phones', coalesce(phones, '{}'),
                           'statuses', coalesce(statuses, '{}'), 'gateway_ids', coalesce(gateway_ids, '{}'),
                           'delivered', coalesce(delivered, '{}'), 'errors', coalesce(errors, '{}'),
                           'attempts', coalesce(attempts, '{}'), 'updated', coalesce(updated, '{}'));
end $function$;
revoke execute on function recipient_page_columns(p_company_id bigint, p_message_id bigint, p_recipients_at timestamp with time zone, p_status text, p_from_id bigint, p_offset integer, p_limit integer) from public;

-- 0027's search_message_ids; a company's text of three letters or digits in a row with a word
-- start takes its matches from message_search_word_start_ids when that answers, newest first.
create or replace function search_message_ids(p_company_id bigint, p_pattern text, p_limit integer, p_few boolean DEFAULT false)
 returns TABLE(company_id bigint, message_id bigint, created_at timestamp with time zone)
 language plpgsql
 stable SECURITY DEFINER
 set search_path to 'public', 'pg_temp'
as $function$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  scope text := '((select app_platform_scope()) or t.company_id = (select app_company_id()))';
  of_company text := case when company is null then 'true' else 't.company_id = $1' end;
  matches text := case when p_pattern ~ '^%\+?[0-9]+%$' then '(t.content like $2 or t.msisdn like $2)'
                       else 't.content like $2' end;
  candidates bigint[];
begin
  if p_pattern is null or p_limit is null or p_limit < 1 or (company is null and not platform) then
    return;
  end if;
  if company is not null and p_pattern ~ '[[:alnum:]]{3}' then
    candidates := message_search_word_start_ids(company, p_pattern);
    if candidates is not null then
      return query select t.company_id, t.message_id, t.created_at from message_search_text t
                    where t.company_id = company and t.message_id = any(candidates)
                      and ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                      and t.content like p_pattern
                    order by t.created_at desc, t.message_id desc limit p_limit;
      return;
    end if;
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
end $function$;
revoke execute on function search_message_ids(p_company_id bigint, p_pattern text, p_limit integer, p_few boolean) from public;

-- 0039's message_search_matches, its word start read through the function above.
create or replace function message_search_matches(p_company_id bigint, p_pattern text, p_limit integer)
 returns TABLE(company_id bigint, message_id bigint, created_at timestamp with time zone)
 language plpgsql
 stable SECURITY DEFINER
 set search_path to 'public', 'pg_temp'
 set plan_cache_mode to 'force_generic_plan'
as $function$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  numbers boolean := p_pattern ~ '^%\+?[0-9]+%$';
  candidates bigint[];
begin
  if p_pattern is null or p_limit is null or p_limit < 1 or (company is null and not platform) then
    return;
  end if;
  if company is null and numbers then
    return query select t.company_id, t.message_id, t.created_at from message_search_text t
                  where ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                    and (t.content like p_pattern or t.msisdn like p_pattern)
                  limit p_limit;
  elsif company is null then
    return query select t.company_id, t.message_id, t.created_at from message_search_text t
                  where ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                    and t.content like p_pattern
                  limit p_limit;
  elsif numbers then
    return query select t.company_id, t.message_id, t.created_at from message_search_text t
                  where t.company_id = company
                    and ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                    and (t.content like p_pattern or t.msisdn like p_pattern)
                  limit p_limit;
  else
    candidates := message_search_word_start_ids(company, p_pattern);
    if candidates is not null then
      return query select t.company_id, t.message_id, t.created_at from message_search_text t
                    where t.company_id = company and t.message_id = any(candidates)
                      and ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                      and t.content like p_pattern
                    limit p_limit;
    else
      return query select t.company_id, t.message_id, t.created_at from message_search_text t
                    where t.company_id = company
                      and ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                      and t.content like p_pattern
                    limit p_limit;
    end if;
  end if;
end $function$;
revoke execute on function message_search_matches(p_company_id bigint, p_pattern text, p_limit integer) from public;

-- 0034's searched list; a search past the cap for a word takes its page from
-- message_search_word_page when that answers, else as before (the newest 5,000, then
-- search_message_ids). Same answers.
create or replace function message_search_page(p_company_id bigint, p_pattern text, p_direction text, p_statuses text[], p_offset integer, p_limit integer, p_cap integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  window_size constant integer := 10001;
  recent constant integer := 5000;
  filtered boolean := p_direction is not null or p_statuses is not null;
  -- The text as one of 0009's words (lower-case letters and digits, 2 to 40: search_words splits
  -- at spaces and punctuation and keeps 40 characters), for one company (the word index is keyed
  -- by company first).
  whole_word text := case when p_company_id is not null and p_pattern ~ '^%[a-z0-9]{2,40}%$'
                          then substr(p_pattern, 2, length(p_pattern) - 2) end;
  counts json;
  counted integer;
  more boolean := false;
  exact boolean;
  company_ids bigint[];
  message_ids bigint[];
  found_at timestamptz[];
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

  if not filtered and p_pattern ~ '[[:alnum:]]{3}' then
    -- A company's messages holding the text as a whole word (0009's word index, read alone) hold it:
    -- more than p_cap of them is the answer without the trigram index.
    if whole_word is not null then
      select count(*)::int into counted
        from (select 1 from message_search_words w
               where w.company_id = p_company_id and w.word = whole_word limit p_cap + 1) x;
      more := counted > p_cap;
    end if;
    if not more then
      select count(*)::int, array_agg(f.company_id), array_agg(f.message_id), array_agg(f.created_at)
        into counted, company_ids, message_ids, found_at
        from message_search_matches(p_company_id, p_pattern, p_cap + 1) f;
      more := counted > p_cap;
    end if;
    if not more then
      select array_agg(k.company_id order by k.created_at desc, k.message_id desc),
             array_agg(k.message_id order by k.created_at desc, k.message_id desc)
        into company_ids, message_ids
        from (select f.company_id, f.message_id, f.created_at
                from unnest(company_ids, message_ids, found_at) f(company_id, message_id, created_at)
               order by f.created_at desc, f.message_id desc
              offset p_offset limit p_limit) k;
    else
      -- A word's messages, read from the word index with those of the longer words holding it, are
      -- every message holding its text when message_search_word_page can prove it (else no rows).
      if whole_word is not null then
        select count(*)::int, array_agg(k.company_id order by k.created_at desc, k.message_id desc),
               array_agg(k.message_id order by k.created_at desc, k.message_id desc)
          into counted, company_ids, message_ids
          from message_search_word_page(p_company_id, whole_word, p_offset + p_limit) k;
      else
        counted := 0;
      end if;
      if counted = 0 then
        select count(*)::int, array_agg(k.company_id order by k.created_at desc, k.message_id desc),
               array_agg(k.message_id order by k.created_at desc, k.message_id desc)
          into counted, company_ids, message_ids
          from message_search_recent(p_company_id, p_pattern, p_offset + p_limit, recent) k;
      end if;
      if counted < p_offset + p_limit then
        select array_agg(k.company_id order by k.created_at desc, k.message_id desc),
               array_agg(k.message_id order by k.created_at desc, k.message_id desc)
          into company_ids, message_ids
          from search_message_ids(p_company_id, p_pattern, p_offset + p_limit) k;
      end if;
      -- The page: the last p_limit of the newest p_offset + p_limit (in that order, newest first).
      company_ids := company_ids[p_offset + 1 : p_offset + p_limit];
      message_ids := message_ids[p_offset + 1 : p_offset + p_limit];
      counted := p_cap + 1;
    end if;
    return json_build_object('counts', counts, 'searched', json_build_object('n', counted, 'more', more),
                             'messages', message_page_rows(company_ids, message_ids));
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
end $function$;
revoke execute on function message_search_page(p_company_id bigint, p_pattern text, p_direction text, p_statuses text[], p_offset integer, p_limit integer, p_cap integer) from public;

-- The newest p_limit matches of p_pattern among the caller's newest p_recent messages, newest first:
-- a common text's page is found there (a walk of 0030's index that holds the text, read alone).
-- Fewer than p_limit: the page is not all there, and the caller asks search_message_ids (planned for
-- the pattern: it weighs the walk against the trigram index). Scoped as message_search_matches;
-- planned once per connection (an index walk from the company's newest, for any pattern).
create or replace function message_search_recent(p_company_id bigint, p_pattern text, p_limit integer, p_recent integer)
 returns TABLE(company_id bigint, message_id bigint, created_at timestamp with time zone)
 language plpgsql
 stable SECURITY DEFINER
 set search_path to 'public', 'pg_temp'
 set plan_cache_mode to 'force_generic_plan'
as $function$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  numbers boolean := p_pattern ~ '^%\+?[0-9]+%$';
begin
  if p_pattern is null or p_limit is null or p_limit < 1 or (company is null and not platform) then
    return;
  end if;
  if company is null then
    return query select t.company_id, t.message_id, t.created_at
                   from (select t.company_id, t.message_id, t.created_at, t.content, t.msisdn from message_search_text t
                          where ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                          order by t.created_at desc, t.message_id desc limit p_recent) t
                  where t.content like p_pattern or (numbers and t.msisdn like p_pattern)
                  order by t.created_at desc, t.message_id desc limit p_limit;
  else
    return query select t.company_id, t.message_id, t.created_at
                   from (select t.company_id, t.message_id, t.created_at, t.content, t.msisdn from message_search_text t
                          where t.company_id = company
                            and ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                          order by t.created_at desc, t.message_id desc limit p_recent) t
                  where t.content like p_pattern or (numbers and t.msisdn like p_pattern)
                  order by t.created_at desc, t.message_id desc limit p_limit;
  end if;
end $function$;
revoke execute on function message_search_recent(p_company_id bigint, p_pattern text, p_limit integer, p_recent integer) from public;

-- message_search_word_page's check ("not (platform or company = app_company_id())") was null, so
-- passed, for an unbound transaction.
create or replace function message_search_word_page(p_company_id bigint, p_word text, p_limit integer)
 returns TABLE(company_id bigint, message_id bigint, created_at timestamp with time zone)
 language plpgsql
 stable SECURITY DEFINER
 set search_path to 'public', 'pg_temp'
 set plan_cache_mode to 'force_generic_plan'
as $function$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  pattern text := '%' || p_word || '%';
  words text[];
begin
  if company is null or p_word is null or p_word !~ '^[a-z0-9]{2,40}$' or p_word !~ '[a-z]'
     or p_limit is null or p_limit < 1
     or not app_may_read_company(company) then
    return;
  end if;
  if exists (select 1 from message_search_vocabulary v where v.company_id = company and length(v.word) >= 40) then
    return;
  end if;
  select array_agg(v.word) into words
    from (select v.word from message_search_vocabulary v
           where v.company_id = company and v.word like pattern limit 17) v;
  if words is null or cardinality(words) > 16 then
    return;
  end if;
  return query
    select k.company_id, k.message_id, k.created_at
      from (select distinct w.company_id, w.message_id, w.created_at
              from unnest(words) x(word)
              cross join lateral (select w.company_id, w.message_id, w.created_at from message_search_words w
                                   where w.company_id = company and w.word = x.word
                                   order by w.created_at desc, w.message_id desc limit p_limit) w) k
     order by k.created_at desc, k.message_id desc limit p_limit;
end $function$;
revoke execute on function message_search_word_page(p_company_id bigint, p_word text, p_limit integer) from public;

-- A SECURITY DEFINER function runs as the owner, past row-level security, so it checks the company
-- it is asked about against the binding itself. search_message_ids, message_search_matches,
-- message_search_recent and count_message_matches hold the binding's condition in each statement
-- they run; these two did not:
-- message_search_word_start_ids read any company's word index (the ids of another company's
-- messages, for a caller bound to one company): now none for a company the binding may not read.
create or replace function message_search_word_start_ids(p_company_id bigint, p_pattern text)
 returns bigint[]
 language plpgsql
 stable SECURITY DEFINER
 set search_path to 'public', 'pg_temp'
 set plan_cache_mode to 'force_generic_plan'
as $function$
declare
  word_start text := search_word_start(p_pattern);
  -- The words beginning with word_start, in byte order ("C"): from it up to the string after its
  -- last character (a letter or digit, so the next character is one byte on).
  word_after text := left(word_start, -1) || chr(ascii(right(word_start, 1)) + 1);
  entries integer;
  candidates bigint[];
begin
  if not app_may_read_company(p_company_id) then
    return '{}';
  end if;
  if p_company_id is null or word_start is null or p_pattern ~ '^%\+?[0-9]+%$' then
    return null;
  end if;
  select count(*)::int, array_agg(distinct w.message_id) into entries, candidates
    from (select w.message_id from message_search_words w
           where w.company_id = p_company_id and w.word >= word_start and w.word < word_after
           limit 257) w;
  if entries > 256 then
    return null;
  end if;
  return coalesce(candidates, '{}');
end $function$;
revoke execute on function message_search_word_start_ids(p_company_id bigint, p_pattern text) from public;


create or replace function count_message_matches(p_company_id bigint, p_pattern text, p_limit integer)
 returns integer
 language plpgsql
 stable SECURITY DEFINER
 set search_path to 'public', 'pg_temp'
as $function$
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
end $function$;
revoke execute on function count_message_matches(p_company_id bigint, p_pattern text, p_limit integer) from public;


create or replace function top_bar_first_pass(p_company_id bigint, p_service_pattern text, p_service_prefix text, p_message_pattern text, p_message_word text, p_limit integer, p_recent integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  from_words json;
  found integer := 0;
  by_recency json;
begin
  if p_message_pattern is not null and p_company_id is not null and p_message_word is not null then
    select coalesce(json_agg(f order by f.created_at desc, f.id desc), '[]'), count(*) into from_words, found
      from (select m.id, m.content, m.direction, m.status, m.created_at, c.name as company_name
              from message_search_word_page(p_company_id, p_message_word, p_limit) k
              join messages m on m.company_id = k.company_id and m.id = k.message_id
              join companies c on c.id = m.company_id) f;
  end if;
  if found = 0 then
    by_recency := top_bar_first_pass_by_recency(p_company_id, p_service_pattern, p_service_prefix,
                                                p_message_pattern, p_limit, p_recent);
    return json_build_object('services', by_recency -> 'services', 'messages', by_recency -> 'messages',
                             'complete', false);
  end if;
  by_recency := top_bar_first_pass_by_recency(p_company_id, p_service_pattern, p_service_prefix, null,
                                              p_limit, p_recent);
  return json_build_object('services', by_recency -> 'services', 'messages', from_words, 'complete', true);
end $function$;
revoke execute on function top_bar_first_pass(p_company_id bigint, p_service_pattern text, p_service_prefix text, p_message_pattern text, p_message_word text, p_limit integer, p_recent integer) from public;


create or replace function top_bar_first_pass_by_recency(p_company_id bigint, p_service_pattern text, p_service_prefix text, p_message_pattern text, p_limit integer, p_recent integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
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
end $function$;
revoke execute on function top_bar_first_pass_by_recency(p_company_id bigint, p_service_pattern text, p_service_prefix text, p_message_pattern text, p_limit integer, p_recent integer) from public;

-- A company's whole subscriber list as columns (ADR 0012, 2026-11-27).
--
-- subscriber_list_page (0030) built its page as one JSON object a row: json_agg of the row, whose
-- every value PostgreSQL types and converts on its own (a cache lookup or two each), and a hash join
-- of the rows with their active services. A page of 100 took 0.35 ms of the backend alone (EXPLAIN
-- and loops on the tenth-size bench data), 0.2 ms of it the JSON. The same page here comes as one
-- array a column (each array converted by one routine for its type), the active services as the
-- (subscriber, service) pairs of the page's range, ordered, which the API puts beside their rows:
-- no join, no JSON object a row. Same rows, order, state (exact total and newest id) and services.
-- SECURITY INVOKER: row-level security applies to everything it reads.
create or replace function subscriber_list_columns(p_company_id bigint, p_offset integer, p_limit integer, p_at_or_below_id bigint)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  total bigint;
  newest bigint;
  company_name text;
  -- A variable, not coalesce(...) in the statement: the generic plan keeps it in the index condition.
  upper_id bigint;
  lowest bigint;
  highest bigint;
  ids bigint[];
  msisdns text[];
  statuses text[];
  created timestamptz[];
  subscribed bigint[];
  services bigint[];
begin
  select (select coalesce(sum(subscriber_count), 0) from company_subscriber_counts where company_id = p_company_id),
         (select max(id) from subscribers where company_id = p_company_id),
         (select name from companies where id = p_company_id)
    into total, newest, company_name;
  upper_id := coalesce(p_at_or_below_id, newest);
  select min(k.id), max(k.id) into lowest, highest
    from (select s.id from subscribers s
           where s.company_id = p_company_id and s.id <= upper_id
           order by s.id desc offset p_offset limit p_limit) k;
  -- The company's row unseen (as the join with it in 0030): no rows.
  if company_name is not null and lowest is not null then
    select array_agg(s.id order by s.id desc), array_agg(s.msisdn order by s.id desc),
           array_agg(s.status order by s.id desc), array_agg(s.created_at order by s.id desc)
      into ids, msisdns, statuses, created
      from subscribers s
     where s.company_id = p_company_id and s.id between lowest and highest;
    select array_agg(x.subscriber_id order by x.subscriber_id desc, x.service_id),
           array_agg(x.service_id order by x.subscriber_id desc, x.service_id)
      into subscribed, services
      from subscriptions x
     where x.company_id = p_company_id and x.subscriber_id between lowest and highest and x.status = 'active';
  end if;
  return json_build_object('total', total, 'newest', newest, 'company', company_name,
                           'ids', coalesce(ids, '{}'), 'msisdns', coalesce(msisdns, '{}'),
                           'statuses', coalesce(statuses, '{}'), 'created', coalesce(created, '{}'),
                           'subscribed', coalesce(subscribed, '{}'), 'services', coalesce(services, '{}'));
end $function$;
revoke execute on function subscriber_list_columns(p_company_id bigint, p_offset integer, p_limit integer, p_at_or_below_id bigint) from public;

-- The rows of a page of subscribers named by their keys, in that order, with their company's name
-- and their active services, as json, planned once per connection: a filtered list (a status, a
-- phone search, a service) finds its page's keys and its capped count in one statement planned for
-- its values (the search's ranges differ in how much they match), and its rows here. Its one
-- statement with the rows' join and their active services took 1.2 to 2 ms to plan, the keys alone
-- 0.2 ms. SECURITY INVOKER, as above.
create or replace function subscriber_page_rows(p_company_ids bigint[], p_ids bigint[])
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
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
end $function$;
revoke execute on function subscriber_page_rows(p_company_ids bigint[], p_ids bigint[]) from public;

-- A company's phone search (no other filter), planned once per connection: its numbers that start
-- with p_start_1 or p_start_2 (the digits as typed and as a national number of p_country, in
-- E.164; the same twice when there is one) or end with the digits (p_end_reversed, on 0012's
-- reversed column), newest first, with the search's exact total, when it has at most p_few
-- matches. The ranges are 0009's and 0012's (byte order, leakproof: row-level security lets the
-- indexes serve). Such a search's matches are collected from the indexes and sorted (at most
-- 3 x (p_few + 1) index entries read, whatever the search); a broader one
-- answers {"broad": true} and the caller reads it as before (its keys and capped count planned for
-- its values: a generic plan would collect every match of a broad beginning before sorting).
-- The company's country is read here: when it is not p_country, the answer is {"country": ...} and
-- nothing else, and the caller asks again with prefixes of that country (it was a statement of its
-- own on every search). The page's rows are subscriber_page_rows' (0030). It was one statement
-- planned on every call (0.6 ms of planning, 0.15 ms to run, 27 buffers) and the country's.
-- SECURITY INVOKER: row-level security applies to everything it reads.
create or replace function subscriber_search_page(p_company_id bigint, p_country text, p_start_1 text, p_start_2 text, p_end_reversed text, p_offset integer, p_limit integer, p_few integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  -- Variables, not expressions in the statement: the generic plan keeps them in the index conditions.
  end_1 text := p_start_1 || U&'\+10FFFF';
  end_2 text := p_start_2 || U&'\+10FFFF';
  end_reversed text := p_end_reversed || U&'\+10FFFF';
  country text;
  found bigint[];
  page bigint[];
begin
  select c.default_country into country from companies c where c.id = p_company_id;
  if country is distinct from p_country then
    return json_build_object('country', country);
  end if;
  -- Each range's first p_few + 1 by its index (a bitmap of the three would read every match of a
  -- broad beginning before the limit): when none is cut short, these are every match.
  select array_agg(u.id order by u.id desc) into found
    from (select distinct x.id
            from ((select s.id from subscribers s
                    where s.company_id = p_company_id
                      and (s.msisdn collate "C") >= p_start_1 and (s.msisdn collate "C") < end_1
                    limit p_few + 1)
                  union all
                  (select s.id from subscribers s
                    where s.company_id = p_company_id
                      and (s.msisdn collate "C") >= p_start_2 and (s.msisdn collate "C") < end_2
                    limit p_few + 1)
                  union all
                  (select s.id from subscribers s
                    where s.company_id = p_company_id
                      and (s.msisdn_reversed collate "C") >= p_end_reversed
                      and (s.msisdn_reversed collate "C") < end_reversed
                    limit p_few + 1)) x) u;
  -- A range cut short holds p_few + 1 of them: more than p_few in all.
  if coalesce(cardinality(found), 0) > p_few then
    return json_build_object('broad', true);
  end if;
  page := found[p_offset + 1 : p_offset + p_limit];
  return json_build_object(
    'total', coalesce(cardinality(found), 0),
    'subscribers', subscriber_page_rows(array_fill(p_company_id, array[coalesce(cardinality(page), 0)]), page));
end $function$;
revoke execute on function subscriber_search_page(p_company_id bigint, p_country text, p_start_1 text, p_start_2 text, p_end_reversed text, p_offset integer, p_limit integer, p_few integer) from public;

-- 0027's dashboard_figures, its audit entries carrying by_platform_staff.
create or replace function dashboard_figures(p_company_id bigint, p_this_month date, p_last_month date, p_span_end_day date, p_span_end timestamp with time zone, p_recent integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
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
                    from (select id, action, entity, entity_id, user_name, by_platform_staff, details, created_at
                            from audit_logs
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
                  from (select id, action, entity, entity_id, user_name, by_platform_staff, details, created_at
                            from audit_logs
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
end $function$;
revoke execute on function dashboard_figures(p_company_id bigint, p_this_month date, p_last_month date, p_span_end_day date, p_span_end timestamp with time zone, p_recent integer) from public;

