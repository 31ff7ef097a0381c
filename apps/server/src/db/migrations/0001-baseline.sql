-- The schema as one baseline. The product had 47 migrations before its first installation; they
-- were squashed into this file (no database made by them exists outside development). From here
-- on a change to a table is a new numbered migration after this one.
--
-- Functions, trigger functions, triggers and row-level security policies are not here: each lives
-- in one file under db/functions/ with its current definition, re-applied by migrate.ts whenever
-- the file changes (the policies call the tenant functions, so they live with them).
--
-- Tenancy: every tenant-owned table carries company_id, first in its keys and indexes, so tenant
-- queries stay narrow and the schema can later be distributed by company_id (Citus). PostgreSQL
-- enforces it too: the application's connections act as sms_app (not a superuser, no BYPASSRLS),
-- and every tenant table has ROW LEVEL SECURITY, FORCEd so the owner is held to it when it is not
-- a superuser (db/functions/01-tenant-wall.sql).

create extension if not exists pg_trgm;

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'sms_app') then
    create role sms_app nologin;
  end if;
end $$;
-- The owner switches to sms_app on each application connection (SET ROLE), so it must be a member.
grant sms_app to current_user;
grant usage on schema public to sms_app;
-- Every table, sequence and function below gets these rights; the few it must not touch revoke them.
alter default privileges in schema public grant select, insert, update, delete on tables to sms_app;
alter default privileges in schema public grant usage, select on sequences to sms_app;
alter default privileges in schema public grant execute on functions to sms_app;

-- One change to the rollups (record_activity): which company, when, and how much each column moves.
create type activity_delta as (
  company_id bigint,
  at timestamptz,
  pending bigint,
  submitted bigint,
  sent bigint,
  delivered bigint,
  failed bigint,
  rejected bigint,
  expired bigint,
  received bigint,
  new_subscribers bigint,
  active_subscribers_delta bigint,
  services_delta bigint,
  active_services_delta bigint
);

-- The tenants. Plan limits, provider kind and status are checked by the API and again by the engine.
create table companies (
  id bigint generated always as identity,
  name text not null,
  email text not null,
  phone_number text not null,
  address text not null,
  plan text default 'basic' not null,
  status text default 'active' not null,
  sms_provider text default 'simulator' not null,
  default_country char(2) default 'KE' not null,
  package_name text default 'Professional' not null,
  package_expires_at timestamptz,
  billing_status text default 'active' not null,
  messages_limit integer,
  subscribers_limit integer,
  services_limit integer,
  monthly_revenue numeric(12,2) default 0 not null,
  last_active_at timestamptz,
  created_at timestamptz default now() not null,
  updated_at timestamptz default now() not null,
  constraint companies_billing_status_check check (billing_status in ('active', 'inactive', 'past_due')),
  constraint companies_messages_limit_check check (messages_limit >= 0),
  constraint companies_pkey primary key (id),
  constraint companies_plan_check check (plan in ('basic', 'premium', 'enterprise', 'professional')),
  constraint companies_services_limit_check check (services_limit >= 0),
  constraint companies_sms_provider_check check (sms_provider in ('simulator', 'africastalking', 'smpp')),
  constraint companies_status_check check (status in ('active', 'suspended', 'pending', 'inactive')),
  constraint companies_subscribers_limit_check check (subscribers_limit >= 0)
);
create index companies_status_idx on companies (status, id);
create index companies_name_trgm_idx on companies using gin (lower(name) gin_trgm_ops);
create index companies_created_idx on companies (created_at desc, id desc);
alter table companies enable row level security;
alter table companies force row level security;

-- A system admin has no company; everyone else belongs to exactly one.
create table users (
  id bigint generated always as identity,
  company_id bigint,
  name text not null,
  email text not null,
  password_hash text not null,
  role text not null,
  status text default 'active' not null,
  last_login_at timestamptz,
  created_at timestamptz default now() not null,
  updated_at timestamptz default now() not null,
  constraint users_company_matches_role check ((role = 'system_admin') = (company_id is null)),
  constraint users_pkey primary key (id),
  constraint users_role_check check (role in ('system_admin', 'company_admin', 'content_manager', 'viewer')),
  constraint users_status_check check (status in ('active', 'inactive', 'suspended')),
  constraint users_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
create unique index users_email_key on users (lower(email));
create index users_company_idx on users (company_id, id);
create index users_search_trgm_idx on users using gin ((((lower(name) || ' ') || lower(email))) gin_trgm_ops);
alter table users enable row level security;
alter table users force row level security;

-- Opaque refresh tokens, stored as SHA-256; a family is one sign-in, rotated at every use.
create table refresh_tokens (
  id bigint generated always as identity,
  user_id bigint not null,
  family_id uuid not null,
  token_hash bytea not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz,
  ip_address text,
  user_agent text,
  created_at timestamptz default now() not null,
  successor_token text,
  constraint refresh_tokens_pkey primary key (id),
  constraint refresh_tokens_token_hash_key unique (token_hash),
  constraint refresh_tokens_user_id_fkey foreign key (user_id) references users(id) on delete cascade
);
create index refresh_tokens_family_idx on refresh_tokens (family_id);
create index refresh_tokens_user_idx on refresh_tokens (user_id);

-- Failed sign-ins per key (ip + email), so throttling holds across API processes.
create table login_throttle (
  throttle_key text not null,
  failures integer not null,
  window_started_at timestamptz not null,
  blocked_until timestamptz,
  constraint login_throttle_pkey primary key (throttle_key)
);
create index login_throttle_window_idx on login_throttle (window_started_at);

-- Platform-wide secrets generated once (the JWT signing key when JWT_SECRET is unset).
create table platform_secrets (
  name text not null,
  value text not null,
  created_at timestamptz default now() not null,
  constraint platform_secrets_pkey primary key (name)
);

-- The secret part of each callback URL: hashed for lookup, encrypted so the console can show it.
create table company_callback_tokens (
  company_id bigint not null,
  callback_type text not null,
  token_hash bytea not null,
  token_encrypted text not null,
  created_at timestamptz default now() not null,
  constraint company_callback_tokens_callback_type_check check (callback_type in ('subscription', 'dlr')),
  constraint company_callback_tokens_pkey primary key (company_id, callback_type),
  constraint company_callback_tokens_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
alter table company_callback_tokens enable row level security;
alter table company_callback_tokens force row level security;

create table services (
  id bigint generated always as identity,
  company_id bigint not null,
  name text not null,
  shortcode text not null,
  keyword text not null,
  description text default '' not null,
  billing_type text default 'on_demand' not null,
  status text default 'active' not null,
  subscriber_count bigint default 0 not null,
  message_count bigint default 0 not null,
  last_activity_at timestamptz,
  created_at timestamptz default now() not null,
  updated_at timestamptz default now() not null,
  constraint services_billing_type_check check (billing_type in ('on_demand', 'package')),
  constraint services_pkey primary key (company_id, id),
  constraint services_status_check check (status in ('active', 'inactive', 'maintenance')),
  constraint services_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
create index services_company_idx on services (company_id, id);
create unique index services_company_shortcode_keyword_key on services (company_id, upper(shortcode), upper(keyword));
alter table services enable row level security;
alter table services force row level security;

create table subscribers (
  id bigint generated always as identity,
  company_id bigint not null,
  msisdn text not null,
  status text default 'active' not null,
  created_at timestamptz default now() not null,
  updated_at timestamptz default now() not null,
  msisdn_reversed text generated always as (reverse(msisdn)) stored,
  constraint subscribers_pkey primary key (company_id, id),
  constraint subscribers_status_check check (status in ('active', 'unsubscribed', 'pending')),
  constraint subscribers_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
create unique index subscribers_company_msisdn_key on subscribers (company_id, msisdn);
create index subscribers_company_status_idx on subscribers (company_id, status, id desc);
create index subscribers_msisdn_trgm_idx on subscribers using gin (msisdn gin_trgm_ops);
create index subscribers_company_msisdn_prefix_idx on subscribers (company_id, msisdn collate "C");
create index subscribers_company_msisdn_reversed_idx on subscribers (company_id, msisdn_reversed collate "C");
alter table subscribers enable row level security;
alter table subscribers force row level security;

create table subscriptions (
  company_id bigint not null,
  service_id bigint not null,
  subscriber_id bigint not null,
  status text default 'active' not null,
  source text default 'console' not null,
  subscribed_at timestamptz default now() not null,
  unsubscribed_at timestamptz,
  constraint subscriptions_pkey primary key (company_id, service_id, subscriber_id),
  constraint subscriptions_source_check check (source in ('console', 'import', 'provider', 'api', 'sms')),
  constraint subscriptions_status_check check (status in ('active', 'unsubscribed')),
  constraint subscriptions_service_fkey foreign key (company_id, service_id) references services(company_id, id) on delete cascade,
  constraint subscriptions_subscriber_fkey foreign key (company_id, subscriber_id) references subscribers(company_id, id) on delete cascade
);
create index subscriptions_subscriber_idx on subscriptions (subscriber_id);
create index subscriptions_service_active_idx on subscriptions (service_id, subscriber_id) include (company_id) where (status = 'active');
alter table subscriptions enable row level security;
alter table subscriptions force row level security;

-- A message: outbound (a send to one number or to a service's subscribers) or inbound. Its recipients
-- are delivery_reports rows; its send's progress is message_sends.
create table messages (
  id bigint generated always as identity,
  company_id bigint not null,
  service_id bigint,
  service_ids bigint[] default '{}'::bigint[] not null,
  direction text default 'outbound' not null,
  content text not null,
  msisdn text,
  status text not null,
  scheduled_at timestamptz,
  sent_at timestamptz,
  recipient_count integer,
  queue_job_id text,
  provider_message_id text,
  created_by bigint,
  created_at timestamptz default now() not null,
  updated_at timestamptz default now() not null,
  encoding text,
  parts smallint,
  cancelled_at timestamptz,
  cancelled_by bigint,
  cancelled_by_name text,
  constraint messages_direction_check check (direction in ('inbound', 'outbound')),
  constraint messages_encoding_check check (encoding in ('GSM-7', 'UCS-2')),
  constraint messages_parts_check check (parts >= 0),
  constraint messages_pkey primary key (company_id, id),
  constraint messages_status_check check (status in ('pending', 'queued', 'scheduled', 'processing', 'sent', 'delivered', 'failed', 'received', 'cancelled')),
  constraint messages_company_id_fkey foreign key (company_id) references companies(id) on delete cascade,
  constraint messages_created_by_fkey foreign key (created_by) references users(id) on delete set null,
  constraint messages_service_fkey foreign key (company_id, service_id) references services(company_id, id) on delete set null (service_id)
);
create index messages_company_created_idx on messages (company_id, created_at desc, id desc);
create index messages_created_idx on messages (created_at desc, id desc);
create index messages_service_idx on messages (service_id, created_at desc);
create index messages_content_trgm_idx on messages using gin (lower(content) gin_trgm_ops);
create unique index messages_inbound_provider_id_key on messages (company_id, provider_message_id) where ((direction = 'inbound') and (provider_message_id is not null));
create index messages_created_by_idx on messages (created_by) where (created_by is not null);
create index messages_id_idx on messages (id);
create index messages_company_status_created_id_idx on messages (company_id, status, created_at desc, id desc);
alter table messages enable row level security;
alter table messages force row level security;

-- Who did what, per company; by_platform_staff marks what a system admin did inside a company.
create table audit_logs (
  id bigint generated always as identity,
  company_id bigint,
  user_id bigint,
  user_name text,
  user_email text,
  action text not null,
  entity text not null,
  entity_id text,
  details jsonb default '{}'::jsonb not null,
  ip_address text,
  user_agent text,
  created_at timestamptz default now() not null,
  by_platform_staff boolean default false not null,
  constraint audit_logs_pkey primary key (id),
  constraint audit_logs_company_id_fkey foreign key (company_id) references companies(id) on delete set null,
  constraint audit_logs_user_id_fkey foreign key (user_id) references users(id) on delete set null
);
create index audit_logs_created_idx on audit_logs (created_at desc, id desc);
create index audit_logs_company_created_idx on audit_logs (company_id, created_at desc, id desc);
create index audit_logs_action_created_idx on audit_logs (action, created_at desc);
create index audit_logs_user_idx on audit_logs (user_id) where (user_id is not null);
alter table audit_logs enable row level security;
alter table audit_logs force row level security;

-- Subscriber totals per company and status, kept by a statement-level trigger, so the subscriber
-- list's unfiltered and status-filtered totals are one row read instead of a count over millions.
create table company_subscriber_counts (
  company_id bigint not null,
  status text not null,
  subscriber_count bigint default 0 not null,
  constraint company_subscriber_counts_pkey primary key (company_id, status),
  constraint company_subscriber_counts_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
alter table company_subscriber_counts enable row level security;
alter table company_subscriber_counts force row level security;

-- One row per recipient of a send, written by the fan-out and moved by the engine and the
-- providers' delivery reports. Partitioned by the send's month (created_at, the fan-out time):
-- the engine creates months ahead and drops old ones (db/functions/30-engine-partitions.sql).
-- The ids come from a sequence with a cache of 1,000: a fan-out step inserts 20,000 rows, and a
-- cache of one made each id a trip to the shared sequence (a whole step's CPU 146 -> 125 ms). Ids
-- only have to be unique and increase within a connection (ADR 0011).
create sequence delivery_reports_id_seq as bigint cache 1000;
create table delivery_reports (
  company_id bigint not null,
  created_at timestamptz(3) default now() not null,
  message_id bigint not null,
  id bigint default nextval('delivery_reports_id_seq'::regclass) not null,
  service_id bigint,
  subscriber_id bigint,
  next_attempt_at timestamptz,
  submitted_at timestamptz,
  delivered_at timestamptz,
  updated_at timestamptz default now() not null,
  parts smallint default 1 not null,
  attempts smallint default 0 not null,
  status text default 'pending' not null,
  recipient_phone text not null,
  gateway_message_id text,
  provider_status text,
  error_message text,
  constraint delivery_reports_pkey primary key (company_id, message_id, id, created_at),
  constraint delivery_reports_status_check check (status in ('pending', 'submitted', 'sent', 'delivered', 'failed', 'rejected', 'expired'))
) partition by range (created_at);
create index delivery_reports_retry_idx on delivery_reports (company_id, message_id, next_attempt_at) where (next_attempt_at is not null);
alter sequence delivery_reports_id_seq owned by delivery_reports.id;
alter table delivery_reports enable row level security;
alter table delivery_reports force row level security;

-- Per message: the fan-out's checkpoint and the send's progress.
create table message_sends (
  company_id bigint not null,
  message_id bigint not null,
  state text default 'waiting' not null,
  fanout_cursor bigint default 0 not null,
  recipients_at timestamptz(3),
  recipients integer default 0 not null,
  reserved_units integer default 0 not null,
  usage_month date,
  started_at timestamptz,
  fanout_finished_at timestamptz,
  handed_over_at timestamptz,
  updated_at timestamptz default now() not null,
  fanout_slice_ends bigint[],
  fanout_slice_cursors bigint[],
  failed_reason text,
  constraint message_sends_pkey primary key (company_id, message_id),
  constraint message_sends_state_check check (state in ('waiting', 'fanout', 'dispatch', 'held', 'done', 'failed', 'cancelled')),
  constraint message_sends_company_id_message_id_fkey foreign key (company_id, message_id) references messages(company_id, id) on delete cascade
);
create index message_sends_active_idx on message_sends (message_id) where state in ('fanout', 'dispatch');
create index message_sends_held_idx on message_sends (company_id) where (state = 'held');
alter table message_sends enable row level security;
alter table message_sends force row level security;

-- Recipient counts per message and status, kept by the statements that change statuses. Spread over
-- shards (by database session), so concurrent batches of one send rarely wait on the same row;
-- readers sum the shards (message_delivery_totals).
create table message_delivery_counts (
  company_id bigint not null,
  message_id bigint not null,
  shard smallint not null,
  pending integer default 0 not null,
  submitted integer default 0 not null,
  sent integer default 0 not null,
  delivered integer default 0 not null,
  failed integer default 0 not null,
  rejected integer default 0 not null,
  expired integer default 0 not null,
  constraint message_delivery_counts_pkey primary key (company_id, message_id, shard),
  constraint message_delivery_counts_company_id_message_id_fkey foreign key (company_id, message_id) references messages(company_id, id) on delete cascade
);
alter table message_delivery_counts enable row level security;
alter table message_delivery_counts force row level security;

-- A message's recipient counts by status: the sum of its shards.
create view message_delivery_totals with (security_invoker = true) as
select company_id, message_id,
       sum(pending)::int as pending, sum(submitted)::int as submitted, sum(sent)::int as sent,
       sum(delivered)::int as delivered, sum(failed)::int as failed, sum(rejected)::int as rejected,
       sum(expired)::int as expired,
       sum(pending + submitted + sent + delivered + failed + rejected + expired)::int as total
  from message_delivery_counts
 group by company_id, message_id;


-- Messages used per company and calendar month (UTC): recipients x SMS parts, counted when a send
-- is accepted (reserved) and corrected when its fan-out knows the real number. Read by the monthly
-- limit and the dashboard; one row per company and month, written once per send, not per recipient.
create table company_monthly_usage (
  company_id bigint not null,
  month date not null,
  messages_used bigint default 0 not null,
  constraint company_monthly_usage_pkey primary key (company_id, month),
  constraint company_monthly_usage_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
alter table company_monthly_usage enable row level security;
alter table company_monthly_usage force row level security;

-- The provider rate window shared by every worker: hand-overs granted in the current second.
create table company_send_windows (
  company_id bigint not null,
  window_start timestamptz not null,
  used integer default 0 not null,
  last_grant integer default 0 not null,
  constraint company_send_windows_pkey primary key (company_id),
  constraint company_send_windows_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
alter table company_send_windows enable row level security;
alter table company_send_windows force row level security;

-- A retried request with the same Idempotency-Key gets the first answer.
create table idempotency_keys (
  company_id bigint not null,
  user_id bigint not null,
  idempotency_key text not null,
  request_hash bytea not null,
  status_code smallint,
  response jsonb,
  created_at timestamptz default now() not null,
  constraint idempotency_keys_pkey primary key (company_id, user_id, idempotency_key),
  constraint idempotency_keys_company_id_fkey foreign key (company_id) references companies(id) on delete cascade,
  constraint idempotency_keys_user_id_fkey foreign key (user_id) references users(id) on delete cascade
);
create index idempotency_keys_user_idx on idempotency_keys (user_id, idempotency_key);
create index idempotency_keys_created_idx on idempotency_keys (created_at);
alter table idempotency_keys enable row level security;
alter table idempotency_keys force row level security;

-- Delivery reports that arrived before the hand-over that explains them was committed (a provider
-- can be faster than our commit). Applied again shortly after, dropped after a while.
create table unmatched_delivery_reports (
  company_id bigint not null,
  gateway_message_id text not null,
  status text not null,
  provider_status text,
  error_message text,
  reported_at timestamptz not null,
  received_at timestamptz default now() not null,
  constraint unmatched_delivery_reports_pkey primary key (company_id, gateway_message_id, status),
  constraint unmatched_delivery_reports_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
create index unmatched_delivery_reports_received_idx on unmatched_delivery_reports (received_at);
alter table unmatched_delivery_reports enable row level security;
alter table unmatched_delivery_reports force row level security;

-- Provider settings per company (ADR 0007): companies.sms_provider stays the kind in use; each
-- kind a company has configured keeps its own row, so switching to the simulator and back does
-- not lose the Africa's Talking or SMPP settings. Non-secret settings are plain JSON (validated
-- per kind by packages/contracts/src/admin/company-provider.ts); the kind's one secret (Africa's
-- Talking API key, SMPP password) is AES-256-GCM with ENCRYPTION_KEY and never returned in full.
create table company_provider_settings (
  company_id bigint not null,
  kind text not null,
  settings jsonb default '{}'::jsonb not null,
  secret_encrypted text,
  updated_at timestamptz default now() not null,
  constraint company_provider_settings_kind_check check (kind in ('simulator', 'africastalking', 'smpp')),
  constraint company_provider_settings_pkey primary key (company_id, kind),
  constraint company_provider_settings_settings_check check (jsonb_typeof(settings) = 'object'),
  constraint company_provider_settings_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
alter table company_provider_settings enable row level security;
alter table company_provider_settings force row level security;

-- Per company and UTC hour. Recipient columns: the recipients of the messages whose send began in
-- that hour (delivery_reports.created_at, the engine's fan-out time), by their status now, so a
-- delivery report that arrives later moves a count within its send's hour. received: inbound
-- messages created in the hour. new_subscribers: subscribers created in the hour (still present).
-- The *_delta columns are net changes made during the hour (active subscribers, services, active
-- services): the value at any past hour is today's value minus the deltas since.
create table company_hourly_activity (
  company_id bigint not null,
  hour timestamptz not null,
  pending bigint default 0 not null,
  submitted bigint default 0 not null,
  sent bigint default 0 not null,
  delivered bigint default 0 not null,
  failed bigint default 0 not null,
  rejected bigint default 0 not null,
  expired bigint default 0 not null,
  received bigint default 0 not null,
  new_subscribers bigint default 0 not null,
  active_subscribers_delta bigint default 0 not null,
  services_delta bigint default 0 not null,
  active_services_delta bigint default 0 not null,
  constraint company_hourly_activity_pkey primary key (company_id, hour),
  constraint company_hourly_activity_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
create index company_hourly_activity_hour_idx on company_hourly_activity (hour);
alter table company_hourly_activity enable row level security;
alter table company_hourly_activity force row level security;

-- The same per calendar month (UTC): all-time totals read a few rows per company, not every hour.
create table company_monthly_activity (
  company_id bigint not null,
  month date not null,
  pending bigint default 0 not null,
  submitted bigint default 0 not null,
  sent bigint default 0 not null,
  delivered bigint default 0 not null,
  failed bigint default 0 not null,
  rejected bigint default 0 not null,
  expired bigint default 0 not null,
  received bigint default 0 not null,
  new_subscribers bigint default 0 not null,
  constraint company_monthly_activity_pkey primary key (company_id, month),
  constraint company_monthly_activity_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
alter table company_monthly_activity enable row level security;
alter table company_monthly_activity force row level security;

-- The same per UTC day, with the stock deltas: a month of every company is days, not hours.
create table company_daily_activity (
  company_id bigint not null,
  day date not null,
  pending bigint default 0 not null,
  submitted bigint default 0 not null,
  sent bigint default 0 not null,
  delivered bigint default 0 not null,
  failed bigint default 0 not null,
  rejected bigint default 0 not null,
  expired bigint default 0 not null,
  received bigint default 0 not null,
  new_subscribers bigint default 0 not null,
  active_subscribers_delta bigint default 0 not null,
  services_delta bigint default 0 not null,
  active_services_delta bigint default 0 not null,
  constraint company_daily_activity_pkey primary key (company_id, day),
  constraint company_daily_activity_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
create index company_daily_activity_day_idx on company_daily_activity (day);
alter table company_daily_activity enable row level security;
alter table company_daily_activity force row level security;

-- Each word of each message, for the message search by word (db/functions/13-message-search-index.sql
-- keeps it from the messages' triggers): a word's messages newest first are one index range.
create table message_search_words (
  company_id bigint not null,
  word text not null,
  created_at timestamptz not null,
  message_id bigint not null,
  constraint message_search_words_pkey primary key (company_id, word, created_at, message_id)
);
alter table message_search_words enable row level security;
alter table message_search_words force row level security;

-- A short code + keyword pair stays unique across the platform (an inbound "JOIN JOKES" to 77001
-- must reach one service), but a sharded table cannot hold a unique index across companies. The
-- pairs move to a registry of their own, global like companies (a reference table in Citus), kept
-- by a trigger on services; a taken pair is still a unique violation, which the services module
-- turns into its 409. The registry has no company column and the application's role cannot read it:
-- it only knows which pairs are taken.
create table service_keyword_claims (
  shortcode text not null,
  keyword text not null,
  service_id bigint not null,
  constraint service_keyword_claims_pkey primary key (shortcode, keyword),
  constraint service_keyword_claims_service_id_key unique (service_id)
);
revoke all on table service_keyword_claims from sms_app;

-- The message list's search on an index (docs/decisions/0012-console-reads-at-scale.md, "The
-- message list's search").
--
-- The search finds messages whose content (case-insensitive) or number contains the text. On
-- messages itself that is a LIKE, which is not leakproof: under row-level security PostgreSQL must
-- run the policy's qual first, so the trigram index can never be an index condition and every
-- search walked all of a company's messages (13-15 s at 1,000,000). This table holds the searchable
-- text outside row-level security, where the same LIKE is an index condition. sms_app has no rights
-- on it: it is read only through search_message_ids(), which scopes itself by the caller's binding
-- exactly as the policies do, and returns ids that the caller then joins to messages under
-- row-level security as usual.
create table message_search_text (
  company_id bigint not null,
  message_id bigint not null,
  created_at timestamptz not null,
  content text not null,
  msisdn text,
  constraint message_search_text_pkey primary key (company_id, message_id)
) with (autovacuum_vacuum_insert_threshold=10000, autovacuum_vacuum_insert_scale_factor=0);
create index message_search_text_trgm_idx on message_search_text using gin (content gin_trgm_ops, msisdn gin_trgm_ops);
create index message_search_text_created_idx on message_search_text (created_at desc, message_id desc);
create index message_search_text_company_created_text_idx on message_search_text (company_id, created_at desc, message_id desc) include (content, msisdn);
alter table message_search_text enable row level security;
revoke all on table message_search_text from sms_app;

-- Exact message counts per company, direction and status, kept by statement triggers
-- (docs/decisions/0012-console-reads-at-scale.md, "The message list's counts from counters").
--
-- Every view of the message list shows four chip counts (Scheduled, Pending, Sent, All) and the
-- list's own total. They were counted from messages on every request, stopping at a cap (1,001
-- index entries per chip, 10,001 for the total): the largest part of the list's database time, and
-- still only "1,000+". These rows make them exact and a read of a few rows.
--
-- A company's count of one (direction, status) is the sum over its shards. A statement adds to the
-- shard of its backend (pg_backend_pid() % 8), so concurrent writers of one company (inbound
-- callbacks, sends, status changes) mostly lock different rows; the sum stays exact whatever shard
-- a change lands in, because rows are only ever added to, never overwritten.
create table message_status_counts (
  company_id bigint not null,
  direction text not null,
  status text not null,
  shard smallint not null,
  messages bigint default 0 not null,
  constraint message_status_counts_pkey primary key (company_id, direction, status, shard),
  constraint message_status_counts_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
);
alter table message_status_counts enable row level security;
alter table message_status_counts force row level security;

-- One row per provider id handed out: where its recipient lives (the recipient key). Partitioned by
-- the recipient's month like delivery_reports (created ahead and dropped with it, by the same
-- functions below), so a report's lookup prunes the same months.
create table recipient_gateway_ids (
  company_id bigint not null,
  gateway_message_id text not null,
  created_at timestamptz(3) not null,
  message_id bigint not null,
  id bigint not null,
  constraint recipient_gateway_ids_pkey primary key (company_id, gateway_message_id, id, created_at) include (message_id)
) partition by range (created_at);
alter table recipient_gateway_ids enable row level security;
alter table recipient_gateway_ids force row level security;

-- One row per intake batch and company: the reports as the arrays the apply takes (one heap tuple
-- and one index entry per batch, not per report). Insert-only until the applier deletes the rows it
-- applied; nothing else reads it.
create table delivery_report_inbox (
  company_id bigint not null,
  id bigint generated always as identity,
  accepted_at timestamptz default now() not null,
  gateway_message_ids text[] not null,
  statuses text[] not null,
  provider_statuses text[] not null,
  error_messages text[] not null,
  reported_ats timestamptz[] not null,
  constraint delivery_report_inbox_pkey primary key (company_id, id),
  constraint delivery_report_inbox_company_id_fkey foreign key (company_id) references companies(id) on delete cascade
) with (toast_tuple_target=8160);
alter table delivery_report_inbox enable row level security;
alter table delivery_report_inbox force row level security;

-- The distinct words of a company's messages, for the search by a part of a word: a trigram match
-- on a company's vocabulary, then the words' message ranges in message_search_words. Read only
-- through the search functions, like message_search_text.
create table message_search_vocabulary (
  company_id bigint not null,
  word text not null,
  constraint message_search_vocabulary_pkey primary key (company_id, word)
);
create index message_search_vocabulary_trgm_idx on message_search_vocabulary using gin (word gin_trgm_ops);
create index message_search_vocabulary_long_idx on message_search_vocabulary (company_id) where (length(word) >= 40);
alter table message_search_vocabulary enable row level security;
revoke all on table message_search_vocabulary from sms_app;
