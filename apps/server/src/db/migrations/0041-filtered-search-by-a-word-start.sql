-- 0039's word start for a search with a direction or status filter too (ADR 0012, 2026-11-28).
--
-- A filtered search finds its matches through search_message_ids (0027), by the trigram index:
-- '#1234' with the Sent filter took 1.7 ms of PostgreSQL on the bench's million messages, against
-- 0.2 ms without a filter since 0039. The word start's lookup moves into a function of its own,
-- message_search_word_start_ids, which both message_search_matches and search_message_ids now call:
-- the ids of the company's messages with a word beginning with the text's word start, when at most
-- 256 entries of the word index do (a superset of the matches, every one of them), else null (the
-- trigram index is read as before). Same answers.

-- The candidates for a company's text (0039's rule), or null when they are not provably few: no
-- word start, a number (which also searches the phone numbers), or more than 256 entries.
-- Only the search functions below call it (no grant): they scope what they return by the binding.
create function message_search_word_start_ids(p_company_id bigint, p_pattern text) returns bigint[]
  language plpgsql stable security definer
  set search_path = public, pg_temp
  set plan_cache_mode = force_generic_plan as $$
declare
  word_start text := search_word_start(p_pattern);
  -- The words beginning with word_start, in byte order ("C"): from it up to the string after its
  -- last character (a letter or digit, so the next character is one byte on).
  word_after text := left(word_start, -1) || chr(ascii(right(word_start, 1)) + 1);
  entries integer;
  candidates bigint[];
begin
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
end $$;
revoke execute on function message_search_word_start_ids(bigint, text) from public;

-- 0039's message_search_matches, its word start read through the function above.
create or replace function message_search_matches(p_company_id bigint, p_pattern text, p_limit integer)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer
  set search_path = public, pg_temp
  set plan_cache_mode = force_generic_plan as $$
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
end $$;

-- 0027's search_message_ids; a company's text of three letters or digits in a row with a word
-- start takes its matches from message_search_word_start_ids when that answers, newest first.
create or replace function search_message_ids(p_company_id bigint, p_pattern text, p_limit integer, p_few boolean default false)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer set search_path = public, pg_temp as $$
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
end $$;
