-- Company subscriber totals were kept twice: companies.subscriber_count (0001) and the per-status
-- company_subscriber_counts (0003). Keep the per-status one, which answers both the total and a
-- status filter, and stop paying for two triggers on every subscriber insert and delete.
drop trigger subscribers_count_insert on subscribers;
drop trigger subscribers_count_delete on subscribers;
drop function subscribers_count_changes();
alter table companies drop column subscriber_count;
