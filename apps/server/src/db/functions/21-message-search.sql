-- The searchable text and the search's vocabulary, as the application reads them (the message list's
-- search and the top bar: modules/messages/message-search.repository.ts).
--
-- message_search_text and message_search_vocabulary are kept by the trigger on messages
-- (11-message-triggers.sql) outside row-level security, and the application's role has no rights on
-- them: under row-level security a LIKE could not use their trigram indexes (it is not leakproof,
-- so the planner may not test it before the policy). These views read them as their owner and hold
-- the tenant wall in their own condition, the policies' one: the platform scope, or the company the
-- transaction is bound to (db/tenant-scope.ts); unbound, nothing.
--
-- Not security_barrier, on purpose: the caller's LIKE must reach the trigram index, so the planner
-- may test it on rows of other companies before the wall. A LIKE returns true or false and raises
-- nothing about the row it reads (only about its pattern), so it tells the caller nothing of them;
-- the application's statements put nothing else there.
create or replace view message_search_entries as
  select t.company_id, t.message_id, t.created_at, t.content, t.msisdn
    from message_search_text t
   where (select app_platform_scope()) or t.company_id = (select app_company_id());

create or replace view message_search_known_words as
  select v.company_id, v.word
    from message_search_vocabulary v
   where (select app_platform_scope()) or v.company_id = (select app_company_id());

-- Read only: the default privileges gave the application's role every right on a new view, and an
-- insert through these would write the tables as their owner.
revoke all on message_search_entries, message_search_known_words from sms_app;
grant select on message_search_entries, message_search_known_words to sms_app;
