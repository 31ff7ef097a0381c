-- A fan-out refreshed its month partition's statistics each time its send crossed 1,000, 10,000,
-- 100,000 and 1,000,000 recipients, whatever the partition already held. That is what a fresh month
-- needs (no statistics at all, then statistics of a few rows). Later in a month the partition holds
-- millions of rows and its statistics are kept by autovacuum; an ANALYZE then samples 30,000 rows
-- spread over the whole partition, and a send's fan-out waited for it: a second send of 1,000,000
-- recipients into a partition holding a first one spent ~1.3 s of one of its two lanes analyzing
-- (ADR 0011, 28 November, evening). Now the partition is analyzed only while its statistics count
-- fewer rows than the send alone has written: always in a fresh month, never in a full one.
drop function analyze_delivery_report_partition(timestamptz);
create function analyze_delivery_report_partition(at timestamptz, rows_written bigint) returns boolean
  language plpgsql security definer set search_path = public, pg_temp as $$
declare
  partition regclass := to_regclass(delivery_report_partition_name(date_trunc('month', at at time zone 'UTC')::date));
begin
  -- reltuples is -1 for a partition never analyzed (or vacuumed).
  if partition is null or (select reltuples from pg_class where oid = partition) >= rows_written then
    return false;
  end if;
  execute format('analyze %s', partition);
  return true;
end $$;
revoke execute on function analyze_delivery_report_partition(timestamptz, bigint) from public;
grant execute on function analyze_delivery_report_partition(timestamptz, bigint) to sms_app;
