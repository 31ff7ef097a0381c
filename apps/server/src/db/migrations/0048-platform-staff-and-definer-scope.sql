-- Security hardening (the issue's item 11): platform staff's names kept from company users' Recent
-- Activity, and every SECURITY DEFINER function checking the binding itself.

-- An audit entry written by platform staff (a system admin, who has no company) about a company's
-- data. Company users' Recent Activity names no platform staff ("A platform administrator"); the
-- audit log, a system admin's page, keeps the name. Recorded when the entry is written
-- (modules/audit/record-audit.ts): a name or a role read later would have changed or gone.
alter table audit_logs add column by_platform_staff boolean not null default false;
update audit_logs a set by_platform_staff = true
  from users u
 where u.id = a.user_id and u.company_id is null and a.company_id is not null;

-- 0027's dashboard_figures, its audit entries carrying by_platform_staff.
create or replace function dashboard_figures(
  p_company_id bigint,
  p_this_month date,
  p_last_month date,
  p_span_end_day date,
  p_span_end timestamptz,
  p_recent integer
) returns json
  language plpgsql stable
  set plan_cache_mode = force_generic_plan
  set search_path = public, pg_temp as $$
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
end $$;

-- True when the transaction's binding may read this company's rows: the platform scope, or the
-- company it is bound to. Unbound, or bound to another company: false (never null).
create function app_may_read_company(p_company_id bigint) returns boolean
  language sql stable parallel safe as $$
  select coalesce(app_platform_scope() or p_company_id = app_company_id(), false)
$$;

-- A SECURITY DEFINER function runs as the owner, past row-level security, so it checks the company
-- it is asked about against the binding itself. search_message_ids, message_search_matches,
-- message_search_recent and count_message_matches hold the binding's condition in each statement
-- they run; these two did not:
-- message_search_word_start_ids read any company's word index (the ids of another company's
-- messages, for a caller bound to one company): now none for a company the binding may not read.
create or replace function message_search_word_start_ids(p_company_id bigint, p_pattern text)
  returns bigint[]
  language plpgsql stable security definer
  set search_path = public, pg_temp
  set plan_cache_mode = force_generic_plan as $$
declare
  word_start text := search_word_start(p_pattern);
  -- The words beginning with word_start, in byte order ("C"): from it up to the string after its
  -- last character (a letter or digit, so the next character is one byte on).
  word_after text := left(word_start, -1) || chr(ascii(right(word_start, 1)) + 1);
  entries integer;
  candidates bigint[];
begin
  if not app_may_read_company(p_company_id) then
    return '{}';
  end if;
  if p_company_id is null or word_start is null or p_pattern ~ '^%\+?[0-9]+%$' then
    return null;
  end if;
  select count(*)::int, array_agg(distinct w.message_id) into entries, candidates
    from (select w.message_id from message_search_words w
           where w.company_id = p_company_id and w.word >= word_start and w.word < word_after
           limit 257) w;
  if entries > 256 then
    return null;
  end if;
  return coalesce(candidates, '{}');
end $$;

-- message_search_word_page's check ("not (platform or company = app_company_id())") was null, so
-- passed, for an unbound transaction.
create or replace function message_search_word_page(p_company_id bigint, p_word text, p_limit integer)
  returns table (company_id bigint, message_id bigint, created_at timestamptz)
  language plpgsql stable security definer
  set search_path = public, pg_temp
  set plan_cache_mode = force_generic_plan as $$
declare
  platform boolean := coalesce(app_platform_scope(), false);
  company bigint := coalesce(p_company_id, case when not platform then app_company_id() end);
  pattern text := '%' || p_word || '%';
  words text[];
begin
  if company is null or p_word is null or p_word !~ '^[a-z0-9]{2,40}$' or p_word !~ '[a-z]'
     or p_limit is null or p_limit < 1
     or not app_may_read_company(company) then
    return;
  end if;
  if exists (select 1 from message_search_vocabulary v where v.company_id = company and length(v.word) >= 40) then
    return;
  end if;
  select array_agg(v.word) into words
    from (select v.word from message_search_vocabulary v
           where v.company_id = company and v.word like pattern limit 17) v;
  if words is null or cardinality(words) > 16 then
    return;
  end if;
  return query
    select k.company_id, k.message_id, k.created_at
      from (select distinct w.company_id, w.message_id, w.created_at
              from unnest(words) x(word)
              cross join lateral (select w.company_id, w.message_id, w.created_at from message_search_words w
                                   where w.company_id = company and w.word = x.word
                                   order by w.created_at desc, w.message_id desc limit p_limit) w) k
     order by k.created_at desc, k.message_id desc limit p_limit;
end $$;

-- Drops any company's recipients: the engine's maintenance, in the platform scope only.
create or replace function drop_delivery_report_partitions_before(cutoff timestamptz)
  returns setof text
  language plpgsql security definer set search_path = public, pg_temp as $$
declare
  keep_from date := least(date_trunc('month', cutoff at time zone 'UTC'), date_trunc('month', now() at time zone 'UTC'))::date;
  child record;
begin
  if not app_platform_scope() then
    raise exception 'recipient partitions are dropped in the platform scope only'
      using errcode = 'insufficient_privilege';
  end if;
  for child in
    select c.relname
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where (i.inhparent = 'delivery_reports'::regclass
            and c.relname ~ '^delivery_reports_y[0-9]{4}m[0-9]{2}$'
            and to_date(substr(c.relname, 19, 4) || substr(c.relname, 24, 2), 'YYYYMM') < keep_from)
        or (i.inhparent = 'recipient_gateway_ids'::regclass
            and c.relname ~ '^recipient_gateway_ids_y[0-9]{4}m[0-9]{2}$'
            and to_date(substr(c.relname, 24, 4) || substr(c.relname, 29, 2), 'YYYYMM') < keep_from)
     order by c.relname
  loop
    execute format('drop table %I', child.relname);
    return next child.relname;
  end loop;
end $$;
