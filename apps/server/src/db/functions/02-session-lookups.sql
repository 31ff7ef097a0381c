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
