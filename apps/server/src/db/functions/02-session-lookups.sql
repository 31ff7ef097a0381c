-- Every signed-in request asks app_session_user (0012) first. As a SQL function with SET clauses it
-- is never inlined, and PostgreSQL 17 plans a SQL function's statement anew on every call: about
-- 0.6 ms of the database's CPU per request, ten times what running it costs. In PL/pgSQL the
-- statement's plan is kept for the connection (a lookup by keys: the same plan serves every user).
-- Same signature, same answer, same SET clauses (the platform binding holds inside the function
-- only); CREATE OR REPLACE keeps its grants.
create or replace function app_session_user(p_user_id bigint, p_session_id uuid)
 returns TABLE(id bigint, name text, email text, role text, status text, company_id bigint, company_name text, company_status text)
 language plpgsql
 stable
 set "app.platform" to 'on'
 set "app.company_id" to ''
as $function$
#variable_conflict use_column
begin
  return query
  select u.id, u.name, u.email, u.role, u.status, u.company_id, c.name, c.status
    from users u
    left join companies c on c.id = u.company_id
   where u.id = p_user_id
     and exists (select 1 from refresh_tokens t
                  where t.family_id = p_session_id and t.user_id = p_user_id and t.revoked_at is null);
end
$function$;

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
 returns TABLE(id bigint, name text, email text, role text, status text, company_id bigint, company_name text, company_status text)
 language plpgsql
as $function$
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
$function$;
revoke execute on function app_begin_session(p_user_id bigint, p_session_id uuid, p_custom_plans boolean) from public;

-- A callback URL works whatever the company's status (docs/decisions/0008, security issue item 2).
-- Suspending a company (or leaving it pending or inactive) stops what it sends and who it signs up,
-- not what providers report back: delivery reports of messages already handed over still settle
-- their recipients (refused, they stayed 'submitted' for good), and opt-outs (STOP, deletions) are
-- always honoured. Opt-ins are refused where they are handled (subscription-callback.service.ts),
-- which reads the status itself. The rule stays in this one function, which the token check of
-- every callback and the delivery-report intake (accept_delivery_reports) call; a deleted company's
-- tokens are deleted with it.
create or replace function current_callback_token_hash(p_company_id bigint, p_type text)
 returns bytea
 language plpgsql
 stable
as $function$
begin
  return (select t.token_hash
            from company_callback_tokens t
           where t.company_id = p_company_id and t.callback_type = p_type);
end $function$;
