-- The message list without a search (message-logs.repository.ts listMessagesWithCounts).
--
-- Why these console reads are PL/pgSQL functions and not queries in their module's repository:
-- a repository's statement is planned for its values on every call (it is sent unnamed), and for
-- these reads planning cost more than running (see each function).
-- A PL/pgSQL function's statements are planned once per connection (force_generic_plan) in shapes
-- whose plan suits any company. Moving one back was measured (bench --quick, 2 December): the
-- message details' PostgreSQL CPU a request went from 0.41 to 1.67 ms, the dashboard's from 0.45
-- to 1.65 ms.

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
