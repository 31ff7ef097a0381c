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
