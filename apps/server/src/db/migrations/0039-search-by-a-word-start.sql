-- A search whose text has a word start, found from the word index (ADR 0012, 2026-11-28).
--
-- A rare text such as '#1234' was looked up in the trigram index of message_search_text: its
-- trigrams ('  1', ' 12', '123', '234') each hold a large share of the company's messages (every
-- number starting with 1, every inbound 'HELP 123'), so the bitmap read grew with the messages
-- (0.75-0.96 ms of PostgreSQL a request at the bench's million messages, the costliest console read).
--
-- Where the text has a separator (0009's search_words splits at spaces and punctuation) followed by
-- two or more letters or digits, every message holding the text has a word beginning with those
-- letters and digits: in the message the same separator stands before them, so a word starts there,
-- and it runs at least through them (neither letters nor digits split). That word is in the word
-- index, cut to 40 characters, so its first 40 start with the run's first 40. The messages with
-- such a word are a superset of the matches: when they are few, the text of each is checked, and
-- those are every match; when they are many, the trigram index is read as before. Same answers.

-- The letters and digits (2 or more, the first 40 of them) that follow a separator in a LIKE
-- pattern '%<text>%' (the longest such run), or null: a text with a wildcard or an escape in it is
-- not read this way (a wildcard may stand for the separator).
create function search_word_start(p_pattern text) returns text
  language sql immutable parallel safe as $$
  select left(m[1], 40)
    from regexp_matches(substr(p_pattern, 2, length(p_pattern) - 2), '[[:space:][:punct:]]([a-z0-9]{2,})', 'g') m
   where p_pattern ~ '^%[^%_\\]+%$'
   order by length(m[1]) desc
   limit 1
$$;

-- 0034's message_search_matches; for a company's text with a word start (search_word_start), when at
-- most 256 entries of the word index begin with it, the matches are those entries' messages whose
-- text holds the pattern. Else, and for numbers or the whole platform, as before.
create or replace function message_search_matches(p_company_id bigint, p_pattern text, p_limit integer)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer
  set search_path = public, pg_temp
  set plan_cache_mode = force_generic_plan as $$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  numbers boolean := p_pattern ~ '^%\+?[0-9]+%$';
  word_start text;
  word_after text;
  candidates bigint[];
  entries integer;
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
    word_start := search_word_start(p_pattern);
    if word_start is not null then
      -- The words beginning with word_start, in byte order ("C"): from it up to the string after its
      -- last character (a letter or digit, so the next character is one byte on).
      word_after := left(word_start, -1) || chr(ascii(right(word_start, 1)) + 1);
      select count(*)::int, array_agg(distinct w.message_id) into entries, candidates
        from (select w.message_id from message_search_words w
               where w.company_id = company and w.word >= word_start and w.word < word_after
               limit 257) w;
      if entries <= 256 then
        return query select t.company_id, t.message_id, t.created_at from message_search_text t
                      where t.company_id = company and t.message_id = any(candidates)
                        and ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                        and t.content like p_pattern
                      limit p_limit;
        return;
      end if;
    end if;
    return query select t.company_id, t.message_id, t.created_at from message_search_text t
                  where t.company_id = company
                    and ((select app_platform_scope()) or t.company_id = (select app_company_id()))
                    and t.content like p_pattern
                  limit p_limit;
  end if;
end $$;
revoke execute on function message_search_matches(bigint, text, integer) from public;
grant execute on function message_search_matches(bigint, text, integer) to sms_app;
