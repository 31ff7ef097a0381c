-- Two ways a send now stops short (the security issue's items 1 and 2):
-- * held: its company is not active (suspended, pending); the hand-over found it so at a batch's
--   claim and handed nothing over. The engine resumes it once the company is active again, or fails
--   it when it is SEND_VALIDITY_HOURS past its due time.
-- * failed: ended without handing its recipients over, for the reason failed_reason gives (the
--   monthly limit at its start, a hold past its validity). Its recipients not handed over stay
--   pending; settle_sends leaves it alone (it settles 'dispatch' and 'done' only), so reports of
--   recipients handed over before a hold do not turn the message back to sent.
alter table message_sends drop constraint message_sends_state_check;
alter table message_sends add constraint message_sends_state_check
  check (state in ('waiting', 'fanout', 'dispatch', 'held', 'done', 'failed', 'cancelled'));
alter table message_sends add column failed_reason text;

-- The engine's look for held sends whose company is active again.
create index message_sends_held_idx on message_sends (company_id) where state = 'held';

-- 0027's message_with_state with the send's failed_reason (Message Details' failedReason); the same
-- otherwise. message_details_page reads it by name at run time and passes its row on whole.
drop function message_with_state(bigint, bigint);
create function message_with_state(p_id bigint, p_company_id bigint)
  returns table (
    id bigint, company_id bigint, company_name text, service_id bigint, service_name text,
    service_ids integer[], direction text, content text, msisdn text, status text,
    scheduled_at timestamptz, sent_at timestamptz, created_at timestamptz, recipient_count integer,
    queue_job_id text, encoding text, parts smallint,
    send_state text, recipients_at timestamptz, recipients integer, started_at timestamptz,
    fanout_finished_at timestamptz, handed_over_at timestamptz, send_updated_at timestamptz,
    pending integer, submitted integer, sent integer, delivered integer, failed integer,
    rejected integer, expired integer, send_failed_reason text)
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
begin
  if p_company_id is null then
    return query
      select m.id, m.company_id, c.name, m.service_id, s.name, m.service_ids::int[], m.direction, m.content,
             m.msisdn, m.status, m.scheduled_at, m.sent_at, m.created_at, m.recipient_count, m.queue_job_id,
             m.encoding, m.parts, ms.state, ms.recipients_at, ms.recipients, ms.started_at,
             ms.fanout_finished_at, ms.handed_over_at, ms.updated_at, dc.pending, dc.submitted, dc.sent,
             dc.delivered, dc.failed, dc.rejected, dc.expired, ms.failed_reason
        from messages m
        join companies c on c.id = m.company_id
        left join services s on s.company_id = m.company_id and s.id = m.service_id
        left join message_sends ms on ms.company_id = m.company_id and ms.message_id = m.id
        cross join lateral (
          select coalesce(sum(d.pending), 0)::int as pending, coalesce(sum(d.submitted), 0)::int as submitted,
                 coalesce(sum(d.sent), 0)::int as sent, coalesce(sum(d.delivered), 0)::int as delivered,
                 coalesce(sum(d.failed), 0)::int as failed, coalesce(sum(d.rejected), 0)::int as rejected,
                 coalesce(sum(d.expired), 0)::int as expired
            from message_delivery_counts d where d.company_id = m.company_id and d.message_id = m.id) dc
       where m.id = p_id;
  else
    return query
      select m.id, m.company_id, c.name, m.service_id, s.name, m.service_ids::int[], m.direction, m.content,
             m.msisdn, m.status, m.scheduled_at, m.sent_at, m.created_at, m.recipient_count, m.queue_job_id,
             m.encoding, m.parts, ms.state, ms.recipients_at, ms.recipients, ms.started_at,
             ms.fanout_finished_at, ms.handed_over_at, ms.updated_at, dc.pending, dc.submitted, dc.sent,
             dc.delivered, dc.failed, dc.rejected, dc.expired, ms.failed_reason
        from messages m
        join companies c on c.id = m.company_id
        left join services s on s.company_id = m.company_id and s.id = m.service_id
        left join message_sends ms on ms.company_id = m.company_id and ms.message_id = m.id
        cross join lateral (
          select coalesce(sum(d.pending), 0)::int as pending, coalesce(sum(d.submitted), 0)::int as submitted,
                 coalesce(sum(d.sent), 0)::int as sent, coalesce(sum(d.delivered), 0)::int as delivered,
                 coalesce(sum(d.failed), 0)::int as failed, coalesce(sum(d.rejected), 0)::int as rejected,
                 coalesce(sum(d.expired), 0)::int as expired
            from message_delivery_counts d where d.company_id = m.company_id and d.message_id = m.id) dc
       where m.company_id = p_company_id and m.id = p_id;
  end if;
end $$;
revoke execute on function message_with_state(bigint, bigint) from public;
grant execute on function message_with_state(bigint, bigint) to sms_app;
