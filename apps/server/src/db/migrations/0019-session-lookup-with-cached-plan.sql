-- Every signed-in request asks app_session_user (0012) first. As a SQL function with SET clauses it
-- is never inlined, and PostgreSQL 17 plans a SQL function's statement anew on every call: about
-- 0.6 ms of the database's CPU per request, ten times what running it costs. In PL/pgSQL the
-- statement's plan is kept for the connection (a lookup by keys: the same plan serves every user).
-- Same signature, same answer, same SET clauses (the platform binding holds inside the function
-- only); CREATE OR REPLACE keeps its grants.
create or replace function app_session_user(p_user_id bigint, p_session_id uuid)
  returns table (id bigint, name text, email text, role text, status text, company_id bigint,
                 company_name text, company_status text)
  language plpgsql stable
  set app.platform = 'on' set app.company_id = ''
as $$
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
$$;
