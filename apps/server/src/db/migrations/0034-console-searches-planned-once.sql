-- The console's searches and deep pages doing less (ADR 0012, "read queries", 2026-11-24).
--
-- 1. A message search without another filter looked its matches up twice, each statement planned
--    for its pattern on every call (EXECUTE): count_message_matches counted up to the cap + 1 by
--    trigram, then search_message_ids found the page (by trigram and sorted when the count was
--    exact, else by walking the company's newest rows). message_search_matches collects up to
--    the cap + 1 matches' keys in one statement planned once per connection: when there are at
--    most the cap, they are every match, so the count is exact and the page is those keys sorted
--    (no second lookup); past it, the page walks the company's newest rows as before
--    (message_search_walk, planned once too).
-- 2. A page of a send's recipients walked its offset (up to 999 rows from a remembered start)
--    through the table's rows; it now walks the primary key alone (id is in it) to the page's
--    first id, then reads the page's rows.
-- 3. A company's phone search (subscriber_search_page): the matching keys up to the cap + 1 and,
--    when they are at most the cap, the page from them, with the rows, in one call planned once per
--    connection; the company's country (the national reading of the digits) is checked in the
--    same call instead of looked up in a statement of its own.

-- Up to p_limit of the caller's messages whose text holds p_pattern, in no particular order (the
-- trigram index's): their keys and times. For text with three letters or digits in a row (the
-- caller checks: shorter text gives the trigram index nothing to look up). Scoped like
-- search_message_ids (0018, 0027): the side table is outside row-level security, so the binding is
-- the wall here; p_company_id is taken only within it, and an unbound caller gets nothing. The
-- numbers are searched only for digits (0027's rule).
--
-- Planned once per connection. Its generic plan is the one the planner chose for every pattern when
-- it planned each call: a bitmap of the trigram index, then the rows' text checked (checked with
-- force_generic_plan on the bench's data: 'weekend' and '#1234', the big company and a small one).
create function message_search_matches(p_company_id bigint, p_pattern text, p_limit integer)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer
  set search_path = public, pg_temp
  set plan_cache_mode = force_generic_plan as $$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  numbers boolean := p_pattern ~ '^%\+?[0-9]+%$';
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
    return query select t.company_id, t.message_id, t.created_at from message_search_text t
                  where t.company_id = company
                    and ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                    and t.content like p_pattern
                  limit p_limit;
  end if;
end $$;
revoke execute on function message_search_matches(bigint, text, integer) from public;
grant execute on function message_search_matches(bigint, text, integer) to sms_app;

-- The newest p_limit matches of p_pattern among the caller's newest p_recent messages, newest first:
-- a common text's page is found there (a walk of 0030's index that holds the text, read alone).
-- Fewer than p_limit: the page is not all there, and the caller asks search_message_ids (planned for
-- the pattern: it weighs the walk against the trigram index). Scoped as message_search_matches;
-- planned once per connection (an index walk from the company's newest, for any pattern).
create function message_search_recent(p_company_id bigint, p_pattern text, p_limit integer, p_recent integer)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer
  set search_path = public, pg_temp
  set plan_cache_mode = force_generic_plan as $$
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
end $$;
revoke execute on function message_search_recent(bigint, text, integer, integer) from public;
grant execute on function message_search_recent(bigint, text, integer, integer) to sms_app;

-- 0030's searched list, with a search without another filter done in one lookup where it can be:
-- - text with three letters or digits in a row: when it is a word (letters and digits only) and more
--   than p_cap of the company's messages hold it as a whole word (message_search_words, 0009: a
--   message's words, lower-cased, split at spaces and punctuation), more than p_cap hold the text:
--   the count is that, read from the word index alone (1,001 index entries for 'weekend', where
--   the trigram index's bitmap of every company's 16,667 matches cost about 3 ms). Otherwise
--   message_search_matches collects up to p_cap + 1 matches. At most p_cap: they are every match, so the total is exact and the page is those
--   sorted (0030 counted them, then looked them up again by trigram for the page, each statement
--   planned for the pattern on every call). More: the total is p_cap and not exact, as before, and
--   the page is the newest matches among the company's newest 5,000 messages when they hold it
--   (message_search_recent: a common word's first pages), else search_message_ids' as before.
--   The page's keys are not joined to messages here: message_page_rows reads them under row-level
--   security (the side table holds a row for every message, kept in the same transaction).
-- - shorter text, or another filter (a direction, statuses): 0030's rules, unchanged.
-- Same answers as 0030 (message-logs tests); the same snapshot for every statement (STABLE).
create or replace function message_search_page(
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
      select count(*)::int, array_agg(k.company_id order by k.created_at desc, k.message_id desc),
             array_agg(k.message_id order by k.created_at desc, k.message_id desc)
        into counted, company_ids, message_ids
        from message_search_recent(p_company_id, p_pattern, p_offset + p_limit, recent) k;
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
end $$;

-- 0030's page of a message's recipients, its offset walked over the primary key alone: from a
-- remembered id (recipient-page-anchors.ts) a deep page skips up to 999 rows, and each skipped row
-- was read from the table (page 3,200 of 25 of the bench's 100,000-recipient send: 56 buffers a
-- call, against 9 for the first page). The key (company_id, message_id, id, created_at) holds
-- everything the skip needs, so it is an index-only walk to the page's first id, then the page's
-- rows from there. A status filter is not in the key: such a page walks the rows as before.
create or replace function recipient_page(
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
declare
  first_id bigint := p_from_id;
  skip integer := p_offset;
begin
  if p_status is null and p_offset > 0 then
    select d.id into first_id
      from delivery_reports d
     where d.company_id = p_company_id and d.message_id = p_message_id
       and d.created_at = p_recipients_at and d.id >= p_from_id
     order by d.id
    offset p_offset limit 1;
    if first_id is null then
      return '[]'::json;
    end if;
    skip := 0;
  end if;
  return (
    select coalesce(json_agg(r order by r.id), '[]')
      from (select d.id, d.recipient_phone, d.status, d.gateway_message_id, d.delivered_at, d.error_message,
                   d.attempts::int as attempts, d.updated_at
              from delivery_reports d
             where d.company_id = p_company_id and d.message_id = p_message_id
               and d.created_at = p_recipients_at and d.id >= first_id
               and (p_status is null or d.status = p_status)
             order by d.id
            offset skip limit p_limit) r);
end $$;

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
create function subscriber_search_page(
  p_company_id bigint,
  p_country text,
  p_start_1 text,
  p_start_2 text,
  p_end_reversed text,
  p_offset integer,
  p_limit integer,
  p_few integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
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
end $$;
revoke execute on function subscriber_search_page(bigint, text, text, text, text, integer, integer, integer) from public;
grant execute on function subscriber_search_page(bigint, text, text, text, text, integer, integer, integer) to sms_app;
