-- A signed-in read sends `begin; select * from app_begin_session(...)` as one message: the session
-- lookup (app_session_user, 0012/0019) and the transaction's binding to the scope of the user it
-- finds, in one round trip instead of the lookup's own statement and then BEGIN with the binding.
-- PL/pgSQL keeps the plans of its statements for the connection; the same text as a plain SELECT
-- (set_config over the function's row) was planned on every call and cost the database more than
-- the two statements it replaced.
--
-- The binding is made only for a user the console admits, the rule of accessRefusal
-- (modules/auth/auth.service.ts): an active user who is a system admin (the platform scope) or
-- belongs to an active company (that company). Anyone else, or no live sign-in, binds nothing, so
-- row-level security shows the transaction nothing while the API answers 401. The row comes back
-- either way, for the API's message. set_config(..., true) lasts to the end of the caller's
-- transaction: this function has no SET clause of its own (app_session_user's SET clauses restore
-- the binding it found when it returns, before these are made).
create function app_begin_session(p_user_id bigint, p_session_id uuid, p_custom_plans boolean)
  returns table (id bigint, name text, email text, role text, status text, company_id bigint,
                 company_name text, company_status text)
  language plpgsql volatile
as $$
declare
  found_user record;
begin
  select * into found_user from app_session_user(p_user_id, p_session_id);
  if not found then
    return;
  end if;
  if found_user.status = 'active'
     and (found_user.role = 'system_admin' or found_user.company_status = 'active') then
    perform set_config('app.company_id',
                       case when found_user.role = 'system_admin' then '' else found_user.company_id::text end, true),
            set_config('app.platform', case when found_user.role = 'system_admin' then 'on' else '' end, true),
            set_config('app.user_id', found_user.id::text, true);
    -- A read's statements are planned for each call's values (db/tenant-scope.ts).
    if p_custom_plans then
      perform set_config('plan_cache_mode', 'force_custom_plan', true);
    end if;
  end if;
  return query select found_user.id, found_user.name, found_user.email, found_user.role, found_user.status,
                      found_user.company_id, found_user.company_name, found_user.company_status;
end
$$;

revoke all on function app_begin_session(bigint, uuid, boolean) from public;
grant execute on function app_begin_session(bigint, uuid, boolean) to sms_app;
