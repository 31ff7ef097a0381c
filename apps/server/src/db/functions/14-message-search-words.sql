-- A message's words: lower case, split at spaces and ASCII punctuation, 2 to 40 characters, each once.
-- The search splits its text with the same function, so both sides always agree.
create or replace function search_words(content text)
 returns setof text
 language sql
 immutable parallel safe
as $function$
  select distinct left(w, 40) from regexp_split_to_table(lower(content), '[[:space:][:punct:]]+') as w
   where length(w) >= 2
$function$;

-- The letters and digits (2 or more, the first 40 of them) that follow a separator in a LIKE
-- pattern '%<text>%' (the longest such run), or null: a text with a wildcard or an escape in it is
-- not read this way (a wildcard may stand for the separator).
create or replace function search_word_start(p_pattern text)
 returns text
 language sql
 immutable parallel safe
as $function$
  select left(m[1], 40)
    from regexp_matches(substr(p_pattern, 2, length(p_pattern) - 2), '[[:space:][:punct:]]([a-z0-9]{2,})', 'g') m
   where p_pattern ~ '^%[^%_\\]+%$'
   order by length(m[1]) desc
   limit 1
$function$;


-- The words a statement added to the word index, once each; a word already there costs a probe.
-- The condition is message_search_word_page's (20-console-reads.sql): a text it pages has a letter.
create or replace function message_search_vocabulary_add()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
begin
  insert into message_search_vocabulary (company_id, word)
  select distinct n.company_id, n.word from new_words n
   where n.word ~ '[a-z]' or length(n.word) >= 40
  on conflict do nothing;
  return null;
end $function$;
revoke execute on function message_search_vocabulary_add() from public;
revoke execute on function message_search_vocabulary_add() from sms_app;

drop trigger if exists message_search_words_vocabulary on message_search_words;
create trigger message_search_words_vocabulary after insert on message_search_words referencing new table as new_words for each statement execute function message_search_vocabulary_add();
