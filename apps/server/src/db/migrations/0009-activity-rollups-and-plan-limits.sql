-- Dashboard and report figures from rollups kept exact as the data changes, and plan limits that
-- follow the company's plan unless the company has its own (docs/decisions/0009-activity-rollups.md).

-- A company's own limits override its plan's (packages/contracts/src/plans/plan-catalogue.ts,
-- resolvePlanLimits); null means "the plan's". Values equal to the old column defaults were never
-- chosen by anyone (every company got them), so they become "the plan's".
alter table companies
  alter column messages_limit drop not null, alter column messages_limit drop default,
  alter column subscribers_limit drop not null, alter column subscribers_limit drop default,
  alter column services_limit drop not null, alter column services_limit drop default;
update companies set messages_limit = null where messages_limit = 10000;
update companies set subscribers_limit = null where subscribers_limit = 5000;
update companies set services_limit = null where services_limit = 20;

-- Per company and UTC hour. Recipient columns: the recipients of the messages whose send began in
-- that hour (delivery_reports.created_at, the engine's fan-out time), by their status now, so a
-- delivery report that arrives later moves a count within its send's hour. received: inbound
-- messages created in the hour. new_subscribers: subscribers created in the hour (still present).
-- The *_delta columns are net changes made during the hour (active subscribers, services, active
-- services): the value at any past hour is today's value minus the deltas since.
create table company_hourly_activity (
  company_id bigint not null references companies (id) on delete cascade,
  hour timestamptz not null,
  pending bigint not null default 0,
  submitted bigint not null default 0,
  sent bigint not null default 0,
  delivered bigint not null default 0,
  failed bigint not null default 0,
  rejected bigint not null default 0,
  expired bigint not null default 0,
  received bigint not null default 0,
  new_subscribers bigint not null default 0,
  active_subscribers_delta bigint not null default 0,
  services_delta bigint not null default 0,
  active_services_delta bigint not null default 0,
  primary key (company_id, hour)
);
-- The platform's view (system admins) reads every company's hours of a window.
create index company_hourly_activity_hour_idx on company_hourly_activity (hour);

-- The same per calendar month (UTC): all-time totals read a few rows per company, not every hour.
create table company_monthly_activity (
  company_id bigint not null references companies (id) on delete cascade,
  month date not null,
  pending bigint not null default 0,
  submitted bigint not null default 0,
  sent bigint not null default 0,
  delivered bigint not null default 0,
  failed bigint not null default 0,
  rejected bigint not null default 0,
  expired bigint not null default 0,
  received bigint not null default 0,
  new_subscribers bigint not null default 0,
  primary key (company_id, month)
);

-- The same per UTC day, with the stock deltas: a month of every company is days, not hours.
create table company_daily_activity (
  company_id bigint not null references companies (id) on delete cascade,
  day date not null,
  pending bigint not null default 0,
  submitted bigint not null default 0,
  sent bigint not null default 0,
  delivered bigint not null default 0,
  failed bigint not null default 0,
  rejected bigint not null default 0,
  expired bigint not null default 0,
  received bigint not null default 0,
  new_subscribers bigint not null default 0,
  active_subscribers_delta bigint not null default 0,
  services_delta bigint not null default 0,
  active_services_delta bigint not null default 0,
  primary key (company_id, day)
);
create index company_daily_activity_day_idx on company_daily_activity (day);

do $$
declare
  tenant_table text;
begin
  foreach tenant_table in array array['company_hourly_activity', 'company_daily_activity', 'company_monthly_activity'] loop
    execute format('alter table %I enable row level security, force row level security', tenant_table);
    execute format(
      'create policy tenant_isolation on %I using (app_tenant_visible(company_id)) with check (app_tenant_visible(company_id))',
      tenant_table);
  end loop;
end $$;

-- One change to the rollups: which company, when, and how much each column moves.
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

-- Applies a statement's changes: one upsert per (company, hour), (company, day) and (company, month), in key
-- order (two statements never wait on each other's rows in opposite orders). A company that is
-- being deleted (its rows go by cascade) gets no new rollup rows.
create function record_activity(deltas activity_delta[]) returns void language sql as $$
  insert into company_hourly_activity as a
         (company_id, hour, pending, submitted, sent, delivered, failed, rejected, expired, received,
          new_subscribers, active_subscribers_delta, services_delta, active_services_delta)
  select d.company_id, date_trunc('hour', d.at, 'UTC'),
         sum(d.pending), sum(d.submitted), sum(d.sent), sum(d.delivered), sum(d.failed), sum(d.rejected),
         sum(d.expired), sum(d.received), sum(d.new_subscribers), sum(d.active_subscribers_delta),
         sum(d.services_delta), sum(d.active_services_delta)
    from unnest(deltas) d
   where exists (select 1 from companies c where c.id = d.company_id)
   group by 1, 2
  having sum(d.pending) <> 0 or sum(d.submitted) <> 0 or sum(d.sent) <> 0 or sum(d.delivered) <> 0
      or sum(d.failed) <> 0 or sum(d.rejected) <> 0 or sum(d.expired) <> 0 or sum(d.received) <> 0
      or sum(d.new_subscribers) <> 0 or sum(d.active_subscribers_delta) <> 0 or sum(d.services_delta) <> 0
      or sum(d.active_services_delta) <> 0
   order by 1, 2
  on conflict (company_id, hour) do update set
    pending = a.pending + excluded.pending,
    submitted = a.submitted + excluded.submitted,
    sent = a.sent + excluded.sent,
    delivered = a.delivered + excluded.delivered,
    failed = a.failed + excluded.failed,
    rejected = a.rejected + excluded.rejected,
    expired = a.expired + excluded.expired,
    received = a.received + excluded.received,
    new_subscribers = a.new_subscribers + excluded.new_subscribers,
    active_subscribers_delta = a.active_subscribers_delta + excluded.active_subscribers_delta,
    services_delta = a.services_delta + excluded.services_delta,
    active_services_delta = a.active_services_delta + excluded.active_services_delta;

  insert into company_daily_activity as a
         (company_id, day, pending, submitted, sent, delivered, failed, rejected, expired, received,
          new_subscribers, active_subscribers_delta, services_delta, active_services_delta)
  select d.company_id, (d.at at time zone 'UTC')::date,
         sum(d.pending), sum(d.submitted), sum(d.sent), sum(d.delivered), sum(d.failed), sum(d.rejected),
         sum(d.expired), sum(d.received), sum(d.new_subscribers), sum(d.active_subscribers_delta),
         sum(d.services_delta), sum(d.active_services_delta)
    from unnest(deltas) d
   where exists (select 1 from companies c where c.id = d.company_id)
   group by 1, 2
  having sum(d.pending) <> 0 or sum(d.submitted) <> 0 or sum(d.sent) <> 0 or sum(d.delivered) <> 0
      or sum(d.failed) <> 0 or sum(d.rejected) <> 0 or sum(d.expired) <> 0 or sum(d.received) <> 0
      or sum(d.new_subscribers) <> 0 or sum(d.active_subscribers_delta) <> 0 or sum(d.services_delta) <> 0
      or sum(d.active_services_delta) <> 0
   order by 1, 2
  on conflict (company_id, day) do update set
    pending = a.pending + excluded.pending,
    submitted = a.submitted + excluded.submitted,
    sent = a.sent + excluded.sent,
    delivered = a.delivered + excluded.delivered,
    failed = a.failed + excluded.failed,
    rejected = a.rejected + excluded.rejected,
    expired = a.expired + excluded.expired,
    received = a.received + excluded.received,
    new_subscribers = a.new_subscribers + excluded.new_subscribers,
    active_subscribers_delta = a.active_subscribers_delta + excluded.active_subscribers_delta,
    services_delta = a.services_delta + excluded.services_delta,
    active_services_delta = a.active_services_delta + excluded.active_services_delta;

  insert into company_monthly_activity as a
         (company_id, month, pending, submitted, sent, delivered, failed, rejected, expired, received, new_subscribers)
  select d.company_id, date_trunc('month', d.at at time zone 'UTC')::date,
         sum(d.pending), sum(d.submitted), sum(d.sent), sum(d.delivered), sum(d.failed), sum(d.rejected),
         sum(d.expired), sum(d.received), sum(d.new_subscribers)
    from unnest(deltas) d
   where exists (select 1 from companies c where c.id = d.company_id)
   group by 1, 2
  having sum(d.pending) <> 0 or sum(d.submitted) <> 0 or sum(d.sent) <> 0 or sum(d.delivered) <> 0
      or sum(d.failed) <> 0 or sum(d.rejected) <> 0 or sum(d.expired) <> 0 or sum(d.received) <> 0
      or sum(d.new_subscribers) <> 0
   order by 1, 2
  on conflict (company_id, month) do update set
    pending = a.pending + excluded.pending,
    submitted = a.submitted + excluded.submitted,
    sent = a.sent + excluded.sent,
    delivered = a.delivered + excluded.delivered,
    failed = a.failed + excluded.failed,
    rejected = a.rejected + excluded.rejected,
    expired = a.expired + excluded.expired,
    received = a.received + excluded.received,
    new_subscribers = a.new_subscribers + excluded.new_subscribers;
$$;

-- When a message's send began: the partition key of its recipient rows (message_sends keeps it
-- once the fan-out starts; the recipient rows carry it too, for sends loaded without the engine).
create function message_send_hour(p_company_id bigint, p_message_id bigint) returns timestamptz
  language sql stable as $$
  select coalesce(
    (select s.recipients_at from message_sends s where s.company_id = p_company_id and s.message_id = p_message_id),
    (select r.created_at from delivery_reports r where r.company_id = p_company_id and r.message_id = p_message_id limit 1),
    (select m.created_at from messages m where m.company_id = p_company_id and m.id = p_message_id))
$$;

-- Recipient statuses: the engine moves them in message_delivery_counts with the same statements
-- that change delivery_reports (one row per message and shard, once per batch), so the rollups
-- follow those few rows instead of the millions of recipient rows. Counter rows leave only with
-- their message (cascade), which messages_activity_before_delete accounts for.
create function delivery_counts_activity() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform record_activity(array(
      select row(d.company_id, message_send_hour(d.company_id, d.message_id), d.pending, d.submitted, d.sent,
                 d.delivered, d.failed, d.rejected, d.expired, 0, 0, 0, 0, 0)::activity_delta
        from (select company_id, message_id, sum(pending) as pending, sum(submitted) as submitted, sum(sent) as sent,
                     sum(delivered) as delivered, sum(failed) as failed, sum(rejected) as rejected, sum(expired) as expired
                from new_rows group by company_id, message_id) d));
  else
    perform record_activity(array(
      select row(d.company_id, message_send_hour(d.company_id, d.message_id), d.pending, d.submitted, d.sent,
                 d.delivered, d.failed, d.rejected, d.expired, 0, 0, 0, 0, 0)::activity_delta
        from (select company_id, message_id, sum(pending) as pending, sum(submitted) as submitted, sum(sent) as sent,
                     sum(delivered) as delivered, sum(failed) as failed, sum(rejected) as rejected, sum(expired) as expired
                from (select company_id, message_id, pending, submitted, sent, delivered, failed, rejected, expired
                        from new_rows
                      union all
                      select company_id, message_id, -pending, -submitted, -sent, -delivered, -failed, -rejected, -expired
                        from old_rows) x
               group by company_id, message_id) d));
  end if;
  return null;
end $$;
create trigger delivery_counts_activity_insert after insert on message_delivery_counts
  referencing new table as new_rows for each statement execute function delivery_counts_activity();
create trigger delivery_counts_activity_update after update on message_delivery_counts
  referencing new table as new_rows old table as old_rows for each statement execute function delivery_counts_activity();

-- Inbound messages count where they arrive.
create function messages_activity_insert() returns trigger language plpgsql as $$
begin
  perform record_activity(array(
    select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, count(*), 0, 0, 0, 0)::activity_delta
      from new_rows where direction = 'inbound' group by company_id, date_trunc('hour', created_at, 'UTC')));
  return null;
end $$;
create trigger messages_activity_insert after insert on messages
  referencing new table as new_rows for each statement execute function messages_activity_insert();

-- A deleted message takes its figures along. Before the delete: its recipient counters and its send
-- state go by cascade, so they are read (and locked against a batch changing them) first. Nothing
-- to do while its company is being deleted (the rollups go by cascade too).
create function messages_activity_before_delete() returns trigger language plpgsql as $$
declare
  totals record;
begin
  if not exists (select 1 from companies c where c.id = old.company_id) then
    return old;
  end if;
  if old.direction = 'inbound' then
    perform record_activity(array[row(old.company_id, old.created_at, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0)::activity_delta]);
    return old;
  end if;
  select coalesce(sum(pending), 0) as pending, coalesce(sum(submitted), 0) as submitted, coalesce(sum(sent), 0) as sent,
         coalesce(sum(delivered), 0) as delivered, coalesce(sum(failed), 0) as failed,
         coalesce(sum(rejected), 0) as rejected, coalesce(sum(expired), 0) as expired, count(*) as shards
    into totals
    from (select * from message_delivery_counts
           where company_id = old.company_id and message_id = old.id for update) c;
  if totals.shards > 0 then
    perform record_activity(array[row(old.company_id, message_send_hour(old.company_id, old.id),
      -totals.pending, -totals.submitted, -totals.sent, -totals.delivered, -totals.failed, -totals.rejected,
      -totals.expired, 0, 0, 0, 0, 0)::activity_delta]);
  end if;
  return old;
end $$;
create trigger messages_activity_before_delete before delete on messages
  for each row execute function messages_activity_before_delete();

-- Subscribers: created ones count in their creation hour; active ones move the active total at the
-- hour of the change (an insert at its creation time, so backdated loads land in their past).
create function subscribers_activity() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform record_activity(array(
      select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, 0, count(*),
                 count(*) filter (where status = 'active'), 0, 0)::activity_delta
        from new_rows group by company_id, date_trunc('hour', created_at, 'UTC')));
  elsif tg_op = 'UPDATE' then
    perform record_activity(array(
      select row(company_id, at, 0, 0, 0, 0, 0, 0, 0, 0, sum(created), sum(active), 0, 0)::activity_delta
        from (select company_id, date_trunc('hour', created_at, 'UTC') as at, 1 as created, 0 as active from new_rows
              union all select company_id, date_trunc('hour', created_at, 'UTC'), -1, 0 from old_rows
              union all select company_id, now(), 0, 1 from new_rows where status = 'active'
              union all select company_id, now(), 0, -1 from old_rows where status = 'active') x
       group by company_id, at));
  else
    perform record_activity(array(
      select row(company_id, at, 0, 0, 0, 0, 0, 0, 0, 0, sum(created), sum(active), 0, 0)::activity_delta
        from (select company_id, date_trunc('hour', created_at, 'UTC') as at, -1 as created, 0 as active from old_rows
              union all select company_id, now(), 0, -1 from old_rows where status = 'active') x
       group by company_id, at));
  end if;
  return null;
end $$;
create trigger subscribers_activity_insert after insert on subscribers
  referencing new table as new_rows for each statement execute function subscribers_activity();
create trigger subscribers_activity_update after update on subscribers
  referencing new table as new_rows old table as old_rows for each statement execute function subscribers_activity();
create trigger subscribers_activity_delete after delete on subscribers
  referencing old table as old_rows for each statement execute function subscribers_activity();

-- Services: the same for the service totals (a service moved between companies leaves one and joins the other).
create function services_activity() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform record_activity(array(
      select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*),
                 count(*) filter (where status = 'active'))::activity_delta
        from new_rows group by company_id, date_trunc('hour', created_at, 'UTC')));
  elsif tg_op = 'UPDATE' then
    perform record_activity(array(
      select row(company_id, now(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, sum(services), sum(active))::activity_delta
        from (select company_id, 1 as services, (status = 'active')::int as active from new_rows
              union all select company_id, -1, -(status = 'active')::int from old_rows) x
       group by company_id));
  else
    perform record_activity(array(
      select row(company_id, now(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -count(*), -count(*) filter (where status = 'active'))::activity_delta
        from old_rows group by company_id));
  end if;
  return null;
end $$;
create trigger services_activity_insert after insert on services
  referencing new table as new_rows for each statement execute function services_activity();
create trigger services_activity_update after update on services
  referencing new table as new_rows old table as old_rows for each statement execute function services_activity();
create trigger services_activity_delete after delete on services
  referencing old table as old_rows for each statement execute function services_activity();

-- Backfill from today's data. Recipient history from the engine's counters, at each send's hour;
-- the stock deltas at each row's creation time (earlier status changes left no trace, so the past
-- is approximate while today's totals are exact).
select record_activity(array(
  select row(t.company_id, message_send_hour(t.company_id, t.message_id), t.pending, t.submitted, t.sent,
             t.delivered, t.failed, t.rejected, t.expired, 0, 0, 0, 0, 0)::activity_delta
    from message_delivery_totals t));
select record_activity(array(
  select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, count(*), 0, 0, 0, 0)::activity_delta
    from messages where direction = 'inbound' group by company_id, date_trunc('hour', created_at, 'UTC')));
select record_activity(array(
  select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, 0, count(*),
             count(*) filter (where status = 'active'), 0, 0)::activity_delta
    from subscribers group by company_id, date_trunc('hour', created_at, 'UTC')));
select record_activity(array(
  select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*),
             count(*) filter (where status = 'active'))::activity_delta
    from services group by company_id, date_trunc('hour', created_at, 'UTC')));

-- The top bar's search under row-level security. A policy's check runs before any condition of
-- the query that is not LEAKPROOF, so LIKE (textlike is not) can never use the trigram indexes for
-- the application's role: the planner scans the whole table. Comparisons of text are leakproof,
-- so the search uses btree ranges in byte order (collation "C") instead:
--  * subscribers: a number's leading digits (+2547123... as typed, with or without the country code);
--  * messages: an inverted index of their words, found by a word's leading letters.
create index subscribers_company_msisdn_prefix_idx on subscribers (company_id, (msisdn collate "C"));

create table message_search_words (
  company_id bigint not null,
  word text collate "C" not null,
  created_at timestamptz not null,
  message_id bigint not null,
  primary key (company_id, word, created_at, message_id)
);
alter table message_search_words enable row level security, force row level security;
create policy tenant_isolation on message_search_words
  using (app_tenant_visible(company_id)) with check (app_tenant_visible(company_id));

-- A message's words: lower case, split at spaces and ASCII punctuation, 2 to 40 characters, each once.
-- The search splits its text with the same function, so both sides always agree.
create function search_words(content text) returns setof text language sql immutable parallel safe as $$
  select distinct left(w, 40) from regexp_split_to_table(lower(content), '[[:space:][:punct:]]+') as w
   where length(w) >= 2
$$;

-- Kept by statement triggers; a message's words go with it (found by their own keys, so no second index).
create function messages_search_words() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into message_search_words (company_id, word, created_at, message_id)
    select n.company_id, w.word, n.created_at, n.id from new_rows n cross join lateral search_words(n.content) as w(word)
    on conflict do nothing;
  elsif tg_op = 'DELETE' then
    delete from message_search_words x
     using (select o.company_id, w.word, o.created_at, o.id
              from old_rows o cross join lateral search_words(o.content) as w(word)) d
     where x.company_id = d.company_id and x.word = d.word and x.created_at = d.created_at and x.message_id = d.id;
  else
    -- Most updates change a status, not the text: only rows whose text (or time) changed are redone,
    -- in two statements (one statement could not delete a key and add it back).
    delete from message_search_words x
     using (select o.company_id, w.word, o.created_at, o.id
              from old_rows o join new_rows n on n.id = o.id
              cross join lateral search_words(o.content) as w(word)
             where (n.content, n.created_at, n.company_id) is distinct from (o.content, o.created_at, o.company_id)) d
     where x.company_id = d.company_id and x.word = d.word and x.created_at = d.created_at and x.message_id = d.id;
    insert into message_search_words (company_id, word, created_at, message_id)
    select n.company_id, w.word, n.created_at, n.id
      from new_rows n join old_rows o on o.id = n.id
      cross join lateral search_words(n.content) as w(word)
     where (n.content, n.created_at, n.company_id) is distinct from (o.content, o.created_at, o.company_id)
    on conflict do nothing;
  end if;
  return null;
end $$;
create trigger messages_search_words_insert after insert on messages
  referencing new table as new_rows for each statement execute function messages_search_words();
create trigger messages_search_words_update after update on messages
  referencing new table as new_rows old table as old_rows for each statement execute function messages_search_words();
create trigger messages_search_words_delete after delete on messages
  referencing old table as old_rows for each statement execute function messages_search_words();

insert into message_search_words (company_id, word, created_at, message_id)
select m.company_id, w.word, m.created_at, m.id from messages m cross join lateral search_words(m.content) as w(word)
on conflict do nothing;
