-- The dashboard's figures (dashboard.repository.ts findDashboardFigures).
--
-- Why these console reads are PL/pgSQL functions and not queries in their module's repository:
-- a repository's statement is planned for its values on every call (it is sent unnamed), and for
-- these reads planning cost more than running (see each function).
-- A PL/pgSQL function's statements are planned once per connection (force_generic_plan) in shapes
-- whose plan suits any company. Moving one back was measured (bench --quick, 2 December): the
-- message details' PostgreSQL CPU a request went from 0.41 to 1.67 ms, the dashboard's from 0.45
-- to 1.65 ms.

-- 0027's dashboard_figures, its audit entries carrying by_platform_staff.
create or replace function dashboard_figures(p_company_id bigint, p_this_month date, p_last_month date, p_span_end_day date, p_span_end timestamp with time zone, p_recent integer)
 returns json
 language plpgsql
 stable
 set plan_cache_mode to 'force_generic_plan'
 set search_path to 'public', 'pg_temp'
as $function$
declare
  span_start timestamptz := p_span_end_day::timestamp at time zone 'UTC';
begin
  if p_company_id is null then
    return (
      select json_build_object(
        'services_total', sv.total, 'services_active', sv.active,
        'active_subscribers', (select coalesce(sum(subscriber_count), 0) from company_subscriber_counts
                                where status = 'active'),
        'messages_sent', (select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)
                            from company_monthly_activity),
        'month', month,
        'sent_last_month_hours', (select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)
                                    from company_hourly_activity where hour >= span_start and hour < p_span_end),
        'audit', (select coalesce(json_agg(a order by a.created_at desc, a.id desc), '[]')
                    from (select id, action, entity, entity_id, user_name, by_platform_staff, details, created_at
                            from audit_logs
                           where action <> all(array['LOGIN', 'LOGOUT']) and entity <> 'MESSAGE'
                           order by created_at desc, id desc limit p_recent) a),
        'messages', (select coalesce(json_agg(r order by r.created_at desc, r.id desc), '[]')
                       from (select m.id, m.direction, m.status, m.content, m.msisdn, m.recipient_count,
                                    s.name as service_name, m.created_at, m.updated_at
                               from (select * from messages order by created_at desc, id desc limit p_recent) m
                               left join services s on s.company_id = m.company_id and s.id = m.service_id) r),
        'companies', (select coalesce(json_agg(c), '[]')
                        from (select plan, status, count(*)::int as companies from companies group by plan, status) c))
        from (select count(*)::int as total, count(*) filter (where status = 'active')::int as active from services) sv,
             (select coalesce(sum(services_delta) filter (where day >= p_this_month), 0) as services_since,
                     coalesce(sum(active_services_delta) filter (where day >= p_this_month), 0) as active_services_since,
                     coalesce(sum(active_subscribers_delta) filter (where day >= p_this_month), 0) as active_subscribers_since,
                     coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                                filter (where day >= p_this_month), 0) as sent_this_month,
                     coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                                filter (where day < p_span_end_day), 0) as sent_last_month_days
                from company_daily_activity where day >= p_last_month) month);
  end if;
  return (
    select json_build_object(
      'services_total', sv.total, 'services_active', sv.active,
      'active_subscribers', (select coalesce(sum(subscriber_count), 0) from company_subscriber_counts
                              where company_id = p_company_id and status = 'active'),
      'messages_sent', (select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)
                          from company_monthly_activity where company_id = p_company_id),
      'month', month,
      'sent_last_month_hours', (select coalesce(sum(submitted + sent + delivered + failed + rejected + expired), 0)
                                  from company_hourly_activity
                                 where company_id = p_company_id and hour >= span_start and hour < p_span_end),
      'audit', (select coalesce(json_agg(a order by a.created_at desc, a.id desc), '[]')
                  from (select id, action, entity, entity_id, user_name, by_platform_staff, details, created_at
                            from audit_logs
                         where company_id = p_company_id
                           and action <> all(array['LOGIN', 'LOGOUT']) and entity <> 'MESSAGE'
                         order by created_at desc, id desc limit p_recent) a),
      'messages', (select coalesce(json_agg(r order by r.created_at desc, r.id desc), '[]')
                     from (select m.id, m.direction, m.status, m.content, m.msisdn, m.recipient_count,
                                  s.name as service_name, m.created_at, m.updated_at
                             from (select * from messages where company_id = p_company_id
                                    order by created_at desc, id desc limit p_recent) m
                             left join services s on s.company_id = m.company_id and s.id = m.service_id) r),
      'company', (select row_to_json(c)
                    from (select name, plan, billing_status, package_name, package_expires_at,
                                 messages_limit, subscribers_limit, services_limit,
                                 (select messages_used from company_monthly_usage u
                                   where u.company_id = p_company_id and u.month = p_this_month) as messages_used
                            from companies where id = p_company_id) c))
      from (select count(*)::int as total, count(*) filter (where status = 'active')::int as active
              from services where company_id = p_company_id) sv,
           (select coalesce(sum(services_delta) filter (where day >= p_this_month), 0) as services_since,
                   coalesce(sum(active_services_delta) filter (where day >= p_this_month), 0) as active_services_since,
                   coalesce(sum(active_subscribers_delta) filter (where day >= p_this_month), 0) as active_subscribers_since,
                   coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                              filter (where day >= p_this_month), 0) as sent_this_month,
                   coalesce(sum(submitted + sent + delivered + failed + rejected + expired)
                              filter (where day < p_span_end_day), 0) as sent_last_month_days
              from company_daily_activity where company_id = p_company_id and day >= p_last_month) month);
end $function$;
revoke execute on function dashboard_figures(p_company_id bigint, p_this_month date, p_last_month date, p_span_end_day date, p_span_end timestamp with time zone, p_recent integer) from public;
