-- A common word's page from the word index (ADR 0012, 2026-11-27).
--
-- 0034 counts a searched word past the cap from the word index (message_search_words, 0009), but
-- finds its page by matching the pattern against the company's newest texts (message_search_recent:
-- 'weekend' walked about 1,200 of the big company's rows for a page of 20, 0.3 ms). The word index
-- alone cannot give that page: the search finds the text anywhere, so 'weekend' also finds
-- 'weekends' and 'midweekend', which the word index holds under those words. What it needs is the
-- words that hold the text, which no index on message_search_words can find ('%weekend%').
--
-- message_search_vocabulary holds every word with a letter the word index has held for a company
-- (added by a statement trigger on message_search_words, never removed: a word whose messages are
-- gone finds nothing, so a longer list only costs a lookup), and every word of 40 characters. Its
-- trigram index finds the words holding a text. Words of digits alone (codes, numbers: mostly new
-- ones) are left out: they cannot hold a text with a letter, and only such a text is paged this way.
-- The text, being letters and digits, never spans the separators search_words splits at, so a
-- message holds it exactly when one of its words does, with one exception: search_words keeps a
-- word's first 40 characters, so in a word longer than that the text may lie past what is kept.
-- Hence message_search_word_page gives the page only for a company none of whose words has 40
-- characters (a partial index answers that), and when at most 16 words hold the text: then the
-- newest p_limit messages of each of those words (the word index, newest first), merged, are the
-- newest p_limit messages holding the text. Otherwise it answers nothing and the page is found as
-- before. A word of digits alone is not paged this way: a number search also finds numbers.
--
-- The table is outside row-level security (a LIKE under a policy cannot use the trigram index);
-- sms_app has no rights on it, and the function scopes itself by the binding as 0034's do.

create table message_search_vocabulary (
  company_id bigint not null,
  word text collate "C" not null,
  primary key (company_id, word)
);
revoke all on table message_search_vocabulary from public, sms_app;
alter table message_search_vocabulary enable row level security;
create policy tenant_isolation on message_search_vocabulary
  using ((select app_platform_scope()) or company_id = (select app_company_id()))
  with check ((select app_platform_scope()) or company_id = (select app_company_id()));
create index message_search_vocabulary_trgm_idx on message_search_vocabulary using gin (word gin_trgm_ops);
-- The companies with a word of 40 characters (kept from a longer one, or of exactly that length).
create index message_search_vocabulary_long_idx on message_search_vocabulary (company_id) where length(word) >= 40;

-- The words a statement added to the word index, once each; a word already there costs a probe.
-- The condition is message_search_word_page's (below): a text it pages has a letter.
create function message_search_vocabulary_add() returns trigger
  language plpgsql security definer set search_path = public, pg_temp as $$
begin
  insert into message_search_vocabulary (company_id, word)
  select distinct n.company_id, n.word from new_words n
   where n.word ~ '[a-z]' or length(n.word) >= 40
  on conflict do nothing;
  return null;
end $$;
revoke execute on function message_search_vocabulary_add() from public, sms_app;
create trigger message_search_words_vocabulary after insert on message_search_words
  referencing new table as new_words for each statement execute function message_search_vocabulary_add();

-- Creating the trigger holds message_search_words against writers until this migration commits, so
-- no word is missed between the fill and the trigger.
insert into message_search_vocabulary (company_id, word)
select distinct company_id, word from message_search_words
 where word ~ '[a-z]' or length(word) >= 40
on conflict do nothing;

-- The newest p_limit of the company's messages that hold p_word (lower-case letters and digits, 2 to
-- 40, a letter among them) anywhere in their text, newest first, from the word index: no rows when that cannot be proven
-- to be every such message (a word of the company has 40 characters, or more than 16 words hold
-- p_word), or when the caller is not bound to the company. Planned once per connection: the
-- trigram index for the words, the word index newest first for each.
create function message_search_word_page(p_company_id bigint, p_word text, p_limit integer)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer
  set search_path = public, pg_temp
  set plan_cache_mode = force_generic_plan as $$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  pattern text := '%' || p_word || '%';
  words text[];
begin
  if company is null or p_word is null or p_word !~ '^[a-z0-9]{2,40}$' or p_word !~ '[a-z]'
     or p_limit is null or p_limit < 1
     or not (platform or company = app_company_id()) then
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
end $$;
revoke execute on function message_search_word_page(bigint, text, integer) from public;
grant execute on function message_search_word_page(bigint, text, integer) to sms_app;

-- 0034's searched list; a search past the cap for a word takes its page from
-- message_search_word_page when that answers, else as before (the newest 5,000, then
-- search_message_ids). Same answers.
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
end $$;
