-- Signed outbound webhooks (issue 38, part 3). A company admin's HTTPS endpoints, each with the
-- event types it wants; events are written to an outbox by statement-level triggers
-- (db/functions/40-webhook-events.sql) and delivered in order, in batches, by the webhook-deliver
-- job (modules/webhooks/webhook-delivery.ts), which records every attempt.
create table webhook_endpoints (
  company_id bigint not null references companies (id) on delete cascade,
  id bigint generated always as identity,
  url text not null check (length(url) between 1 and 2000),
  description text not null default '' check (length(description) <= 200),
  event_types text[] not null
    check (cardinality(event_types) > 0 and event_types <@ array['message.sent', 'message.delivered',
      'message.failed', 'message.received', 'subscriber.subscribed', 'subscriber.unsubscribed']),
  -- The signing secret, AES-256-GCM under ENCRYPTION_KEY (lib/crypto.ts): the worker signs with it.
  secret_encrypted text not null,
  secret_prefix text not null,
  enabled boolean not null default true,
  disabled_reason text,
  disabled_at timestamptz,
  -- The last event delivered (or skipped as not wanted): the next batch starts after it.
  after_event_id bigint not null default 0,
  -- The first failed attempt since the last success: 24 hours after it the endpoint is disabled.
  failing_since timestamptz,
  last_attempt_at timestamptz,
  created_by bigint references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (company_id, id)
);
create index webhook_endpoints_created_by_idx on webhook_endpoints (created_by);
-- The worker's look for endpoints with events waiting, over every company.
create index webhook_endpoints_enabled_idx on webhook_endpoints (company_id, id) where enabled;

-- The outbox. Written only for a company with an enabled endpoint that wants the event's type.
-- `subject` is what the event is about (subscriber:<id>, message:<id>).
create table webhook_events (
  company_id bigint not null references companies (id) on delete cascade,
  id bigint generated always as identity,
  type text not null,
  subject text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  primary key (company_id, id)
);

-- One row per POST (a batch of events, or a test event), successful or not.
create table webhook_deliveries (
  company_id bigint not null,
  id bigint generated always as identity,
  endpoint_id bigint not null,
  first_event_id bigint,
  last_event_id bigint,
  event_count integer not null,
  event_types text[] not null,
  attempt integer not null,
  is_test boolean not null default false,
  status_code integer,
  duration_ms integer not null,
  error text,
  succeeded boolean not null,
  created_at timestamptz not null default now(),
  primary key (company_id, id),
  foreign key (company_id, endpoint_id) references webhook_endpoints (company_id, id) on delete cascade
);
create index webhook_deliveries_endpoint_idx on webhook_deliveries (company_id, endpoint_id, id desc);

alter table webhook_endpoints enable row level security, force row level security;
alter table webhook_events enable row level security, force row level security;
alter table webhook_deliveries enable row level security, force row level security;
grant select, insert, update, delete on webhook_endpoints, webhook_events, webhook_deliveries to sms_app;

-- Their policies and the `:id` guard's branch (app_row_visible) live in db/functions/01-tenant-wall.sql.
