-- An outage holds a company's sends instead of burning their attempts (issue 36): while the
-- company's provider refuses or cannot be reached for the whole account, hand-over batches probe
-- it at most once per interval and otherwise wait; the Admin Panel shows since when and why.
-- A row exists only while the provider is failing.
create table company_provider_health (
  company_id bigint primary key references companies (id) on delete cascade,
  failing_since timestamptz not null default now(),
  reason text not null,
  next_probe_at timestamptz not null,
  updated_at timestamptz not null default now()
);

-- Its policy lives with every tenant table's, in db/functions/01-tenant-wall.sql.
alter table company_provider_health enable row level security, force row level security;
grant select, insert, update, delete on company_provider_health to sms_app;

comment on column message_sends.failed_reason is
  'Why the send is held (state held) or why it ended failed (state failed)';

-- A hand-over batch's claim on its range of recipients (hand-over.ts): one row per batch while a
-- run of its job holds it, so two runs of one batch (a job retried while its first run still
-- worked) never offer the same recipients. A run that dies leaves it until claimed_until.
create table hand_over_claims (
  company_id bigint not null references companies (id) on delete cascade,
  message_id bigint not null,
  first_id bigint not null,
  claimed_until timestamptz not null,
  primary key (company_id, message_id, first_id)
);
alter table hand_over_claims enable row level security, force row level security;
grant select, insert, update, delete on hand_over_claims to sms_app;
