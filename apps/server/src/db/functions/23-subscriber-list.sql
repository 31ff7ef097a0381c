-- The subscriber list, whole or searched by number (subscribers.repository.ts).
--
-- Why these console reads are PL/pgSQL functions and not queries in their module's repository:
-- a repository's statement is planned for its values on every call (it is sent unnamed), and for
-- these reads planning cost more than running (see each function).
-- A PL/pgSQL function's statements are planned once per connection (force_generic_plan) in shapes
-- whose plan suits any company. Moving one back was measured (bench --quick, 2 December): the
-- message details' PostgreSQL CPU a request went from 0.41 to 1.67 ms, the dashboard's from 0.45
-- to 1.65 ms.

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
