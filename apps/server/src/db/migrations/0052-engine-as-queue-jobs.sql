-- The engine is the queue's jobs (docs/engine.md): a fan-out step follows one cursor, and a
-- hand-over batch claims its range of recipients (hand_over_claims, 0055). The slices and the
-- retry index of the old hand-written scheduler go: nothing looks recipients up by their next
-- attempt any more.
alter table message_sends drop column fanout_slice_ends, drop column fanout_slice_cursors;
drop index if exists delivery_reports_retry_idx;
