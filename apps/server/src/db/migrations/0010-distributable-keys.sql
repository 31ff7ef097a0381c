-- Distributable keys (docs/decisions/0010-past-one-machine.md). A sharded PostgreSQL (Citus) with
-- company_id as the distribution column can enforce a primary key, a unique key or a foreign key
-- between two distributed tables only when it includes company_id: each company's rows then live
-- in one shard, and the constraint is checked there. Until now four tenant-owned tables were keyed
-- by their identity column alone, and the platform-wide short code + keyword rule was a unique
-- index across companies. Row identities do not change (ids still come from their sequences and
-- stay unique); only the keys that enforce them gain company_id.
--
-- companies and users stay global: in Citus they become reference tables (a copy on every node).
-- users: a system admin has no company (company_id is null) and sign-in finds a user by e-mail
-- before any company is known, so the e-mail key is platform-wide by nature. audit_logs keeps
-- platform entries (company_id null), so it stays with the global tables for now (see the ADR).

-- Foreign keys that name a bare id go first: they depend on the primary keys being replaced.
alter table subscriptions drop constraint subscriptions_service_id_fkey;
alter table subscriptions drop constraint subscriptions_subscriber_id_fkey;
alter table messages drop constraint messages_service_id_fkey;

-- services and subscribers: (company_id, id). The (company_id, id) indexes that served tenant
-- lists stay (the lists of other sessions may still name them); the new keys serve those lists too.
alter table services drop constraint services_pkey, add constraint services_pkey primary key (company_id, id);
alter table subscribers drop constraint subscribers_pkey, add constraint subscribers_pkey primary key (company_id, id);

-- messages: its unique (company_id, id) (0006) becomes the primary key as it is, without a rebuild;
-- message_sends and message_delivery_counts already reference it.
alter table messages drop constraint messages_pkey;
alter table messages add constraint messages_pkey primary key using index messages_company_id_key;

-- subscriptions: one row per service and subscriber within a company.
alter table subscriptions drop constraint subscriptions_pkey,
  add constraint subscriptions_pkey primary key (company_id, service_id, subscriber_id);

-- The foreign keys again, through company_id as well: a subscription can no longer name another
-- company's service or subscriber, and a message another company's service.
alter table subscriptions
  add constraint subscriptions_service_fkey foreign key (company_id, service_id)
    references services (company_id, id) on delete cascade,
  add constraint subscriptions_subscriber_fkey foreign key (company_id, subscriber_id)
    references subscribers (company_id, id) on delete cascade;
-- A deleted service clears the message's service only, never its company (PostgreSQL 15's column list).
alter table messages
  add constraint messages_service_fkey foreign key (company_id, service_id)
    references services (company_id, id) on delete set null (service_id);

-- A short code + keyword pair stays unique across the platform (an inbound "JOIN JOKES" to 77001
-- must reach one service), but a sharded table cannot hold a unique index across companies. The
-- pairs move to a registry of their own, global like companies (a reference table in Citus), kept
-- by a trigger on services; a taken pair is still a unique violation, which the services module
-- turns into its 409. The registry has no company column and the application's role cannot read it:
-- it only knows which pairs are taken.
create table service_keyword_claims (
  shortcode text not null,
  keyword text not null,
  service_id bigint not null unique,
  primary key (shortcode, keyword)
);
revoke all on table service_keyword_claims from sms_app;

insert into service_keyword_claims (shortcode, keyword, service_id)
select upper(shortcode), upper(keyword), id from services;

create function services_claim_keyword() returns trigger
  language plpgsql security definer set search_path = public, pg_temp as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    delete from service_keyword_claims where service_id = old.id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into service_keyword_claims (shortcode, keyword, service_id)
    values (upper(new.shortcode), upper(new.keyword), new.id);
  end if;
  return null;
end $$;
revoke execute on function services_claim_keyword() from public;
create trigger services_claim_keyword_insert after insert on services
  for each row execute function services_claim_keyword();
-- Counter triggers update services on every import and send: only a changed pair touches the registry.
create trigger services_claim_keyword_update after update of shortcode, keyword on services
  for each row when (upper(old.shortcode) is distinct from upper(new.shortcode)
                     or upper(old.keyword) is distinct from upper(new.keyword))
  execute function services_claim_keyword();
create trigger services_claim_keyword_delete after delete on services
  for each row execute function services_claim_keyword();

-- Within a company the pair is unique as before (the inbound path looks services up by it).
drop index services_shortcode_keyword_key;
create unique index services_company_shortcode_keyword_key
  on services (company_id, upper(shortcode), upper(keyword));
