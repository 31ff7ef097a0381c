-- A message with its send state and a page of its recipients (message-details.repository.ts,
-- message-logs.repository.ts findMessageWithState and listDeliveryReports).
--
-- Why these console reads are PL/pgSQL functions and not queries in their module's repository:
-- a repository's statement is planned for its values on every call (it is sent unnamed), and for
-- these reads planning cost more than running (see each function).
-- A PL/pgSQL function's statements are planned once per connection (force_generic_plan) in shapes
-- whose plan suits any company. Moving one back was measured (bench --quick, 2 December): the
-- message details' PostgreSQL CPU a request went from 0.41 to 1.67 ms, the dashboard's from 0.45
-- to 1.65 ms.

create or replace function message_with_state(p_id bigint, p_company_id bigint)
 returns TABLE(id bigint, company_id bigint, company_name text, service_id bigint, service_name text, service_ids integer[], direction text, content text, msisdn text, status text, scheduled_at timestamp with time zone, sent_at timestamp with time zone, created_at timestamp with time zone, recipient_count integer, queue_job_id text, encoding text, parts smallint, send_state text, recipients_at timestamp with time zone, recipients integer, started_at timestamp with time zone, fanout_finished_at timestamp with time zone, handed_over_at timestamp with time zone, send_updated_at timestamp with time zone, pending integer, submitted integer, sent integer, delivered integer, failed integer, rejected integer, expired integer, send_failed_reason text)
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
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
end $function$;
revoke execute on function message_with_state(p_id bigint, p_company_id bigint) from public;

-- A page of a message's recipients as columns (ADR 0012, 2026-11-27): 0034's recipient_page with
-- its page as one array a column (as above) instead of a JSON object a row. Its callers are the
-- recipients' list and message_details_page; recipient_page stays for an API process of before
-- during a deploy. SECURITY INVOKER: row-level security applies.
create or replace function recipient_page_columns(p_company_id bigint, p_message_id bigint, p_recipients_at timestamp with time zone, p_status text, p_from_id bigint, p_offset integer, p_limit integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  first_id bigint := p_from_id;
  skip integer := p_offset;
  ids bigint[];
  phones text[];
  statuses text[];
  gateway_ids text[];
  delivered timestamptz[];
  errors text[];
  attempts integer[];
  updated timestamptz[];
begin
  -- The skip walked over the key alone.
  if p_status is null and p_offset > 0 then
    select d.id into first_id
      from delivery_reports d
     where d.company_id = p_company_id and d.message_id = p_message_id
       and d.created_at = p_recipients_at and d.id >= p_from_id
     order by d.id
    offset p_offset limit 1;
    skip := 0;
  end if;
  if first_id is not null then
    select array_agg(k.id), array_agg(k.recipient_phone), array_agg(k.status), array_agg(k.gateway_message_id),
           array_agg(k.delivered_at), array_agg(k.error_message), array_agg(k.attempts), array_agg(k.updated_at)
      into ids, phones, statuses, gateway_ids, delivered, errors, attempts, updated
      from (select d.id, d.recipient_phone, d.status, d.gateway_message_id, d.delivered_at, d.error_message,
                   d.attempts::int as attempts, d.updated_at
              from delivery_reports d
             where d.company_id = p_company_id and d.message_id = p_message_id
               and d.created_at = p_recipients_at and d.id >= first_id
               and (p_status is null or d.status = p_status)
             order by d.id
            offset skip limit p_limit) k;
  end if;
  return json_build_object('ids', coalesce(ids, '{}'), 'phones', coalesce(phones, '{}'),
                           'statuses', coalesce(statuses, '{}'), 'gateway_ids', coalesce(gateway_ids, '{}'),
                           'delivered', coalesce(delivered, '{}'), 'errors', coalesce(errors, '{}'),
                           'attempts', coalesce(attempts, '{}'), 'updated', coalesce(updated, '{}'));
end $function$;
revoke execute on function recipient_page_columns(p_company_id bigint, p_message_id bigint, p_recipients_at timestamp with time zone, p_status text, p_from_id bigint, p_offset integer, p_limit integer) from public;

-- A message's details in one call (ADR 0012, 2026-11-27): the message with its send state and
-- delivery counts (0027's message_with_state) and a page of its recipients (recipient_page_columns,
-- above), which were two round trips, called here in one. The caller names where a page of the send's
-- whole list starts from a remembered id (recipient-page-anchors.ts) for the fan-out time those ids
-- were read for: the start serves only when the send has finished its fan-out at that time and the
-- page has no status filter; otherwise the page is walked from the top, skipping p_offset rows (the
-- same page). The page is read only once the send's recipients have a fan-out time. null: no such
-- message for the caller. p_company_id null: any company the binding sees (a system admin).
-- SECURITY INVOKER: row-level security applies.
create or replace function message_details_page(p_id bigint, p_company_id bigint, p_status text, p_offset integer, p_limit integer, p_anchor_recipients_at timestamp with time zone, p_anchor_id bigint, p_anchor_skip integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  message json;
  company bigint;
  send_state text;
  recipients_at timestamptz;
  from_id bigint := 0;
  skip integer := p_offset;
  recipients json;
begin
  select row_to_json(w), w.company_id, w.send_state, w.recipients_at
    into message, company, send_state, recipients_at
    from message_with_state(p_id, p_company_id) w;
  if message is null then
    return null;
  end if;
  if recipients_at is not null then
    if p_status is null and send_state in ('dispatch', 'done') and recipients_at = p_anchor_recipients_at then
      from_id := p_anchor_id;
      skip := p_anchor_skip;
    end if;
    recipients := recipient_page_columns(company, p_id, recipients_at, p_status, from_id, skip, p_limit);
  end if;
  return json_build_object('message', message, 'recipients', recipients);
end $function$;
revoke execute on function message_details_page(p_id bigint, p_company_id bigint, p_status text, p_offset integer, p_limit integer, p_anchor_recipients_at timestamp with time zone, p_anchor_id bigint, p_anchor_skip integer) from public;
