-- The engine is the queue's jobs (docs/engine.md): a fan-out step follows one cursor, and a
-- hand-over batch claims its recipients by reserving them (next_attempt_at) for the claim's time.
-- The slices and the retry index of the old hand-written scheduler go: nothing looks recipients
-- up by their next attempt any more, and an index on it would make every claim a non-HOT update.
alter table message_sends drop column fanout_slice_ends, drop column fanout_slice_cursors;
drop index if exists delivery_reports_retry_idx;
