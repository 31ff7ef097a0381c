-- A message's words: lower case, split at spaces and ASCII punctuation, 2 to 40 characters, each once.
-- The search splits its text with the same function, so both sides always agree.
create or replace function search_words(content text)
 returns SETOF text
 language sql
 immutable PARALLEL SAFE
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
 immutable PARALLEL SAFE
as $function$
  select left(m[1], 40)
    from regexp_matches(substr(p_pattern, 2, length(p_pattern) - 2), '[[:space:][:punct:]]([a-z0-9]{2,})', 'g') m
   where p_pattern ~ '^%[^%_\\]+%$'
   order by length(m[1]) desc
   limit 1
$function$;


create or replace function messages_search_text()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
begin
  if tg_op = 'INSERT' then
    insert into message_search_text (company_id, message_id, created_at, content, msisdn)
    select n.company_id, n.id, n.created_at, lower(n.content), n.msisdn from new_rows n
    on conflict (company_id, message_id) do update
      set created_at = excluded.created_at, content = excluded.content, msisdn = excluded.msisdn;
  elsif tg_op = 'DELETE' then
    delete from message_search_text t using old_rows o
     where t.company_id = o.company_id and t.message_id = o.id;
  else
    -- A row of another company than before loses its old key; then every changed row is written.
    delete from message_search_text t
     using (select id, company_id from old_rows except select id, company_id from new_rows) o
     where t.company_id = o.company_id and t.message_id = o.id;
    insert into message_search_text (company_id, message_id, created_at, content, msisdn)
    select n.company_id, n.id, n.created_at, lower(n.content), n.msisdn
      from (select id, company_id, content, msisdn, created_at from new_rows
            except
            select id, company_id, content, msisdn, created_at from old_rows) n
    on conflict (company_id, message_id) do update
      set created_at = excluded.created_at, content = excluded.content, msisdn = excluded.msisdn;
  end if;
  return null;
end $function$;
revoke execute on function messages_search_text() from public;
revoke execute on function messages_search_text() from sms_app;

drop trigger if exists messages_search_text_delete on messages;
create trigger messages_search_text_delete after delete on messages referencing old table as old_rows for each statement execute function messages_search_text();
drop trigger if exists messages_search_text_insert on messages;
create trigger messages_search_text_insert after insert on messages referencing new table as new_rows for each statement execute function messages_search_text();
drop trigger if exists messages_search_text_update on messages;
create trigger messages_search_text_update after update on messages referencing old table as old_rows new table as new_rows for each statement execute function messages_search_text();

-- The two search tables' update triggers (0009's words for the top bar, 0018's text for the message
-- list) found the rows whose text changed by joining the statement's new and old rows on id. Those
-- transition tables have no index or statistics, so the planner joined them by nested loop: a
-- status change of 100 messages in one statement took 150 ms in these triggers, of 1,000 messages
-- 11 to 14 s (EXPLAIN ANALYZE, 100,000 messages). The changed rows are now found with EXCEPT (hashed
-- or sorted, linear in the rows): a row whose text, time and company are as they were is not in it.
-- Same rows written as before; a message moved to another company now also moves its text row.
create or replace function messages_search_words()
 returns trigger
 language plpgsql
as $function$
begin
  if tg_op = 'INSERT' then
    insert into message_search_words (company_id, word, created_at, message_id)
    select n.company_id, w.word, n.created_at, n.id from new_rows n cross join lateral search_words(n.content) as w(word)
    on conflict do nothing;
  elsif tg_op = 'DELETE' then
    delete from message_search_words x
     using (select o.company_id, w.word, o.created_at, o.id
              from old_rows o cross join lateral search_words(o.content) as w(word)) d
     where x.company_id = d.company_id and x.word = d.word and x.created_at = d.created_at and x.message_id = d.id;
  else
    -- Most updates change a status, not the text: only rows whose text (or time, or company) changed
    -- are redone, in two statements (one statement could not delete a key and add it back).
    delete from message_search_words x
     using (select o.company_id, w.word, o.created_at, o.id
              from (select id, company_id, content, created_at from old_rows
                    except
                    select id, company_id, content, created_at from new_rows) o
              cross join lateral search_words(o.content) as w(word)) d
     where x.company_id = d.company_id and x.word = d.word and x.created_at = d.created_at and x.message_id = d.id;
    insert into message_search_words (company_id, word, created_at, message_id)
    select n.company_id, w.word, n.created_at, n.id
      from (select id, company_id, content, created_at from new_rows
            except
            select id, company_id, content, created_at from old_rows) n
      cross join lateral search_words(n.content) as w(word)
    on conflict do nothing;
  end if;
  return null;
end $function$;

drop trigger if exists messages_search_words_delete on messages;
create trigger messages_search_words_delete after delete on messages referencing old table as old_rows for each statement execute function messages_search_words();
drop trigger if exists messages_search_words_insert on messages;
create trigger messages_search_words_insert after insert on messages referencing new table as new_rows for each statement execute function messages_search_words();
drop trigger if exists messages_search_words_update on messages;
create trigger messages_search_words_update after update on messages referencing old table as old_rows new table as new_rows for each statement execute function messages_search_words();

-- The words a statement added to the word index, once each; a word already there costs a probe.
-- The condition is message_search_word_page's (below): a text it pages has a letter.
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
