-- The month partitions of delivery_reports and recipient_gateway_ids around today, so a new
-- database takes recipients at once; after that the engine's maintenance keeps months ahead.
select ensure_delivery_report_partition(now() + n * interval '1 month') from generate_series(-1, 2) n;
