-- The top bar's messages for a one-word text from the word index (ADR 0012, 28 November).
--
-- 0030's first pass looked for the text in the company's newest 1,000 messages (LIKE on each one's
-- content, newest first, until the page was full), and the search went on by the words' index
-- when fewer were found. For a common word ('weekend' on the bench's fixture) the pass read a few
-- hundred contents for its five messages: ~170 of the ~640 µs of PostgreSQL's time a request.
-- 0038's message_search_word_page gives the newest messages holding a word of letters and digits
-- anywhere in their text straight from the word index (~50 µs), whenever it can prove that is every
-- such message (else it answers nothing). So for a company's search of one such word the first
-- pass asks it first, and reads the newest messages (0030's pass, kept under another name) only
-- when it answered nothing. `complete` says the messages came from it: they are then the newest
-- holding the text, however few, and the search looks no further.
alter function top_bar_first_pass(bigint, text, text, text, integer, integer) rename to top_bar_first_pass_by_recency;

create function top_bar_first_pass(
  p_company_id bigint,
  p_service_pattern text,
  p_service_prefix text,
  p_message_pattern text,
  p_message_word text,
  p_limit integer,
  p_recent integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
declare
  from_words json;
  found integer := 0;
  by_recency json;
begin
  if p_message_pattern is not null and p_company_id is not null and p_message_word is not null then
    select coalesce(json_agg(f order by f.created_at desc, f.id desc), '[]'), count(*) into from_words, found
      from (select m.id, m.content, m.direction, m.status, m.created_at, c.name as company_name
              from message_search_word_page(p_company_id, p_message_word, p_limit) k
              join messages m on m.company_id = k.company_id and m.id = k.message_id
              join companies c on c.id = m.company_id) f;
  end if;
  if found = 0 then
    by_recency := top_bar_first_pass_by_recency(p_company_id, p_service_pattern, p_service_prefix,
                                                p_message_pattern, p_limit, p_recent);
    return json_build_object('services', by_recency -> 'services', 'messages', by_recency -> 'messages',
                             'complete', false);
  end if;
  by_recency := top_bar_first_pass_by_recency(p_company_id, p_service_pattern, p_service_prefix, null,
                                              p_limit, p_recent);
  return json_build_object('services', by_recency -> 'services', 'messages', from_words, 'complete', true);
end $$;
revoke execute on function top_bar_first_pass(bigint, text, text, text, text, integer, integer) from public;
grant execute on function top_bar_first_pass(bigint, text, text, text, text, integer, integer) to sms_app;
