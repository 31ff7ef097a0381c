-- What a statement on messages keeps in step, in one trigger function (the order is the one the
-- separate triggers fired in, alphabetically, before they were merged):
-- - before each deleted row (the one row-level branch): its figures leave the rollups. Its recipient
--   counters and its send state go by cascade, so they are read (and locked against a batch changing
--   them) first. Nothing to do while its company is being deleted (the rollups go by cascade too);
-- - inbound messages count in the rollups at their arrival hour (INSERT);
-- - services' message counts and last activity (INSERT);
-- - the recipients of deleted messages go too: delivery_reports has no foreign key to cascade (DELETE);
-- - message_search_text, the searchable text outside row-level security (see its table in the
--   baseline): SECURITY DEFINER because the application's role has no rights on it;
-- - message_search_words, each message's words, and message_search_vocabulary, the words once each
--   per company (a word already there costs a probe; only words the search's word page reads: with
--   a letter, or 40 characters long);
-- - message_status_counts, exact counts per company, direction and status;
-- - webhook_events, the webhook outbox (see "The webhook outbox" below).
--
-- The update branches find the rows whose text changed with EXCEPT, not by joining the new and old
-- transition tables on id: those have no index or statistics, and a nested loop over them took 11
-- to 14 s for a status change of 1,000 messages. Most updates change a status, not the text.
--
-- message_status_counts: +1 for each new row, -1 for each old row, per (company, direction,
-- status), only where it is not zero. Upserts in key order: two statements never wait on each
-- other's rows in opposite orders. A statement adds to its backend's shard (pg_backend_pid() % 8),
-- so concurrent writers of one company mostly lock different rows; a company being deleted (its
-- messages go by cascade) gets no rows back.
-- The webhook outbox (migration 0056): the events the statement's rows make, set-based from the
-- transition tables, for the webhook-deliver job to post (modules/webhooks/webhook-delivery.ts).
-- message.received: an inbound message arrived; message.sent / .delivered / .failed: an outbound
-- message's status became that. Nothing in the engine's code knows of webhooks.
--
-- An event is written only for a company with an enabled endpoint that wants its type. The first
-- check (any enabled endpoint the statement's scope can see: the owner is held to row-level
-- security, FORCEd) is one index probe and ends it for the many companies with none. Rows are
-- inserted in the statement's id order, so event ids keep each message's changes in order.
--
-- Event ids are taken in a company's shared webhook lock (advisory key 7201556), which the
-- deliverer takes exclusively before it reads: while it holds it, no transaction that wrote an
-- event of the company is still open, so every id up to the highest it sees is committed (or gone)
-- and its cursor can never pass an event committed later with a lower id.
--
-- Status changes are found with NOT EXISTS against the old rows (a hash anti-join), not a join on
-- the transition tables. The payload is what an endpoint receives as an event's data (docs/api.md,
-- "Webhooks").
create or replace function messages_changed()
 returns trigger
 language plpgsql
 security definer
 set search_path to 'public', 'pg_temp'
as $function$
declare
  totals record;
  -- The messages an update changed the status of.
  status_changed bigint[];
begin
  if tg_level = 'ROW' then
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
      -- The hour its recipients count in (as delivery_counts_activity reads it).
      perform record_activity(array[row(old.company_id,
        coalesce((select s.recipients_at from message_sends s where s.company_id = old.company_id and s.message_id = old.id),
                 (select r.created_at from delivery_reports r
                   where r.company_id = old.company_id and r.message_id = old.id limit 1),
                 old.created_at),
        -totals.pending, -totals.submitted, -totals.sent, -totals.delivered, -totals.failed, -totals.rejected,
        -totals.expired, 0, 0, 0, 0, 0)::activity_delta]);
    end if;
    return old;
  end if;

  if tg_op = 'INSERT' then
    perform record_activity(array(
      select row(company_id, date_trunc('hour', created_at, 'UTC'), 0, 0, 0, 0, 0, 0, 0, count(*), 0, 0, 0, 0)::activity_delta
        from new_rows where direction = 'inbound' group by company_id, date_trunc('hour', created_at, 'UTC')));

    update services s set message_count = s.message_count + d.delta,
                          last_activity_at = greatest(s.last_activity_at, d.latest)
      from (
        select company_id,
               unnest(case when cardinality(service_ids) > 0 then service_ids else array[service_id] end) as sid,
               count(*) as delta, max(created_at) as latest
          from new_rows group by 1, 2
      ) d
     where s.company_id = d.company_id and s.id = d.sid;

    insert into message_search_text (company_id, message_id, created_at, content, msisdn)
    select n.company_id, n.id, n.created_at, lower(n.content), n.msisdn from new_rows n
    on conflict (company_id, message_id) do update
      set created_at = excluded.created_at, content = excluded.content, msisdn = excluded.msisdn;

    with added as (
      insert into message_search_words (company_id, word, created_at, message_id)
      select n.company_id, w.word, n.created_at, n.id from new_rows n cross join lateral search_words(n.content) as w(word)
      on conflict do nothing
      returning company_id, word)
    insert into message_search_vocabulary (company_id, word)
    select distinct a.company_id, a.word from added a where a.word ~ '[a-z]' or length(a.word) >= 40
    on conflict do nothing;

    insert into message_status_counts as c (company_id, direction, status, shard, messages)
    select n.company_id, n.direction, n.status, pg_backend_pid() % 8, count(*)
      from new_rows n
     where exists (select 1 from companies co where co.id = n.company_id)
     group by 1, 2, 3
     order by 1, 2, 3
    on conflict (company_id, direction, status, shard) do update set messages = c.messages + excluded.messages;

  elsif tg_op = 'DELETE' then
    delete from delivery_reports d using old_rows o
     where d.company_id = o.company_id and d.message_id = o.id;

    delete from message_search_text t using old_rows o
     where t.company_id = o.company_id and t.message_id = o.id;

    delete from message_search_words x
     using (select o.company_id, w.word, o.created_at, o.id
              from old_rows o cross join lateral search_words(o.content) as w(word)) d
     where x.company_id = d.company_id and x.word = d.word and x.created_at = d.created_at and x.message_id = d.id;

    insert into message_status_counts as c (company_id, direction, status, shard, messages)
    select o.company_id, o.direction, o.status, pg_backend_pid() % 8, -count(*)
      from old_rows o
     where exists (select 1 from companies co where co.id = o.company_id)
     group by 1, 2, 3
     order by 1, 2, 3
    on conflict (company_id, direction, status, shard) do update set messages = c.messages + excluded.messages;

  else
    -- A row of another company than before loses its old key; then every changed row is written.
    delete from message_search_text t
     using (select id, company_id from old_rows except select id, company_id from new_rows) o
     where t.company_id = o.company_id and t.message_id = o.id;
    insert into message_search_text (company_id, message_id, created_at, content, msisdn)
    select n.company_id, n.id, n.created_at, lower(n.content), n.msisdn
      from (select id, company_id, content, msisdn, created_at from new_rows
            except
            select id, company_id, content, msisdn, created_at from old_rows) n
    on conflict (company_id, message_id) do update
      set created_at = excluded.created_at, content = excluded.content, msisdn = excluded.msisdn;

    -- Two statements: one statement could not delete a key and add it back.
    delete from message_search_words x
     using (select o.company_id, w.word, o.created_at, o.id
              from (select id, company_id, content, created_at from old_rows
                    except
                    select id, company_id, content, created_at from new_rows) o
              cross join lateral search_words(o.content) as w(word)) d
     where x.company_id = d.company_id and x.word = d.word and x.created_at = d.created_at and x.message_id = d.id;
    with added as (
      insert into message_search_words (company_id, word, created_at, message_id)
      select n.company_id, w.word, n.created_at, n.id
        from (select id, company_id, content, created_at from new_rows
              except
              select id, company_id, content, created_at from old_rows) n
        cross join lateral search_words(n.content) as w(word)
      on conflict do nothing
      returning company_id, word)
    insert into message_search_vocabulary (company_id, word)
    select distinct a.company_id, a.word from added a where a.word ~ '[a-z]' or length(a.word) >= 40
    on conflict do nothing;

    insert into message_status_counts as c (company_id, direction, status, shard, messages)
    select d.company_id, d.direction, d.status, pg_backend_pid() % 8, d.n
      from (select x.company_id, x.direction, x.status, sum(x.n) as n
              from (select company_id, direction, status, 1 as n from new_rows
                    union all
                    select company_id, direction, status, -1 from old_rows) x
             group by 1, 2, 3
            having sum(x.n) <> 0) d
     where exists (select 1 from companies co where co.id = d.company_id)
     order by 1, 2, 3
    on conflict (company_id, direction, status, shard) do update set messages = c.messages + excluded.messages;
  end if;

  -- The webhook outbox, for an insert and an update alike: an update's rows make events only where
  -- it changed the status (found in its old rows first: they exist for an update only).
  if tg_op <> 'DELETE' and exists (select 1 from webhook_endpoints where enabled) then
    if tg_op = 'UPDATE' then
      status_changed := array(select n.id from new_rows n
                               where not exists (select 1 from old_rows o
                                                  where o.company_id = n.company_id and o.id = n.id and o.status = n.status));
    end if;
    perform pg_advisory_xact_lock_shared(7201556, c.company_id::int) from (select distinct company_id from new_rows) c
     where exists (select 1 from webhook_endpoints w where w.company_id = c.company_id and w.enabled)
     order by c.company_id;
    insert into webhook_events (company_id, type, subject, payload)
    select n.company_id, e.type, 'message:' || n.id, jsonb_build_object(
             'messageId', n.id, 'direction', n.direction, 'status', n.status, 'msisdn', n.msisdn,
             'serviceIds', case when cardinality(n.service_ids) > 0 then to_jsonb(n.service_ids)
                                when n.service_id is not null then jsonb_build_array(n.service_id)
                                else '[]'::jsonb end,
             'content', n.content, 'recipientCount', n.recipient_count,
             'sentAt', n.sent_at, 'createdAt', n.created_at)
      from new_rows n
     cross join lateral (select case when n.direction = 'inbound' then 'message.received'
                                     else 'message.' || n.status end as type) e
     -- An inbound message's one event is its arrival.
     where case when n.direction = 'inbound' then tg_op = 'INSERT' else n.status in ('sent', 'delivered', 'failed') end
       and (tg_op = 'INSERT' or n.id in (select unnest(status_changed)))
       and exists (select 1 from webhook_endpoints w
                    where w.company_id = n.company_id and w.enabled and e.type = any(w.event_types))
     order by n.company_id, n.id;
  end if;
  return null;
end $function$;
revoke execute on function messages_changed() from public;
revoke execute on function messages_changed() from sms_app;

drop trigger if exists messages_inserted on messages;
create trigger messages_inserted after insert on messages referencing new table as new_rows for each statement execute function messages_changed();
drop trigger if exists messages_updated on messages;
create trigger messages_updated after update on messages referencing old table as old_rows new table as new_rows for each statement execute function messages_changed();
drop trigger if exists messages_deleted on messages;
create trigger messages_deleted after delete on messages referencing old table as old_rows for each statement execute function messages_changed();

drop trigger if exists messages_activity_before_delete on messages;
create trigger messages_activity_before_delete before delete on messages for each row execute function messages_changed();
