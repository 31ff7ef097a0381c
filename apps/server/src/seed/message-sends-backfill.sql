-- The engine's per-send state of outbound messages that have none, rebuilt from their recipients:
-- their send state, their recipient counts and the monthly usage. Only for rows loaded without the
-- engine (the demo seed, the tests' and the bench's fixtures); the running engine never needs it.
-- Run as one script (one transaction), after the recipients are in.
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
