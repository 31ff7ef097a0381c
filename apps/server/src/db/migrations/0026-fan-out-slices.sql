-- A send's fan-out in slices: disjoint ranges of subscriber ids, each with its own checkpoint, so
-- two or more connections write one send's recipients at once (an INSERT ... SELECT runs on one
-- core). Slice i covers subscriber ids up to fanout_slice_ends[i] (the last one is unbounded:
-- subscribers added during the fan-out are reached as before) and is done once its cursor reached
-- its end. Set by the fan-out's first step (from fanout_cursor, so a send started before this
-- migration continues where it was); null until then. A step holds its slice with a
-- transaction-scoped advisory lock and moves the slice's cursor in the same transaction as its rows.
alter table message_sends
  add column fanout_slice_ends bigint[],
  add column fanout_slice_cursors bigint[];
