-- Exact message counts per company, direction and status, kept by statement triggers
-- (docs/decisions/0012-console-reads-at-scale.md, "The message list's counts from counters").
--
-- Every view of the message list shows four chip counts (Scheduled, Pending, Sent, All) and the
-- list's own total. They were counted from messages on every request, stopping at a cap (1,001
-- index entries per chip, 10,001 for the total): the largest part of the list's database time, and
-- still only "1,000+". These rows make them exact and a read of a few rows.
--
-- A company's count of one (direction, status) is the sum over its shards. A statement adds to the
-- shard of its backend (pg_backend_pid() % 8), so concurrent writers of one company (inbound
-- callbacks, sends, status changes) mostly lock different rows; the sum stays exact whatever shard
-- a change lands in, because rows are only ever added to, never overwritten.
create table message_status_counts (
  company_id bigint not null references companies (id) on delete cascade,
  direction text not null,
  status text not null,
  shard smallint not null,
  messages bigint not null default 0,
  primary key (company_id, direction, status, shard)
);
alter table message_status_counts enable row level security, force row level security;
create policy tenant_isolation on message_status_counts
  using ((select app_platform_scope()) or company_id = (select app_company_id()))
  with check ((select app_platform_scope()) or company_id = (select app_company_id()));

-- One statement's change: +1 for each new row, -1 for each old row, per (company, direction,
-- status), only where it is not zero (an update that leaves the status alone writes nothing).
-- Upserts in key order: two statements never wait on each other's rows in opposite orders. A
-- company being deleted (its messages go by cascade) gets no rows back. Three static statements
-- (plpgsql prepares each once per connection), one per kind of change.
create function messages_status_counts() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into message_status_counts as c (company_id, direction, status, shard, messages)
    select n.company_id, n.direction, n.status, pg_backend_pid() % 8, count(*)
      from new_rows n
     where exists (select 1 from companies co where co.id = n.company_id)
     group by 1, 2, 3
     order by 1, 2, 3
    on conflict (company_id, direction, status, shard) do update set messages = c.messages + excluded.messages;
  elsif tg_op = 'DELETE' then
    insert into message_status_counts as c (company_id, direction, status, shard, messages)
    select o.company_id, o.direction, o.status, pg_backend_pid() % 8, -count(*)
      from old_rows o
     where exists (select 1 from companies co where co.id = o.company_id)
     group by 1, 2, 3
     order by 1, 2, 3
    on conflict (company_id, direction, status, shard) do update set messages = c.messages + excluded.messages;
  else
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
  return null;
end $$;
create trigger messages_status_counts_insert after insert on messages
  referencing new table as new_rows for each statement execute function messages_status_counts();
create trigger messages_status_counts_update after update on messages
  referencing new table as new_rows old table as old_rows for each statement execute function messages_status_counts();
create trigger messages_status_counts_delete after delete on messages
  referencing old table as old_rows for each statement execute function messages_status_counts();

-- Filled from the messages there are. The triggers above already hold messages against writers
-- (creating a trigger takes a lock that conflicts with every write) until this migration commits,
-- so no change is counted twice or missed.
insert into message_status_counts (company_id, direction, status, shard, messages)
select company_id, direction, status, 0, count(*) from messages group by 1, 2, 3;

-- The two search tables' update triggers (0009's words for the top bar, 0018's text for the message
-- list) found the rows whose text changed by joining the statement's new and old rows on id. Those
-- transition tables have no index or statistics, so the planner joined them by nested loop: a
-- status change of 100 messages in one statement took 150 ms in these triggers, of 1,000 messages
-- 11 to 14 s (EXPLAIN ANALYZE, 100,000 messages). The changed rows are now found with EXCEPT (hashed
-- or sorted, linear in the rows): a row whose text, time and company are as they were is not in it.
-- Same rows written as before; a message moved to another company now also moves its text row.
create or replace function messages_search_words() returns trigger language plpgsql as $$
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
    -- Most updates change a status, not the text: only rows whose text (or time, or company) changed
    -- are redone, in two statements (one statement could not delete a key and add it back).
    delete from message_search_words x
     using (select o.company_id, w.word, o.created_at, o.id
              from (select id, company_id, content, created_at from old_rows
                    except
                    select id, company_id, content, created_at from new_rows) o
              cross join lateral search_words(o.content) as w(word)) d
     where x.company_id = d.company_id and x.word = d.word and x.created_at = d.created_at and x.message_id = d.id;
    insert into message_search_words (company_id, word, created_at, message_id)
    select n.company_id, w.word, n.created_at, n.id
      from (select id, company_id, content, created_at from new_rows
            except
            select id, company_id, content, created_at from old_rows) n
      cross join lateral search_words(n.content) as w(word)
    on conflict do nothing;
  end if;
  return null;
end $$;

create or replace function messages_search_text() returns trigger
  language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if tg_op = 'INSERT' then
    insert into message_search_text (company_id, message_id, created_at, content, msisdn)
    select n.company_id, n.id, n.created_at, lower(n.content), n.msisdn from new_rows n
    on conflict (company_id, message_id) do update
      set created_at = excluded.created_at, content = excluded.content, msisdn = excluded.msisdn;
  elsif tg_op = 'DELETE' then
    delete from message_search_text t using old_rows o
     where t.company_id = o.company_id and t.message_id = o.id;
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
  end if;
  return null;
end $$;
revoke execute on function messages_search_text() from public, sms_app;

-- How many messages search_message_ids would find with the same arguments, counted up to p_limit,
-- without putting them in order: a search's total with no other filter is min(matches, limit),
-- whichever matches are counted, so the 10,001 newest need not be found and sorted first (a common
-- word at 1,000,000 messages: about 13 ms -> 7 ms). Scoped exactly as search_message_ids; text too
-- short for trigrams keeps its window of the newest 10,000, which needs the order: it asks
-- search_message_ids.
create function count_message_matches(p_company_id bigint, p_pattern text, p_limit integer)
  returns integer
  language plpgsql stable security definer set search_path = public, pg_temp as $$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  scope text := '((select app_platform_scope()) or t.company_id = (select app_company_id()))';
  of_company text := case when company is null then 'true' else 't.company_id = $1' end;
  matches text := case when p_pattern ~ '[0-9]' then '(t.content like $2 or t.msisdn like $2)'
                       else 't.content like $2' end;
  counted integer;
begin
  if p_pattern is null or p_limit is null or p_limit < 1 or (company is null and not platform) then
    return 0;
  end if;
  if p_pattern !~ '[[:alnum:]]{3}' then
    return (select count(*) from search_message_ids(p_company_id, p_pattern, p_limit));
  end if;
  execute format(
    'select count(*) from (select 1 from message_search_text t where %s and %s and %s limit $3) x',
    of_company, scope, matches)
    into counted using company, p_pattern, p_limit;
  return counted;
end $$;
revoke execute on function count_message_matches(bigint, text, integer) from public;
grant execute on function count_message_matches(bigint, text, integer) to sms_app;
