-- The rollups' upserts (migration 0009's record_activity) run in every fan-out, hand-over and
-- delivery-report batch, through the statement triggers. record_activity was a SQL-language
-- function, and PostgreSQL (before 18) plans the statements of such a function on every call:
-- about 2-3 ms for its three upserts, against 0.4-0.7 ms for the same statements in plpgsql, which
-- prepares them once per connection and reuses their plans (measured: 300 calls each, same data).
-- Same statements, same order (hour, day, month: two statements never wait on each other's rows
-- in opposite orders). They stay three static statements, not one built per bucket with EXECUTE,
-- because a dynamic statement is planned on every call as well.
create or replace function record_activity(deltas activity_delta[]) returns void language plpgsql as $$
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
end $$;
