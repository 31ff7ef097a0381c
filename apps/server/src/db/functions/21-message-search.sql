-- The message search's two doors (modules/messages/message-search.repository.ts, and the top bar's
-- search.repository.ts). message_search_text and message_search_vocabulary lie outside row-level
-- security: a LIKE is not leakproof, so under a policy their trigram indexes could not serve. The
-- application's role cannot read them; these SECURITY DEFINER functions read them for it, each
-- scoped by the caller's binding as the policies are (a company's rows, or the platform's), and
-- return keys the caller joins to messages under row-level security.

-- The matches of a LIKE pattern in message_search_text (lower-cased content; the number too when the
-- text is digits, with or without a leading +), at most p_limit:
-- - p_newest_first: the newest, else any (a count, or every match of a search known to have few);
-- - p_among_newest: only among the company's (null: every company's) newest that many;
-- - p_word_start: letters and digits that follow a separator in the text (the caller finds them):
--   a company's matches are then among the messages with a word beginning so, from its word index
--   (0009), when those are at most 256 entries.
-- Planned for its values on every call (EXECUTE), as a repository's statement would be: the planner
-- weighs the trigram index against a walk of the newest for the pattern at hand.
-- p_company_id null: every company the binding sees.
create or replace function message_search_text_matches(p_company_id bigint, p_pattern text, p_limit integer, p_newest_first boolean, p_among_newest integer, p_word_start text)
 returns table(company_id bigint, message_id bigint, created_at timestamp with time zone)
 language plpgsql
 stable security definer
 set search_path to 'public', 'pg_temp'
as $function$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  candidates bigint[];
  entries integer;
begin
  -- A company the binding may not read has no matches (the word index below is read as the owner).
  if p_pattern is null or p_limit is null or p_limit < 1 or (company is null and not platform)
     or (company is not null and not app_may_read_company(company)) then
    return;
  end if;
  if company is not null and p_word_start is not null then
    -- The words from p_word_start up to the string after its last character (a letter or digit, so
    -- the next character is one byte on), in byte order.
    select count(*)::int, array_agg(distinct w.message_id) into entries, candidates
      from (select w.message_id from message_search_words w
             where w.company_id = company and w.word >= p_word_start
               and w.word < left(p_word_start, -1) || chr(ascii(right(p_word_start, 1)) + 1)
             limit 257) w;
    if entries > 256 then
      candidates := null;
    else
      candidates := coalesce(candidates, '{}');
    end if;
  end if;
  return query execute format(
    'select t.company_id, t.message_id, t.created_at
       from (select t.company_id, t.message_id, t.created_at, t.content, t.msisdn from message_search_text t
              where ((select app_platform_scope()) or t.company_id = (select app_company_id())) %s %s %s) t
      where %s %s limit $3',
    case when company is not null then 'and t.company_id = $1' end,
    case when candidates is not null then 'and t.message_id = any($4)' end,
    case when p_among_newest is not null then 'order by t.created_at desc, t.message_id desc limit $5' end,
    case when p_pattern ~ '^%\+?[0-9]+%$' then '(t.content like $2 or t.msisdn like $2)' else 't.content like $2' end,
    case when p_newest_first then 'order by t.created_at desc, t.message_id desc' end)
    using company, p_pattern, p_limit, candidates, p_among_newest;
end $function$;
revoke execute on function message_search_text_matches(p_company_id bigint, p_pattern text, p_limit integer, p_newest_first boolean, p_among_newest integer, p_word_start text) from public;

-- The words of a company's vocabulary (0009's words, once each) that hold p_word, when they are
-- at most 16: the messages holding the word as text are then those with one of these words, read
-- from the word index under row-level security. null when that cannot be said: a word of 40
-- characters (search_words cuts longer ones), too many words, a word without a letter (the
-- vocabulary keeps only those), or a company the binding may not read.
create or replace function message_search_vocabulary_words(p_company_id bigint, p_word text)
 returns text[]
 language plpgsql
 stable security definer
 set search_path to 'public', 'pg_temp'
as $function$
declare
  words text[];
begin
  if p_company_id is null or p_word is null or p_word !~ '^[a-z0-9]{2,40}$' or p_word !~ '[a-z]'
     or not app_may_read_company(p_company_id) then
    return null;
  end if;
  if exists (select 1 from message_search_vocabulary v where v.company_id = p_company_id and length(v.word) >= 40) then
    return null;
  end if;
  select array_agg(v.word) into words
    from (select v.word from message_search_vocabulary v
           where v.company_id = p_company_id and v.word like '%' || p_word || '%' limit 17) v;
  if cardinality(words) > 16 then
    return null;
  end if;
  return coalesce(words, '{}');
end $function$;
revoke execute on function message_search_vocabulary_words(p_company_id bigint, p_word text) from public;
