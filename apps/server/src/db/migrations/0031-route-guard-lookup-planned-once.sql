-- The route guard's visibility check (plugins/guards.ts, requireVisibleId) planned once per
-- connection (ADR 0012, "the read floor at night").
--
-- A route whose `:id` names a row (a message's details, a service, a company, a user) first checks
-- that the actor's scope sees that row, else 404. Console reads force custom plans
-- (db/tenant-scope.ts), so that lookup by key was planned on every call: about 0.3 ms of
-- PostgreSQL for a message's details at tenth size, more than the lookup itself. Each statement
-- below is a lookup by its table's key, whose plan is the same for any company, so it is planned
-- once per connection (force_generic_plan; PL/pgSQL keeps the plan).
--
-- SECURITY INVOKER: row-level security applies to each lookup, as to the statement it replaces.
-- p_company_id: the actor's company (null for a system admin): the company-keyed tables are then
-- looked up by (company_id, id), their primary key.
create function app_row_visible(p_table text, p_id bigint, p_company_id bigint) returns boolean
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
as $$
begin
  if p_table = 'messages' then
    if p_company_id is null then
      return exists (select 1 from messages where id = p_id);
    end if;
    return exists (select 1 from messages where company_id = p_company_id and id = p_id);
  elsif p_table = 'services' then
    if p_company_id is null then
      return exists (select 1 from services where id = p_id);
    end if;
    return exists (select 1 from services where company_id = p_company_id and id = p_id);
  elsif p_table = 'companies' then
    return exists (select 1 from companies where id = p_id);
  elsif p_table = 'users' then
    return exists (select 1 from users where id = p_id);
  end if;
  raise exception 'app_row_visible: no such table %', p_table;
end
$$;

revoke execute on function app_row_visible(text, bigint, bigint) from public;
grant execute on function app_row_visible(text, bigint, bigint) to sms_app;
