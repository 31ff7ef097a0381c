-- A message's words: lower case, split at spaces and ASCII punctuation, 2 to 40 characters, each once.
-- The search splits its text with the same function, so both sides always agree. (A LIKE pattern's
-- word start, which the search also reads, is found in its statement: message-search.repository.ts.)
create or replace function search_words(content text)
 returns setof text
 language sql
 immutable parallel safe
as $function$
  select distinct left(w, 40) from regexp_split_to_table(lower(content), '[[:space:][:punct:]]+') as w
   where length(w) >= 2
$function$;
