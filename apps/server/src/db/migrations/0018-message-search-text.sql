-- The message list's search on an index (docs/decisions/0012-console-reads-at-scale.md, "The
-- message list's search").
--
-- The search finds messages whose content (case-insensitive) or number contains the text. On
-- messages itself that is a LIKE, which is not leakproof: under row-level security PostgreSQL must
-- run the policy's qual first, so the trigram index can never be an index condition and every
-- search walked all of a company's messages (13-15 s at 1,000,000). This table holds the searchable
-- text outside row-level security, where the same LIKE is an index condition. sms_app has no rights
-- on it: it is read only through search_message_ids(), which scopes itself by the caller's binding
-- exactly as the policies do, and returns ids that the caller then joins to messages under
-- row-level security as usual.
create table message_search_text (
  company_id bigint not null,
  message_id bigint not null,
  created_at timestamptz not null,
  content text not null, -- lower(messages.content)
  msisdn text,
  primary key (company_id, message_id)
);
revoke all on table message_search_text from public, sms_app;
-- Enabled, not forced: the owner's functions and triggers read and write it without the policy
-- (whose qual would again come before the LIKE); should anyone grant sms_app on it, the policy holds.
alter table message_search_text enable row level security;
create policy tenant_isolation on message_search_text
  using ((select app_platform_scope()) or company_id = (select app_company_id()))
  with check ((select app_platform_scope()) or company_id = (select app_company_id()));

insert into message_search_text (company_id, message_id, created_at, content, msisdn)
select company_id, id, created_at, lower(content), msisdn from messages;

-- Matches: the trigram index (both columns in one: an OR of the two is a BitmapOr on it). Newest
-- first: a company's rows by time, for a common text (walk the newest, stop at the limit) and for
-- text too short for trigrams (the newest rows only); across companies the same by time alone.
create index message_search_text_trgm_idx on message_search_text
  using gin (content gin_trgm_ops, msisdn gin_trgm_ops);
create index message_search_text_company_created_idx on message_search_text (company_id, created_at desc, message_id desc);
create index message_search_text_created_idx on message_search_text (created_at desc, message_id desc);

-- Kept by statement triggers (one insert for a whole batch of messages). Most updates of a message
-- change its status, not its text: only rows whose text, number or time changed are written.
create function messages_search_text() returns trigger
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
    update message_search_text t
       set created_at = n.created_at, content = lower(n.content), msisdn = n.msisdn
      from new_rows n join old_rows o on o.id = n.id
     where t.company_id = n.company_id and t.message_id = n.id
       and (n.content, n.msisdn, n.created_at) is distinct from (o.content, o.msisdn, o.created_at);
  end if;
  return null;
end $$;
revoke execute on function messages_search_text() from public, sms_app;
create trigger messages_search_text_insert after insert on messages
  referencing new table as new_rows for each statement execute function messages_search_text();
create trigger messages_search_text_update after update on messages
  referencing new table as new_rows old table as old_rows for each statement execute function messages_search_text();
create trigger messages_search_text_delete after delete on messages
  referencing old table as old_rows for each statement execute function messages_search_text();

-- The ids of the messages whose lower-cased content (or number, when the pattern has a digit)
-- is LIKE p_pattern (its wildcards escaped by the caller), newest first, at most p_limit: of
-- company p_company_id, or of every company the binding may see when it is null.
--
-- Scoped like every policy: the platform scope sees all companies, a company binding its own, no
-- binding nothing. A pattern without three letters or digits in a row gives the trigram index
-- nothing to look up: it is matched against the newest 10,000 messages only.
--
-- Built with EXECUTE so that each call is planned for its own pattern: the planner then weighs how
-- common the text is (walk the newest rows until enough match, or look every match up by trigram
-- and keep the newest).
create function search_message_ids(p_company_id bigint, p_pattern text, p_limit integer)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer set search_path = public, pg_temp as $$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  scope text := '((select app_platform_scope()) or t.company_id = (select app_company_id()))';
  of_company text := case when company is null then 'true' else 't.company_id = $1' end;
  matches text := case when p_pattern ~ '[0-9]' then '(t.content like $2 or t.msisdn like $2)'
                       else 't.content like $2' end;
begin
  if p_pattern is null or p_limit is null or p_limit < 1 or (company is null and not platform) then
    return;
  end if;
  if p_pattern ~ '[[:alnum:]]{3}' then
    return query execute format(
      'select t.company_id, t.message_id, t.created_at from message_search_text t
        where %s and %s and %s
        order by t.created_at desc, t.message_id desc limit $3', of_company, scope, matches)
      using company, p_pattern, p_limit;
  else
    return query execute format(
      'select t.company_id, t.message_id, t.created_at
         from (select * from message_search_text t where %s and %s
                order by t.created_at desc, t.message_id desc limit 10000) t
        where %s
        order by t.created_at desc, t.message_id desc limit $3', of_company, scope, matches)
      using company, p_pattern, p_limit;
  end if;
end $$;
revoke execute on function search_message_ids(bigint, text, integer) from public;
grant execute on function search_message_ids(bigint, text, integer) to sms_app;
