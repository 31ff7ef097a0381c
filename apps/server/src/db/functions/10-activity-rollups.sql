-- The rollups' upserts (migration 0009's record_activity) run in every fan-out, hand-over and
-- delivery-report batch, through the statement triggers. record_activity was a SQL-language
-- function, and PostgreSQL (before 18) plans the statements of such a function on every call:
-- about 2-3 ms for its three upserts, against 0.4-0.7 ms for the same statements in plpgsql, which
-- prepares them once per connection and reuses their plans (measured: 300 calls each, same data).
-- Same statements, same order (hour, day, month: two statements never wait on each other's rows
-- in opposite orders). They stay three static statements, not one built per bucket with EXECUTE,
-- because a dynamic statement is planned on every call as well.
create or replace function record_activity(deltas activity_delta[])
 returns void
 language plpgsql
as $function$
begin
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
end $function$;

-- The counters' rollup trigger returns at once when its statement changed no counter row. An
-- INSERT ... ON CONFLICT DO UPDATE fires both statement triggers, insert and update, and every
-- delivery-report batch upserts a counter row that exists: its insert trigger ran the three rollup
-- upserts over an empty transition table each time. Otherwise as migration 0009 wrote it.
--
-- The hour a message's recipients count in (migration 0009), in this order of preference: its
-- send's fan-out time, a recipient's, the message's own. Statements of a PL/pgSQL function keep
-- their plans for the connection (a SQL function's were planned on every call, about a quarter of a
-- delivery-report batch's time in the database).
create or replace function delivery_counts_activity()
 returns trigger
 language plpgsql
as $function$
begin
  if not exists (select 1 from new_rows) then
    return null;
  end if;
  if tg_op = 'INSERT' then
    perform record_activity(array(
      select row(d.company_id, coalesce(
                   (select s.recipients_at from message_sends s where s.company_id = d.company_id and s.message_id = d.message_id),
                   (select r.created_at from delivery_reports r
                     where r.company_id = d.company_id and r.message_id = d.message_id limit 1),
                   (select m.created_at from messages m where m.company_id = d.company_id and m.id = d.message_id)),
                 d.pending, d.submitted, d.sent, d.delivered, d.failed, d.rejected, d.expired, 0, 0, 0, 0, 0)::activity_delta
        from (select company_id, message_id, sum(pending) as pending, sum(submitted) as submitted, sum(sent) as sent,
                     sum(delivered) as delivered, sum(failed) as failed, sum(rejected) as rejected, sum(expired) as expired
                from new_rows group by company_id, message_id) d));
  else
    perform record_activity(array(
      select row(d.company_id, coalesce(
                   (select s.recipients_at from message_sends s where s.company_id = d.company_id and s.message_id = d.message_id),
                   (select r.created_at from delivery_reports r
                     where r.company_id = d.company_id and r.message_id = d.message_id limit 1),
                   (select m.created_at from messages m where m.company_id = d.company_id and m.id = d.message_id)),
                 d.pending, d.submitted, d.sent, d.delivered, d.failed, d.rejected, d.expired, 0, 0, 0, 0, 0)::activity_delta
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
end $function$;

drop trigger if exists delivery_counts_activity_insert on message_delivery_counts;
create trigger delivery_counts_activity_insert after insert on message_delivery_counts referencing new table as new_rows for each statement execute function delivery_counts_activity();
drop trigger if exists delivery_counts_activity_update on message_delivery_counts;
create trigger delivery_counts_activity_update after update on message_delivery_counts referencing old table as old_rows new table as new_rows for each statement execute function delivery_counts_activity();
