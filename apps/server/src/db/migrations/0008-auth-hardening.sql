-- Two browser tabs refreshing with the same token: a reuse within REFRESH_REUSE_GRACE of the
-- rotation gets the same successor instead of ending the sign-in. The successor's value is kept
-- on the spent row, encrypted with ENCRYPTION_KEY (the row otherwise holds only hashes).
alter table refresh_tokens add column successor_token text;

-- Stale sign-in throttle rows are pruned as failures are written; this index finds them.
create index login_throttle_window_idx on login_throttle (window_started_at);
