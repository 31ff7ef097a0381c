-- A signed-in read's session lookup and binding (0025's app_begin_session) in one PL/pgSQL
-- function, without the nested call of app_session_user (ADR 0012, "database floor").
--
-- Every read pays this function once. 0025 called app_session_user, whose SET clauses (the
-- platform binding for the lookup) route each call through fmgr's save-and-restore of settings, a
-- second PL/pgSQL frame and a tuplestore of its row; then bound with PERFORM statements (each a
-- SELECT run through the executor) and answered with RETURN QUERY, a statement planned on every
-- call once the custom plans it had just forced were in force. Here the lookup is this function's
-- own statement (its plan kept for the connection: a lookup by keys), the settings are assignments
-- (PL/pgSQL evaluates a lone function call without the executor), and the row is returned from
-- its variables.
--
-- The platform binding the lookup needs (users and companies are under row-level security) is
-- made transaction-local, like every binding. Every path then sets it again: to the admitted
-- user's scope, or back to what it was before the call (no live sign-in, or a user the console
-- does not admit: binds nothing, as 0025). An error aborts the transaction (or the caller's
-- subtransaction), which undoes the setting with it.
--
-- Same signature, answer, rule of admission (accessRefusal) and grants as 0025.
create or replace function app_begin_session(p_user_id bigint, p_session_id uuid, p_custom_plans boolean)
  returns table (id bigint, name text, email text, role text, status text, company_id bigint,
                 company_name text, company_status text)
  language plpgsql volatile
as $$
declare
  platform_before text := coalesce(current_setting('app.platform', true), '');
  admitted boolean;
  system_admin boolean;
  ignored text;
begin
  ignored := set_config('app.platform', 'on', true);
  select u.id, u.name, u.email, u.role, u.status, u.company_id, c.name, c.status
    into id, name, email, role, status, company_id, company_name, company_status
    from users u
    left join companies c on c.id = u.company_id
   where u.id = p_user_id
     and exists (select 1 from refresh_tokens t
                  where t.family_id = p_session_id and t.user_id = p_user_id and t.revoked_at is null);
  if not found then
    ignored := set_config('app.platform', platform_before, true);
    return;
  end if;
  -- coalesce: an unknown (a missing company's status) admits no one, as 0025's IF did not.
  admitted := coalesce(status = 'active' and (role = 'system_admin' or company_status = 'active'), false);
  if not admitted then
    ignored := set_config('app.platform', platform_before, true);
    return next;
    return;
  end if;
  system_admin := role = 'system_admin';
  ignored := set_config('app.company_id', case when system_admin then '' else company_id::text end, true);
  ignored := set_config('app.platform', case when system_admin then 'on' else '' end, true);
  ignored := set_config('app.user_id', id::text, true);
  -- A read's statements are planned for each call's values (db/tenant-scope.ts).
  if p_custom_plans then
    ignored := set_config('plan_cache_mode', 'force_custom_plan', true);
  end if;
  return next;
end
$$;
