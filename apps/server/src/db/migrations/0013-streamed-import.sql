-- Statistics of the subscriber tables, refreshed by an import that added many rows: right after
-- importing 5,000 subscribers into a company the planner still believed it had none, and a send's
-- recipient count and preview took 22-48 s until autovacuum analysed the tables. ANALYZE needs the
-- tables' owner, so the app's role reaches it through this function; it takes no arguments and
-- can do nothing but refresh statistics (a sample of at most 30,000 rows per table at the default
-- target: bounded, whatever the table's size).
create function analyze_subscriber_tables() returns void
  language plpgsql security definer set search_path = public, pg_temp as $$
begin
  analyze subscribers;
  analyze subscriptions;
end $$;
revoke execute on function analyze_subscriber_tables() from public;
grant execute on function analyze_subscriber_tables() to sms_app;
