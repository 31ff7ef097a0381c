-- Templates with merge fields (issue 38, part 4).

-- A subscriber's own attributes (first_name, language, ...): merge fields of a personalised send,
-- set by an import's extra columns and edited on the subscriber. Names and values are checked by
-- packages/contracts (templates/merge-fields.ts); the table bounds the whole. NOT VALID: every
-- existing row holds the default, and a check of a million rows is not worth a migration's lock.
alter table subscribers add column attributes jsonb not null default '{}'::jsonb;
alter table subscribers add constraint subscribers_attributes_check
  check (jsonb_typeof(attributes) = 'object' and octet_length(attributes::text) <= 16384) not valid;
-- A subscriber is now named by its id alone (PUT /subscriptions/subscribers/{id}/attributes): a
-- system admin's lookup, and the route guard's, by (id) rather than a scan; ids only grow, so the
-- index is appended to at its right edge.
create index subscribers_id_idx on subscribers (id);

-- The merge fields a message's text uses ({{first_name}} ...): none for a plain text. The engine
-- renders each recipient's own text at hand-over only when there are some (messaging/hand-over.ts).
alter table messages add column merge_fields text[] not null default '{}'::text[];

-- A company's saved texts, with placeholders, that Create Message can start from.
create table message_templates (
  company_id bigint not null references companies (id) on delete cascade,
  id bigint generated always as identity,
  name text not null check (length(name) between 1 and 100),
  body text not null check (length(body) between 1 and 1000),
  created_by bigint references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (company_id, id)
);
create unique index message_templates_company_name_key on message_templates (company_id, lower(name));
create index message_templates_created_by_idx on message_templates (created_by);
alter table message_templates enable row level security, force row level security;
grant select, insert, update, delete on message_templates to sms_app;

-- Its policy and the `:id` guard's branch (app_row_visible) live in db/functions/01-tenant-wall.sql.
