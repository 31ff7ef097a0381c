-- A company's whole subscriber list as columns (ADR 0012, 2026-11-27).
--
-- subscriber_list_page (0030) built its page as one JSON object a row: json_agg of the row, whose
-- every value PostgreSQL types and converts on its own (a cache lookup or two each), and a hash join
-- of the rows with their active services. A page of 100 took 0.35 ms of the backend alone (EXPLAIN
-- and loops on the tenth-size bench data), 0.2 ms of it the JSON. The same page here comes as one
-- array a column (each array converted by one routine for its type), the active services as the
-- (subscriber, service) pairs of the page's range, ordered, which the API puts beside their rows:
-- no join, no JSON object a row. Same rows, order, state (exact total and newest id) and services.
-- SECURITY INVOKER: row-level security applies to everything it reads.
create function subscriber_list_columns(
  p_company_id bigint,
  p_offset integer,
  p_limit integer,
  p_at_or_below_id bigint
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
declare
  total bigint;
  newest bigint;
  company_name text;
  -- A variable, not coalesce(...) in the statement: the generic plan keeps it in the index condition.
  upper_id bigint;
  lowest bigint;
  highest bigint;
  ids bigint[];
  msisdns text[];
  statuses text[];
  created timestamptz[];
  subscribed bigint[];
  services bigint[];
begin
  select (select coalesce(sum(subscriber_count), 0) from company_subscriber_counts where company_id = p_company_id),
         (select max(id) from subscribers where company_id = p_company_id),
         (select name from companies where id = p_company_id)
    into total, newest, company_name;
  upper_id := coalesce(p_at_or_below_id, newest);
  select min(k.id), max(k.id) into lowest, highest
    from (select s.id from subscribers s
           where s.company_id = p_company_id and s.id <= upper_id
           order by s.id desc offset p_offset limit p_limit) k;
  -- The company's row unseen (as the join with it in 0030): no rows.
  if company_name is not null and lowest is not null then
    select array_agg(s.id order by s.id desc), array_agg(s.msisdn order by s.id desc),
           array_agg(s.status order by s.id desc), array_agg(s.created_at order by s.id desc)
      into ids, msisdns, statuses, created
      from subscribers s
     where s.company_id = p_company_id and s.id between lowest and highest;
    select array_agg(x.subscriber_id order by x.subscriber_id desc, x.service_id),
           array_agg(x.service_id order by x.subscriber_id desc, x.service_id)
      into subscribed, services
      from subscriptions x
     where x.company_id = p_company_id and x.subscriber_id between lowest and highest and x.status = 'active';
  end if;
  return json_build_object('total', total, 'newest', newest, 'company', company_name,
                           'ids', coalesce(ids, '{}'), 'msisdns', coalesce(msisdns, '{}'),
                           'statuses', coalesce(statuses, '{}'), 'created', coalesce(created, '{}'),
                           'subscribed', coalesce(subscribed, '{}'), 'services', coalesce(services, '{}'));
end $$;
revoke execute on function subscriber_list_columns(bigint, integer, integer, bigint) from public;
grant execute on function subscriber_list_columns(bigint, integer, integer, bigint) to sms_app;

-- A page of a message's recipients as columns (ADR 0012, 2026-11-27): 0034's recipient_page with
-- its page as one array a column (as above) instead of a JSON object a row. Its callers are the
-- recipients' list and message_details_page; recipient_page stays for an API process of before
-- during a deploy. SECURITY INVOKER: row-level security applies.
create function recipient_page_columns(
  p_company_id bigint,
  p_message_id bigint,
  p_recipients_at timestamptz,
  p_status text,
  p_from_id bigint,
  p_offset integer,
  p_limit integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
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
end $$;
revoke execute on function recipient_page_columns(bigint, bigint, timestamptz, text, bigint, integer, integer) from public;
grant execute on function recipient_page_columns(bigint, bigint, timestamptz, text, bigint, integer, integer) to sms_app;

-- A message's details in one call (ADR 0012, 2026-11-27): the message with its send state and
-- delivery counts (0027's message_with_state) and a page of its recipients (recipient_page_columns,
-- above), which were two round trips, called here in one. The caller names where a page of the send's
-- whole list starts from a remembered id (recipient-page-anchors.ts) for the fan-out time those ids
-- were read for: the start serves only when the send has finished its fan-out at that time and the
-- page has no status filter; otherwise the page is walked from the top, skipping p_offset rows (the
-- same page). The page is read only once the send's recipients have a fan-out time. null: no such
-- message for the caller. p_company_id null: any company the binding sees (a system admin).
-- SECURITY INVOKER: row-level security applies.
create function message_details_page(
  p_id bigint,
  p_company_id bigint,
  p_status text,
  p_offset integer,
  p_limit integer,
  p_anchor_recipients_at timestamptz,
  p_anchor_id bigint,
  p_anchor_skip integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
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
end $$;
revoke execute on function message_details_page(bigint, bigint, text, integer, integer, timestamptz, bigint, integer) from public;
grant execute on function message_details_page(bigint, bigint, text, integer, integer, timestamptz, bigint, integer) to sms_app;
