-- Functions and triggers folded into others (db/functions/): the old ones go.
-- message_send_hour: read inline by the rollup triggers (10, 11).
drop function if exists message_send_hour(bigint, bigint);
-- messages_activity_before_delete: the row-level branch of messages_changed (11); the function
-- file creates the trigger again on it.
drop trigger if exists messages_activity_before_delete on messages;
drop function if exists messages_activity_before_delete();
-- message_search_vocabulary_add: messages_changed adds the words it inserts (11).
drop trigger if exists message_search_words_vocabulary on message_search_words;
drop function if exists message_search_vocabulary_add();
-- The partitions' helpers: inside ensure_delivery_report_partition (30).
drop function if exists create_tenant_month_partition(regclass, text, date, text);
drop function if exists delivery_report_partition_name(date);
drop function if exists recipient_gateway_partition_name(date);
-- The subscriber list's and the top bar's reads: queries in their modules' repositories.
drop function if exists subscriber_list_columns(bigint, integer, integer, bigint);
drop function if exists subscriber_search_page(bigint, text, text, text, text, integer, integer, integer);
drop function if exists subscriber_page_rows(bigint[], bigint[]);
drop function if exists top_bar_first_pass(bigint, text, text, text, text, integer, integer);
drop function if exists top_bar_first_pass_by_recency(bigint, text, text, text, integer, integer);
