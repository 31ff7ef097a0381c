-- The top bar's first pass over services and messages (search.repository.ts).
--
-- Why these console reads are PL/pgSQL functions and not queries in their module's repository:
-- a repository's statement is planned for its values on every call (it is sent unnamed), and for
-- these reads planning cost more than running (see each function).
-- A PL/pgSQL function's statements are planned once per connection (force_generic_plan) in shapes
-- whose plan suits any company. Moving one back was measured (bench --quick, 2 December): the
-- message details' PostgreSQL CPU a request went from 0.41 to 1.67 ms, the dashboard's from 0.45
-- to 1.65 ms.

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
