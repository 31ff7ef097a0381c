-- The messaging engine's data model (docs/decisions/0006-messaging-engine.md).
--
-- delivery_reports becomes the engine's work queue as well as its record: one row per recipient,
-- partitioned by month so old months are dropped, not deleted. Its rows are written a million at a
-- time and updated twice each (hand-over, delivery report), so it carries as few indexes as the
-- engine needs, no foreign keys (checked per row, they would cost more than the insert itself;
-- the engine writes rows only from the message and subscribers it has just read, and a statement
-- trigger on messages removes a deleted message's rows), and its delivery-report updates touch no
-- indexed column, so they stay HOT updates.

-- Messages: what the engine needs. A unique (company_id, id) lets the engine's tables reference a
-- message by both, so a cascade finds their rows by their primary key.
alter table messages
  add column encoding text check (encoding in ('GSM-7', 'UCS-2')),
  add column parts smallint check (parts >= 0);
create unique index messages_company_id_key on messages (company_id, id);
-- Foreign keys a cascade or a join uses, indexed (deleting a user scans these columns).
create index messages_created_by_idx on messages (created_by) where created_by is not null;
create index audit_logs_user_idx on audit_logs (user_id) where user_id is not null;

-- Encoding and parts of earlier messages, by the GSM 03.38 rule the engine applies (its extension
-- characters count twice); the engine measures new ones with the shared measureSms().
update messages
   set encoding = case when content ~ '^[A-Za-z0-9 \n\r\f@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ!"#¤%&''()*+,./:;<=>?¡ÄÖÑÜ§¿äöñüà{}~|€\^\[\]\\-]*$'
                       then 'GSM-7' else 'UCS-2' end
 where direction = 'outbound';
update messages
   set parts = case
     when encoding = 'GSM-7' then
       (select case when u <= 160 then 1 else ceil(u / 153.0)::int end
          from (select length(content) + length(regexp_replace(content, '[^\f{}~|€\^\[\]\\]', '', 'g')) as u) units)
     else case when length(content) <= 70 then 1 else ceil(length(content) / 67.0)::int end end
 where direction = 'outbound';

-- Recipients. Every row of one message carries the same created_at (the moment its fan-out began),
-- so a message's recipients live in one partition and the dedupe key holds across fan-out batches.
alter table delivery_reports rename to delivery_reports_0001;
alter table delivery_reports_0001 rename constraint delivery_reports_pkey to delivery_reports_0001_pkey;
alter index delivery_reports_message_phone_key rename to delivery_reports_0001_message_phone_key;
alter index delivery_reports_gateway_idx rename to delivery_reports_0001_gateway_idx;
alter index delivery_reports_company_idx rename to delivery_reports_0001_company_idx;
alter sequence delivery_reports_id_seq rename to delivery_reports_0001_id_seq;

-- The recipient id is also the provider hand-off's idempotency key.
create sequence delivery_reports_id_seq as bigint;

create table delivery_reports (
  company_id bigint not null,
  -- When the message's fan-out began (the partition key): one value for all rows of a message.
  -- Milliseconds, so the value survives a round trip through JavaScript dates exactly.
  created_at timestamptz(3) not null default now(),
  message_id bigint not null,
  id bigint not null default nextval('delivery_reports_id_seq'),
  -- The service the recipient was reached through (its short code is the sender), and the subscriber.
  service_id bigint,
  subscriber_id bigint,
  -- Set only while a transient provider error waits out its backoff; null means due now.
  next_attempt_at timestamptz,
  submitted_at timestamptz,
  delivered_at timestamptz,
  updated_at timestamptz not null default now(),
  parts smallint not null default 1,
  attempts smallint not null default 0,
  status text not null default 'pending'
    check (status in ('pending', 'submitted', 'sent', 'delivered', 'failed', 'rejected', 'expired')),
  recipient_phone text not null,
  gateway_message_id text,
  provider_status text,
  error_message text,
  primary key (company_id, message_id, id, created_at)
) partition by range (created_at);
alter sequence delivery_reports_id_seq owned by delivery_reports.id;

-- One recipient per phone number per message: the fan-out's INSERT ... ON CONFLICT DO NOTHING.
create unique index delivery_reports_message_phone_key
  on delivery_reports (company_id, message_id, recipient_phone, created_at);
-- Delivery reports find their recipient by the provider's message id.
create index delivery_reports_gateway_idx
  on delivery_reports (company_id, gateway_message_id) where gateway_message_id is not null;
-- Recipients waiting out a retry backoff (few): the dispatcher finds the due ones here.
create index delivery_reports_retry_idx
  on delivery_reports (company_id, message_id, next_attempt_at) where next_attempt_at is not null;

alter table delivery_reports enable row level security, force row level security;
create policy tenant_isolation on delivery_reports
  using (app_tenant_visible(company_id)) with check (app_tenant_visible(company_id));

-- Month partitions. Created ahead by the engine (and here); the application's role reaches rows
-- through the parent only (its policies), never a partition directly, and each partition carries
-- the same policy should anyone be granted it.
create function delivery_report_partition_name(month_start date) returns text
  language sql immutable as $$
  select format('delivery_reports_y%sm%s', to_char(month_start, 'YYYY'), to_char(month_start, 'MM'))
$$;

create function ensure_delivery_report_partition(at timestamptz) returns text
  language plpgsql security definer set search_path = public, pg_temp as $$
declare
  month_start date := date_trunc('month', at at time zone 'UTC')::date;
  partition_name text := delivery_report_partition_name(month_start);
begin
  if to_regclass(partition_name) is not null then
    return partition_name;
  end if;
  -- Two workers creating the same month wait for each other instead of colliding.
  perform pg_advisory_xact_lock(hashtext('delivery_reports partition'));
  if to_regclass(partition_name) is null then
    -- fillfactor leaves room on each page, so a delivery report's update stays a HOT update.
    execute format(
      'create table %I partition of delivery_reports for values from (%L) to (%L) with (fillfactor = 85)',
      partition_name,
      month_start::timestamp at time zone 'UTC',
      (month_start + interval '1 month')::timestamp at time zone 'UTC');
    execute format('revoke all on table %I from sms_app', partition_name);
    execute format('alter table %I enable row level security, force row level security', partition_name);
    execute format(
      'create policy tenant_isolation on %I using (app_tenant_visible(company_id)) with check (app_tenant_visible(company_id))',
      partition_name);
  end if;
  return partition_name;
end $$;

-- Retention: whole months go at once (a DROP, not a DELETE of millions of rows). Never the current
-- month or a later one, whatever the caller asks.
create function drop_delivery_report_partitions_before(cutoff timestamptz) returns setof text
  language plpgsql security definer set search_path = public, pg_temp as $$
declare
  keep_from date := least(date_trunc('month', cutoff at time zone 'UTC'), date_trunc('month', now() at time zone 'UTC'))::date;
  child record;
begin
  for child in
    select c.relname
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'delivery_reports'::regclass
       and c.relname ~ '^delivery_reports_y[0-9]{4}m[0-9]{2}$'
       and to_date(substr(c.relname, 19, 4) || substr(c.relname, 24, 2), 'YYYYMM') < keep_from
     order by c.relname
  loop
    execute format('drop table %I', child.relname);
    return next child.relname;
  end loop;
end $$;
-- Statistics of a month's partition, taken by the engine as a big fan-out fills it: a partition
-- fresh at the start of a month has none, and the planner would then walk a whole send's rows for
-- each batch of a few hundred. Autovacuum keeps them current afterwards.
create function analyze_delivery_report_partition(at timestamptz) returns void
  language plpgsql security definer set search_path = public, pg_temp as $$
declare
  partition_name text := delivery_report_partition_name(date_trunc('month', at at time zone 'UTC')::date);
begin
  if to_regclass(partition_name) is not null then
    execute format('analyze %I', partition_name);
  end if;
end $$;
revoke execute on function analyze_delivery_report_partition(timestamptz) from public;
grant execute on function analyze_delivery_report_partition(timestamptz) to sms_app;
revoke execute on function ensure_delivery_report_partition(timestamptz) from public;
revoke execute on function drop_delivery_report_partitions_before(timestamptz) from public;
grant execute on function ensure_delivery_report_partition(timestamptz) to sms_app;
grant execute on function drop_delivery_report_partitions_before(timestamptz) to sms_app;

-- Partitions for the rows moved below, the month before and the two months ahead.
select ensure_delivery_report_partition(month)
  from generate_series(
         least((select min(created_at) from delivery_reports_0001), now() - interval '1 month'),
         now() + interval '2 months',
         interval '1 month') as month;
select ensure_delivery_report_partition(now() + interval '2 months');

-- A deleted message takes its recipients along (there is no foreign key to cascade).
create function messages_delete_recipients() returns trigger language plpgsql as $$
begin
  delete from delivery_reports d using old_rows o
   where d.company_id = o.company_id and d.message_id = o.id;
  return null;
end $$;
create trigger messages_delete_recipients after delete on messages
  referencing old table as old_rows for each statement execute function messages_delete_recipients();

-- Per message: the fan-out's checkpoint and the send's progress.
create table message_sends (
  company_id bigint not null,
  message_id bigint not null,
  -- waiting (queued or scheduled), fanout (recipients being resolved, hand-over may run),
  -- dispatch (all resolved, hand-over running), done (all handed over or final), cancelled.
  state text not null default 'waiting' check (state in ('waiting', 'fanout', 'dispatch', 'done', 'cancelled')),
  -- The last subscriber id resolved: a restarted fan-out continues after it.
  fanout_cursor bigint not null default 0,
  -- The partition key of the message's recipient rows, fixed when the fan-out begins.
  recipients_at timestamptz(3),
  -- Recipient rows written so far (final once the fan-out is done).
  recipients integer not null default 0,
  -- What the send counts against the monthly limit (recipients x parts), and in which month.
  reserved_units integer not null default 0,
  usage_month date,
  started_at timestamptz,
  fanout_finished_at timestamptz,
  handed_over_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (company_id, message_id),
  foreign key (company_id, message_id) references messages (company_id, id) on delete cascade
);
-- The engine's cross-company look for sends with work left.
create index message_sends_active_idx on message_sends (message_id) where state in ('fanout', 'dispatch');

-- Recipient counts per message and status, kept by the statements that change statuses. Spread over
-- shards (by database session), so concurrent batches of one send rarely wait on the same row;
-- readers sum the shards (message_delivery_totals).
create table message_delivery_counts (
  company_id bigint not null,
  message_id bigint not null,
  shard smallint not null,
  pending integer not null default 0,
  submitted integer not null default 0,
  sent integer not null default 0,
  delivered integer not null default 0,
  failed integer not null default 0,
  rejected integer not null default 0,
  expired integer not null default 0,
  primary key (company_id, message_id, shard),
  foreign key (company_id, message_id) references messages (company_id, id) on delete cascade
);
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
  company_id bigint not null references companies (id) on delete cascade,
  month date not null,
  messages_used bigint not null default 0,
  primary key (company_id, month)
);

-- The provider rate window shared by every worker: hand-overs granted in the current second.
create table company_send_windows (
  company_id bigint primary key references companies (id) on delete cascade,
  window_start timestamptz not null,
  used integer not null default 0,
  last_grant integer not null default 0
);

-- A retried request with the same Idempotency-Key gets the first answer.
create table idempotency_keys (
  company_id bigint not null references companies (id) on delete cascade,
  user_id bigint not null references users (id) on delete cascade,
  idempotency_key text not null,
  request_hash bytea not null,
  status_code smallint,
  response jsonb,
  created_at timestamptz not null default now(),
  primary key (company_id, user_id, idempotency_key)
);
-- Finds a key whatever company it was used for (a system admin's), and serves the users cascade.
create index idempotency_keys_user_idx on idempotency_keys (user_id, idempotency_key);
create index idempotency_keys_created_idx on idempotency_keys (created_at);

-- Delivery reports that arrived before the hand-over that explains them was committed (a provider
-- can be faster than our commit). Applied again shortly after, dropped after a while.
create table unmatched_delivery_reports (
  company_id bigint not null references companies (id) on delete cascade,
  gateway_message_id text not null,
  status text not null,
  provider_status text,
  error_message text,
  reported_at timestamptz not null,
  received_at timestamptz not null default now(),
  primary key (company_id, gateway_message_id, status)
);
create index unmatched_delivery_reports_received_idx on unmatched_delivery_reports (received_at);

do $$
declare
  tenant_table text;
begin
  foreach tenant_table in array array[
    'message_sends', 'message_delivery_counts', 'company_monthly_usage', 'company_send_windows',
    'idempotency_keys', 'unmatched_delivery_reports'
  ] loop
    execute format('alter table %I enable row level security, force row level security', tenant_table);
    execute format(
      'create policy tenant_isolation on %I using (app_tenant_visible(company_id)) with check (app_tenant_visible(company_id))',
      tenant_table);
  end loop;
end $$;

-- Earlier recipients move over; each message's rows take its earliest report time as their key.
insert into delivery_reports (company_id, created_at, message_id, id, service_id, subscriber_id, recipient_phone,
                              status, parts, attempts, provider_status, gateway_message_id, submitted_at,
                              delivered_at, error_message, updated_at)
select o.company_id, f.recipients_at, o.message_id, o.id, m.service_id, o.subscriber_id, o.recipient_phone,
       o.status, coalesce(nullif(m.parts, 0), 1), o.attempts, o.provider_status, o.gateway_message_id,
       case when o.gateway_message_id is not null then o.created_at end,
       o.delivered_at, o.error_message, o.updated_at
  from delivery_reports_0001 o
  join messages m on m.id = o.message_id
  join (select message_id, min(created_at) as recipients_at from delivery_reports_0001 group by message_id) f
    on f.message_id = o.message_id;
select setval('delivery_reports_id_seq', greatest((select max(id) from delivery_reports_0001), 1));
drop table delivery_reports_0001;

-- Rebuilds the engine's per-message state of outbound messages that have none (rows moved here,
-- or loaded by the demo seed): their send state, their recipient counts and the monthly usage.
create function backfill_message_sends() returns void language plpgsql as $$
begin
  create temporary table backfill_totals on commit drop as
  select d.company_id, d.message_id, min(d.created_at) as recipients_at, count(*)::int as recipients,
         count(*) filter (where d.status = 'pending')::int as pending,
         count(*) filter (where d.status = 'submitted')::int as submitted,
         count(*) filter (where d.status = 'sent')::int as sent,
         count(*) filter (where d.status = 'delivered')::int as delivered,
         count(*) filter (where d.status = 'failed')::int as failed,
         count(*) filter (where d.status = 'rejected')::int as rejected,
         count(*) filter (where d.status = 'expired')::int as expired,
         sum(d.parts)::int as units
    from delivery_reports d
   where not exists (select 1 from message_sends s where s.company_id = d.company_id and s.message_id = d.message_id)
   group by d.company_id, d.message_id;

  insert into message_delivery_counts (company_id, message_id, shard, pending, submitted, sent, delivered, failed, rejected, expired)
  select company_id, message_id, 0, pending, submitted, sent, delivered, failed, rejected, expired from backfill_totals;

  insert into message_sends (company_id, message_id, state, fanout_cursor, recipients_at, recipients, reserved_units,
                             usage_month, started_at, fanout_finished_at, handed_over_at)
  select t.company_id, t.message_id,
         case when t.pending > 0 then 'dispatch' else 'done' end,
         (select coalesce(max(d.subscriber_id), 0) from delivery_reports d
           where d.company_id = t.company_id and d.message_id = t.message_id and d.created_at = t.recipients_at),
         t.recipients_at, t.recipients, t.units, date_trunc('month', t.recipients_at at time zone 'UTC')::date,
         t.recipients_at, t.recipients_at, case when t.pending = 0 then coalesce(m.sent_at, t.recipients_at) end
    from backfill_totals t join messages m on m.id = t.message_id;

  insert into company_monthly_usage as u (company_id, month, messages_used)
  select company_id, date_trunc('month', recipients_at at time zone 'UTC')::date, sum(units)
    from backfill_totals group by 1, 2
  on conflict (company_id, month) do update set messages_used = u.messages_used + excluded.messages_used;

  -- Sends not started yet: queued ones and scheduled ones (the engine gives them a job if they lack one).
  insert into message_sends (company_id, message_id, state)
  select m.company_id, m.id, 'waiting'
    from messages m
   where m.direction = 'outbound' and m.status in ('queued', 'scheduled')
     and not exists (select 1 from message_sends s where s.company_id = m.company_id and s.message_id = m.id);
  drop table backfill_totals;
end $$;
revoke execute on function backfill_message_sends() from public, sms_app;

select backfill_message_sends();
