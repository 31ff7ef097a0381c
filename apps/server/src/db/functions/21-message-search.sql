-- The message list's search and its counts (message-logs.repository.ts searchMessagesWithCounts),
-- and the top bar's message matches. The SECURITY DEFINER ones read message_search_text and
-- message_search_vocabulary, which the application's role cannot read (a LIKE is not leakproof, so
-- under row-level security its trigram index could not serve): each scopes itself by the caller's
-- binding as the policies do (app_may_read_company) and returns keys the caller joins under
-- row-level security.
--
-- Why these console reads are PL/pgSQL functions and not queries in their module's repository:
-- a repository's statement is planned for its values on every call (it is sent unnamed), and for
-- these reads planning cost more than running (see each function).
-- A PL/pgSQL function's statements are planned once per connection (force_generic_plan) in shapes
-- whose plan suits any company. Moving one back was measured (bench --quick, 2 December): the
-- message details' PostgreSQL CPU a request went from 0.41 to 1.67 ms, the dashboard's from 0.45
-- to 1.65 ms.

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
