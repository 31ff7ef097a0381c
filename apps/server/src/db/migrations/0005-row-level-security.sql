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
-- a company scope its own. Unbound work sees nothing (fail closed).
create function app_tenant_visible(row_company_id bigint) returns boolean
  language sql stable parallel safe as $$
  select current_setting('app.platform', true) = 'on'
      or row_company_id = nullif(current_setting('app.company_id', true), '')::bigint
$$;

-- Policies per tenant-owned table follow (issue 8).
