-- Tenancy enforced by PostgreSQL itself. The application's connections act as sms_app (not a
-- superuser, no BYPASSRLS); migrations run as the owner. Every tenant-owned table gets a policy
-- on company_id against the transaction's binding (db/tenant-scope.ts), and FORCE ROW LEVEL
-- SECURITY so even the owner role is held to it when it is not a superuser.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'sms_app') then
    create role sms_app nologin;
  end if;
end $$;
-- The owner switches to sms_app on each application connection (SET ROLE), so it must be a member.
grant sms_app to current_user;

grant usage on schema public to sms_app;
grant select, insert, update, delete on all tables in schema public to sms_app;
grant usage, select on all sequences in schema public to sms_app;
grant execute on all functions in schema public to sms_app;
-- Tables, sequences and functions that later migrations create get the same rights.
alter default privileges in schema public grant select, insert, update, delete on tables to sms_app;
alter default privileges in schema public grant usage, select on sequences to sms_app;
alter default privileges in schema public grant execute on functions to sms_app;

-- True when the bound scope may see a row of this company: the platform scope sees every row,
-- a company scope its own. Unbound work sees nothing (fail closed). The platform part is the
-- explicit way across tenants (system admins, sign-in before the company is known, the engine's
-- dispatch across companies, migrations), never the absence of a binding.
--
-- Written "app.platform <> ''" rather than "= 'on'" on purpose. bindScope sets it to 'on' or ''
-- (unset reads as null), so both mean the same; but the planner cannot read the setting when it
-- plans and guesses an unknown "=" true for 0.5% of rows and an unknown "<>" for 99.5%. With
-- "<>" this qual leaves row estimates as they are and the repositories' explicit company filter
-- carries them; with "=" every estimate on a policed table shrank 200-fold and set-based
-- statements (imports, fan-out) turned into nested loops over thousands of rows.
-- Both functions are plain SQL expressions, so the planner inlines them into each query.
create function app_tenant_visible(row_company_id bigint) returns boolean
  language sql stable parallel safe as $$
  select current_setting('app.platform', true) <> ''
      or row_company_id = nullif(current_setting('app.company_id', true), '')::bigint
$$;

create function app_platform_scope() returns boolean
  language sql stable parallel safe as $$
  select coalesce(current_setting('app.platform', true) <> '', false)
$$;

-- Every tenant-owned table: a company scope reads and writes its own rows only (an unfiltered
-- UPDATE or DELETE cannot reach another company's); the platform scope reads and writes all.
-- FORCE: the policies hold for the tables' owner too, unless it is a superuser; the application
-- does not rely on that, its connections act as sms_app (db/database.ts).
-- Counter triggers (0001, 0003) run as the invoking role under the same binding: the rows they
-- update (services, company_subscriber_counts) belong to the same company as the rows that fired
-- them, so no trigger needs SECURITY DEFINER. Foreign-key cascades bypass row security by design.
do $$
declare
  tenant_table text;
begin
  foreach tenant_table in array array[
    'users', 'company_callback_tokens', 'services', 'subscribers', 'subscriptions', 'messages',
    'delivery_reports', 'company_subscriber_counts'
  ] loop
    execute format('alter table %I enable row level security, force row level security', tenant_table);
    execute format(
      'create policy tenant_isolation on %I using (app_tenant_visible(company_id)) with check (app_tenant_visible(company_id))',
      tenant_table);
  end loop;
end $$;
-- users: a system admin's row has no company, so only the platform scope sees or writes it.

-- A company scope sees and may update its own company row (last sign-in, settings); creating and
-- deleting companies is platform work.
alter table companies enable row level security, force row level security;
create policy company_read on companies for select using (app_tenant_visible(id));
create policy company_update on companies for update
  using (app_tenant_visible(id)) with check (app_tenant_visible(id));
create policy company_create on companies for insert with check (app_platform_scope());
create policy company_delete on companies for delete using (app_platform_scope());

-- The audit trail: a company scope reads its company's entries and appends entries for its own
-- company only (never a platform entry, company_id null, nor another company's); entries are never
-- rewritten by a tenant. Platform entries (company_id null) are visible to the platform scope only.
alter table audit_logs enable row level security, force row level security;
create policy audit_read on audit_logs for select using (app_tenant_visible(company_id));
create policy audit_append on audit_logs for insert with check (app_tenant_visible(company_id));
create policy audit_platform_update on audit_logs for update
  using (app_platform_scope()) with check (app_platform_scope());
create policy audit_platform_delete on audit_logs for delete using (app_platform_scope());

-- Not tenant-owned, so no policy: refresh_tokens (found by token hash before the user is known),
-- login_throttle (keyed by address and e-mail), platform_secrets, schema_migrations.
