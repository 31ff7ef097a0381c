-- Functions and triggers folded into others or moved to their modules' repositories
-- (db/functions/, ADR 0012): the old ones go. Migrations run before db/functions/ is applied, which
-- creates what replaces them.
-- The webhook outbox: written by the tables' own trigger functions, messages_changed (11) and
-- subscriptions_changed (12), which also keeps the services' subscriber counts.
drop trigger if exists webhook_events_messages_inserted on messages;
drop trigger if exists webhook_events_messages_updated on messages;
drop trigger if exists webhook_events_subscriptions_inserted on subscriptions;
drop trigger if exists webhook_events_subscriptions_updated on subscriptions;
drop trigger if exists subscriptions_count_insert on subscriptions;
drop trigger if exists subscriptions_count_update on subscriptions;
drop trigger if exists subscriptions_count_delete on subscriptions;
drop function if exists webhook_events_of_messages();
drop function if exists webhook_events_of_subscriptions();
drop function if exists webhook_message_payload(messages);
drop function if exists webhook_subscription_payload(subscriptions, text);
drop function if exists subscriptions_count_changes();
-- The console's reads: named prepared statements in their modules' repositories, planned once per
-- connection as the functions were (lib/planned-once.ts).
drop function if exists dashboard_figures(bigint, date, date, date, timestamptz, integer);
drop function if exists message_list_page(bigint, text, text[], integer, integer);
drop function if exists message_details_page(bigint, bigint, text, integer, integer, timestamptz, bigint, integer);
drop function if exists recipient_page_columns(bigint, bigint, timestamptz, text, bigint, integer, integer);
drop function if exists message_with_state(bigint, bigint);
-- The search: statements in message-search.repository.ts over two views that hold the tenant wall
-- (21-message-search.sql); a pattern's word start is read in its statement.
drop function if exists message_search_page(bigint, text, text, text[], integer, integer, integer);
drop function if exists count_message_matches(bigint, text, integer);
drop function if exists message_search_word_page(bigint, text, integer);
drop function if exists message_search_recent(bigint, text, integer, integer);
drop function if exists message_search_matches(bigint, text, integer);
drop function if exists search_message_ids(bigint, text, integer, boolean);
drop function if exists message_search_word_start_ids(bigint, text);
drop function if exists search_word_start(text);
drop function if exists message_page_rows(bigint[], bigint[]);
-- The search's own check of the binding, which the views' condition now holds.
drop function if exists app_may_read_company(bigint);
-- The route guard's visibility check: a named statement per table (modules/auth/session.repository.ts).
drop function if exists app_row_visible(text, bigint, bigint);
