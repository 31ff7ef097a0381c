-- API keys per company (issue 38): a company admin's keys for the REST API, each with scopes.
-- The key itself is never stored: only its SHA-256 and its visible prefix, by which a request's key
-- is found before its company is known (modules/api-keys/api-key-actor.ts, in the platform scope,
-- as a sign-in is). A key acts for the admin who created it (its messages' created_by, its
-- Idempotency-Key replays), so it goes with that user.
create table api_keys (
  company_id bigint not null references companies (id) on delete cascade,
  id bigint generated always as identity,
  name text not null check (length(name) between 1 and 100),
  prefix text not null,
  key_hash bytea not null,
  scopes text[] not null
    check (cardinality(scopes) > 0 and scopes <@ array['messages:send', 'messages:read', 'subscribers:manage']),
  created_by bigint not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  -- Written at most once a minute per key, not on every request.
  last_used_at timestamptz,
  revoked_at timestamptz,
  primary key (company_id, id),
  unique (company_id, prefix)
);
-- The request's lookup: by prefix alone, as the company is not known yet.
create index api_keys_prefix_idx on api_keys (prefix);
create index api_keys_created_by_idx on api_keys (created_by);
-- Two live keys of one company cannot share a name: the audit trail names a key's actions by it.
create unique index api_keys_live_name_idx on api_keys (company_id, lower(name)) where revoked_at is null;

alter table api_keys enable row level security, force row level security;

-- Its policy and the `:id` guard's branch (app_row_visible) live in db/functions/01-tenant-wall.sql.
