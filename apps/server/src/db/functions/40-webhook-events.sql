-- The webhook outbox (migration 0056): what statements on messages and subscriptions write to
-- webhook_events, set-based from their transition tables, for the webhook-deliver job to post
-- (modules/webhooks/webhook-delivery.ts). Nothing in the engine's code knows of webhooks.
--
-- An event is written only for a company with an enabled endpoint that wants its type. The first
-- check (any enabled endpoint the statement's scope can see) is one index probe and ends the
-- trigger for the many companies with none. Rows are inserted in the statement's id order, so
-- event ids keep each subscriber's and each message's changes in the order they happened.
--
-- Event ids are taken in a company's shared webhook lock (advisory key 7201556), which the
-- deliverer takes exclusively before it reads: while it holds it, no transaction that wrote an
-- event of the company is still open, so every id up to the highest it sees is committed (or gone)
-- and its cursor can never pass an event committed later with a lower id.
--
-- Status changes are found with NOT EXISTS against the old rows (a hash anti-join), not a join on
-- the transition tables, which have no statistics (see 11-message-triggers.sql).

-- Functions an earlier version of this file defined, now written into the two triggers below.
drop function if exists webhook_lock_for_events(bigint);
drop function if exists webhook_wanted(bigint, text);
drop function if exists webhook_message_event_type(text, text);
drop function if exists webhook_subscription_event_type(text);

-- What an endpoint receives as an event's data (docs/api.md, "Webhooks").
create or replace function webhook_message_payload(m messages)
 returns jsonb
 language sql
 stable
as $function$
  select jsonb_build_object(
    'messageId', m.id, 'direction', m.direction, 'status', m.status, 'msisdn', m.msisdn,
    'serviceIds', case when cardinality(m.service_ids) > 0 then to_jsonb(m.service_ids)
                       when m.service_id is not null then jsonb_build_array(m.service_id)
                       else '[]'::jsonb end,
    'content', m.content, 'recipientCount', m.recipient_count,
    'sentAt', m.sent_at, 'createdAt', m.created_at)
$function$;

create or replace function webhook_subscription_payload(s subscriptions, p_msisdn text)
 returns jsonb
 language sql
 stable
as $function$
  select jsonb_build_object(
    'subscriberId', s.subscriber_id, 'msisdn', p_msisdn, 'serviceId', s.service_id,
    'status', s.status, 'source', s.source,
    'at', case when s.status = 'active' then s.subscribed_at else coalesce(s.unsubscribed_at, now()) end)
$function$;

-- message.received: an inbound message arrived; message.sent / .delivered / .failed: an outbound
-- message's status became that.
create or replace function webhook_events_of_messages()
 returns trigger
 language plpgsql
 set search_path to 'public', 'pg_temp'
as $function$
begin
  if not exists (select 1 from webhook_endpoints where enabled) then
    return null;
  end if;
  perform pg_advisory_xact_lock_shared(7201556, c.company_id::int) from (select distinct company_id from new_rows) c
   where exists (select 1 from webhook_endpoints w where w.company_id = c.company_id and w.enabled)
   order by c.company_id;
  -- Two statements: an insert has no old rows to name.
  if tg_op = 'INSERT' then
    insert into webhook_events (company_id, type, subject, payload)
    select n.company_id, e.type, 'message:' || n.id, webhook_message_payload(n)
      from new_rows n
     cross join lateral (select case when n.direction = 'inbound' then 'message.received'
                                     else 'message.' || n.status end as type) e
     where (n.direction = 'inbound' or n.status in ('sent', 'delivered', 'failed'))
       and exists (select 1 from webhook_endpoints w
                    where w.company_id = n.company_id and w.enabled and e.type = any(w.event_types))
     order by n.company_id, n.id;
  else
    insert into webhook_events (company_id, type, subject, payload)
    select n.company_id, 'message.' || n.status, 'message:' || n.id, webhook_message_payload(n)
      from new_rows n
     where n.direction = 'outbound' and n.status in ('sent', 'delivered', 'failed')
       and not exists (select 1 from old_rows o where o.company_id = n.company_id and o.id = n.id and o.status = n.status)
       and exists (select 1 from webhook_endpoints w
                    where w.company_id = n.company_id and w.enabled and 'message.' || n.status = any(w.event_types))
     order by n.company_id, n.id;
  end if;
  return null;
end $function$;

drop trigger if exists webhook_events_messages_inserted on messages;
create trigger webhook_events_messages_inserted after insert on messages referencing new table as new_rows for each statement execute function webhook_events_of_messages();
drop trigger if exists webhook_events_messages_updated on messages;
create trigger webhook_events_messages_updated after update on messages referencing old table as old_rows new table as new_rows for each statement execute function webhook_events_of_messages();

-- subscriber.subscribed: a subscription became active (new, or back from unsubscribed);
-- subscriber.unsubscribed: an active one ended.
create or replace function webhook_events_of_subscriptions()
 returns trigger
 language plpgsql
 set search_path to 'public', 'pg_temp'
as $function$
begin
  if not exists (select 1 from webhook_endpoints where enabled) then
    return null;
  end if;
  perform pg_advisory_xact_lock_shared(7201556, c.company_id::int) from (select distinct company_id from new_rows) c
   where exists (select 1 from webhook_endpoints w where w.company_id = c.company_id and w.enabled)
   order by c.company_id;
  if tg_op = 'INSERT' then
    insert into webhook_events (company_id, type, subject, payload)
    select n.company_id, 'subscriber.subscribed', 'subscriber:' || n.subscriber_id, webhook_subscription_payload(n, s.msisdn)
      from new_rows n
      join subscribers s on s.company_id = n.company_id and s.id = n.subscriber_id
     where n.status = 'active'
       and exists (select 1 from webhook_endpoints w
                    where w.company_id = n.company_id and w.enabled and 'subscriber.subscribed' = any(w.event_types))
     order by n.company_id, n.subscriber_id, n.service_id;
  else
    insert into webhook_events (company_id, type, subject, payload)
    select n.company_id, e.type, 'subscriber:' || n.subscriber_id, webhook_subscription_payload(n, s.msisdn)
      from new_rows n
      join subscribers s on s.company_id = n.company_id and s.id = n.subscriber_id
     cross join lateral (select case when n.status = 'active' then 'subscriber.subscribed'
                                     else 'subscriber.unsubscribed' end as type) e
     where not exists (select 1 from old_rows o
                        where o.company_id = n.company_id and o.service_id = n.service_id
                          and o.subscriber_id = n.subscriber_id and o.status = n.status)
       and exists (select 1 from webhook_endpoints w
                    where w.company_id = n.company_id and w.enabled and e.type = any(w.event_types))
     order by n.company_id, n.subscriber_id, n.service_id;
  end if;
  return null;
end $function$;

drop trigger if exists webhook_events_subscriptions_inserted on subscriptions;
create trigger webhook_events_subscriptions_inserted after insert on subscriptions referencing new table as new_rows for each statement execute function webhook_events_of_subscriptions();
drop trigger if exists webhook_events_subscriptions_updated on subscriptions;
create trigger webhook_events_subscriptions_updated after update on subscriptions referencing old table as old_rows new table as new_rows for each statement execute function webhook_events_of_subscriptions();
