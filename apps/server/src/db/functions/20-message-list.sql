-- The searched message list's rows (21-message-search.sql message_search_page).
-- The rows of a page of messages named by their keys, in that order, with their company's and
-- service's names, as json: shared by both lists below. PL/pgSQL so that its plan is kept for the
-- connection (a SQL function's is not, in PostgreSQL 17). SECURITY INVOKER.
create or replace function message_page_rows(p_company_ids bigint[], p_message_ids bigint[])
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
begin
  return (
    select coalesce(json_agg(r order by r.n), '[]')
      from (select k.n, m.id, m.company_id, c.name as company_name, m.service_id, s.name as service_name,
                   m.service_ids::int[] as service_ids, m.direction, m.content, m.msisdn, m.status,
                   m.scheduled_at, m.sent_at, m.created_at, m.recipient_count, m.queue_job_id, m.encoding, m.parts
              from unnest(p_company_ids, p_message_ids) with ordinality k(company_id, id, n)
              join messages m on m.company_id = k.company_id and m.id = k.id
              join companies c on c.id = m.company_id
              left join services s on s.company_id = m.company_id and s.id = m.service_id) r);
end $function$;
revoke execute on function message_page_rows(p_company_ids bigint[], p_message_ids bigint[]) from public;
