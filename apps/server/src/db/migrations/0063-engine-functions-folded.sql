-- The engine's functions folded into three (db/functions/30, 31, 32): the old ones go.
-- The partitions' create, drop and analyze: ensure_delivery_report_partition(at, action, rows).
drop function if exists ensure_delivery_report_partition(timestamptz);
drop function if exists drop_delivery_report_partitions_before(timestamptz);
drop function if exists analyze_delivery_report_partition(timestamptz, bigint);
-- The counters' upsert and the settle: record_send_progress.
drop function if exists record_count_changes(bigint, bigint[], text[], integer[]);
drop function if exists settle_sends(bigint, bigint[]);
-- Rebuilding a send's state for rows loaded without the engine: the seed's script
-- (seed/message-sends-backfill.sql).
drop function if exists backfill_message_sends();
-- The apply statement: inside apply_delivery_report_inbox. The direct apply of a batch (tests
-- only) and the intake's store (delivery-reports.ts: the token checked, then one insert) go.
drop function if exists apply_delivery_reports(bigint, text[], text[], text[], text[], timestamptz[], text[], interval, boolean);
drop function if exists take_delivery_reports(bigint, bytea[], text[], text[], text[], text[], timestamptz[], text[], interval, boolean);
drop function if exists accept_delivery_reports(bigint, bytea[], text[], text[], text[], text[], timestamptz[], text[]);
