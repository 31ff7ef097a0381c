-- Every tenant-owned table carries company_id and is indexed on it first, so tenant queries stay
-- narrow and the schema can later be distributed by company_id.
create extension if not exists pg_trgm;

create table companies (
  id bigint generated always as identity primary key,
  name text not null,
  email text not null,
  phone_number text not null,
  address text not null,
  plan text not null default 'basic' check (plan in ('basic', 'premium', 'enterprise', 'professional')),
  status text not null default 'active' check (status in ('active', 'suspended', 'pending', 'inactive')),
  sms_provider text not null default 'simulator' check (sms_provider in ('simulator', 'africastalking', 'smpp')),
  -- Provider credentials, AES-256-GCM with ENCRYPTION_KEY; never returned in full.
  api_key_encrypted text,
  api_secret_encrypted text,
  default_country char(2) not null default 'KE',
  package_name text not null default 'Professional',
  package_expires_at timestamptz,
  billing_status text not null default 'active' check (billing_status in ('active', 'inactive', 'past_due')),
  messages_limit integer not null default 10000 check (messages_limit >= 0),
  subscribers_limit integer not null default 5000 check (subscribers_limit >= 0),
  services_limit integer not null default 20 check (services_limit >= 0),
  monthly_revenue numeric(12, 2) not null default 0,
  -- Kept by triggers on subscribers: the list shows it for every row without counting.
  subscriber_count bigint not null default 0,
  last_active_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index companies_status_idx on companies (status, id);
create index companies_name_trgm_idx on companies using gin (lower(name) gin_trgm_ops);
create index companies_created_idx on companies (created_at desc, id desc);

create table users (
  id bigint generated always as identity primary key,
  company_id bigint references companies (id) on delete cascade,
  name text not null,
  email text not null,
  password_hash text not null,
  role text not null check (role in ('system_admin', 'company_admin', 'content_manager', 'viewer')),
  status text not null default 'active' check (status in ('active', 'inactive', 'suspended')),
  last_login_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint users_company_matches_role check ((role = 'system_admin') = (company_id is null))
);
create unique index users_email_key on users (lower(email));
create index users_company_idx on users (company_id, id);
create index users_search_trgm_idx on users using gin ((lower(name) || ' ' || lower(email)) gin_trgm_ops);

-- Opaque refresh tokens, stored as SHA-256; a family is one sign-in, rotated at every use.
create table refresh_tokens (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete cascade,
  family_id uuid not null,
  token_hash bytea not null unique,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz,
  ip_address text,
  user_agent text,
  created_at timestamptz not null default now()
);
create index refresh_tokens_family_idx on refresh_tokens (family_id);
create index refresh_tokens_user_idx on refresh_tokens (user_id);

-- Failed sign-ins per key (ip + email), so throttling holds across API processes.
create table login_throttle (
  throttle_key text primary key,
  failures integer not null,
  window_started_at timestamptz not null,
  blocked_until timestamptz
);

-- Platform-wide secrets generated once (the JWT signing key when JWT_SECRET is unset).
create table platform_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz not null default now()
);

-- The secret part of each callback URL: hashed for lookup, encrypted so the console can show it.
create table company_callback_tokens (
  company_id bigint not null references companies (id) on delete cascade,
  callback_type text not null check (callback_type in ('subscription', 'dlr')),
  token_hash bytea not null,
  token_encrypted text not null,
  created_at timestamptz not null default now(),
  primary key (company_id, callback_type)
);

create table services (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  name text not null,
  shortcode text not null,
  keyword text not null,
  description text not null default '',
  billing_type text not null default 'on_demand' check (billing_type in ('on_demand', 'package')),
  status text not null default 'active' check (status in ('active', 'inactive', 'maintenance')),
  -- Kept by triggers on subscriptions and messages.
  subscriber_count bigint not null default 0,
  message_count bigint not null default 0,
  last_activity_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index services_shortcode_keyword_key on services (upper(shortcode), upper(keyword));
create index services_company_idx on services (company_id, id);

create table subscribers (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  msisdn text not null,
  status text not null default 'active' check (status in ('active', 'unsubscribed', 'pending')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index subscribers_company_msisdn_key on subscribers (company_id, msisdn);
create index subscribers_company_id_idx on subscribers (company_id, id desc);
create index subscribers_company_status_idx on subscribers (company_id, status, id desc);
create index subscribers_msisdn_trgm_idx on subscribers using gin (msisdn gin_trgm_ops);

create table subscriptions (
  company_id bigint not null references companies (id) on delete cascade,
  service_id bigint not null references services (id) on delete cascade,
  subscriber_id bigint not null references subscribers (id) on delete cascade,
  status text not null default 'active' check (status in ('active', 'unsubscribed')),
  source text not null default 'console' check (source in ('console', 'import', 'provider', 'api', 'sms')),
  subscribed_at timestamptz not null default now(),
  unsubscribed_at timestamptz,
  primary key (service_id, subscriber_id)
);
create index subscriptions_subscriber_idx on subscriptions (subscriber_id);
create index subscriptions_service_active_idx on subscriptions (service_id, subscriber_id) where status = 'active';
create index subscriptions_company_idx on subscriptions (company_id, service_id);

create table messages (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  service_id bigint references services (id) on delete set null,
  service_ids bigint[] not null default '{}',
  direction text not null default 'outbound' check (direction in ('inbound', 'outbound')),
  content text not null,
  msisdn text,
  status text not null check (status in ('pending', 'queued', 'scheduled', 'processing', 'sent', 'delivered', 'failed', 'received')),
  scheduled_at timestamptz,
  sent_at timestamptz,
  recipient_count integer,
  queue_job_id text,
  provider_message_id text,
  created_by bigint references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index messages_company_created_idx on messages (company_id, created_at desc, id desc);
create index messages_company_status_idx on messages (company_id, status, created_at desc);
create index messages_created_idx on messages (created_at desc, id desc);
create index messages_service_idx on messages (service_id, created_at desc);
create index messages_content_trgm_idx on messages using gin (lower(content) gin_trgm_ops);

create table delivery_reports (
  id bigint generated always as identity primary key,
  company_id bigint not null references companies (id) on delete cascade,
  message_id bigint not null references messages (id) on delete cascade,
  subscriber_id bigint references subscribers (id) on delete set null,
  recipient_phone text not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'delivered', 'failed')),
  provider_status text,
  gateway_message_id text,
  delivered_at timestamptz,
  error_message text,
  attempts integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index delivery_reports_message_phone_key on delivery_reports (message_id, recipient_phone);
create index delivery_reports_gateway_idx on delivery_reports (company_id, gateway_message_id) where gateway_message_id is not null;
create index delivery_reports_company_idx on delivery_reports (company_id, created_at desc);

create table audit_logs (
  id bigint generated always as identity primary key,
  company_id bigint references companies (id) on delete set null,
  user_id bigint references users (id) on delete set null,
  user_name text,
  user_email text,
  action text not null,
  entity text not null,
  entity_id text,
  details jsonb not null default '{}',
  ip_address text,
  user_agent text,
  created_at timestamptz not null default now()
);
create index audit_logs_created_idx on audit_logs (created_at desc, id desc);
create index audit_logs_company_created_idx on audit_logs (company_id, created_at desc, id desc);
create index audit_logs_action_created_idx on audit_logs (action, created_at desc);

-- Statement-level counters: one UPDATE per affected service/company per statement, so a bulk
-- import of a million rows does not update the same counter row a million times.
create function subscriptions_count_changes() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    update services s set subscriber_count = s.subscriber_count + d.delta
      from (select service_id, count(*) as delta from new_rows where status = 'active' group by service_id) d
     where s.id = d.service_id;
  elsif tg_op = 'DELETE' then
    update services s set subscriber_count = s.subscriber_count - d.delta
      from (select service_id, count(*) as delta from old_rows where status = 'active' group by service_id) d
     where s.id = d.service_id;
  else
    update services s set subscriber_count = s.subscriber_count + d.delta
      from (
        select coalesce(n.service_id, o.service_id) as service_id,
               sum((n.status = 'active')::int - (o.status = 'active')::int) as delta
          from new_rows n full join old_rows o on n.service_id = o.service_id and n.subscriber_id = o.subscriber_id
         group by 1
      ) d
     where s.id = d.service_id and d.delta <> 0;
  end if;
  return null;
end $$;
create trigger subscriptions_count_insert after insert on subscriptions
  referencing new table as new_rows for each statement execute function subscriptions_count_changes();
create trigger subscriptions_count_delete after delete on subscriptions
  referencing old table as old_rows for each statement execute function subscriptions_count_changes();
create trigger subscriptions_count_update after update on subscriptions
  referencing new table as new_rows old table as old_rows for each statement execute function subscriptions_count_changes();

create function subscribers_count_changes() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    update companies c set subscriber_count = c.subscriber_count + d.delta
      from (select company_id, count(*) as delta from new_rows group by company_id) d where c.id = d.company_id;
  else
    update companies c set subscriber_count = c.subscriber_count - d.delta
      from (select company_id, count(*) as delta from old_rows group by company_id) d where c.id = d.company_id;
  end if;
  return null;
end $$;
create trigger subscribers_count_insert after insert on subscribers
  referencing new table as new_rows for each statement execute function subscribers_count_changes();
create trigger subscribers_count_delete after delete on subscribers
  referencing old table as old_rows for each statement execute function subscribers_count_changes();

create function messages_count_changes() returns trigger language plpgsql as $$
begin
  update services s set message_count = s.message_count + d.delta,
                        last_activity_at = greatest(s.last_activity_at, d.latest)
    from (
      select unnest(case when cardinality(service_ids) > 0 then service_ids else array[service_id] end) as sid,
             count(*) as delta, max(created_at) as latest
        from new_rows group by 1
    ) d
   where s.id = d.sid;
  return null;
end $$;
create trigger messages_count_insert after insert on messages
  referencing new table as new_rows for each statement execute function messages_count_changes();
