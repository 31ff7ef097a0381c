-- The pages of before that 0037 kept for API processes still running during its deploy: no
-- release since calls them (subscriber_list_columns and recipient_page_columns took their place).
drop function subscriber_list_page(bigint, integer, integer, bigint);
drop function recipient_page(bigint, bigint, timestamptz, text, bigint, integer, integer);
