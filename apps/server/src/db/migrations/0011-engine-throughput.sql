-- Engine throughput (docs/decisions/0011-engine-throughput.md).

-- Row-level security evaluated once per statement, not once per row. Policies called
-- app_tenant_visible(company_id): an inlined expression of two current_setting() calls that
-- PostgreSQL evaluated for every row read and every row written (WITH CHECK). That doubled the
-- cost of writing a million recipients. Scalar subqueries are computed once per statement (an
-- InitPlan), so each policy now compares with the statement's own binding. Same meaning. New
-- tenant tables write their policy the same way:
--   using ((select app_platform_scope()) or company_id = (select app_company_id())) with check (...)
create function app_company_id() returns bigint
  language sql stable parallel safe as $$
  select nullif(current_setting('app.company_id', true), '')::bigint
$$;
grant execute on function app_company_id() to sms_app;

do $$
declare
  policy record;
  rewritten_using text;
  rewritten_check text;
begin
  for policy in
    select p.schemaname, p.tablename, p.policyname, p.qual, p.with_check
      from pg_policies p
     where p.schemaname = 'public'
       -- The parent's policy is what the application reaches; partitions keep theirs.
       and p.tablename !~ '^delivery_reports_y[0-9]{4}m[0-9]{2}$'
       and (p.qual ~ 'app_tenant_visible|app_platform_scope' or p.with_check ~ 'app_tenant_visible|app_platform_scope')
  loop
    rewritten_using := regexp_replace(
      regexp_replace(policy.qual, 'app_tenant_visible\((\w+)\)', '((select app_platform_scope()) or \1 = (select app_company_id()))', 'g'),
      '(?<!select )app_platform_scope\(\)', '(select app_platform_scope())', 'g');
    rewritten_check := regexp_replace(
      regexp_replace(policy.with_check, 'app_tenant_visible\((\w+)\)', '((select app_platform_scope()) or \1 = (select app_company_id()))', 'g'),
      '(?<!select )app_platform_scope\(\)', '(select app_platform_scope())', 'g');
    execute format('alter policy %I on %I.%I%s%s', policy.policyname, policy.schemaname, policy.tablename,
                   case when rewritten_using is not null then format(' using (%s)', rewritten_using) else '' end,
                   case when rewritten_check is not null then format(' with check (%s)', rewritten_check) else '' end);
  end loop;
end $$;

-- One recipient per phone number per message is the fan-out's own guarantee: it takes each
-- subscriber once (DISTINCT ON across the services), a subscriber's number is unique in its
-- company, and the checkpoint moves in the same transaction as the rows. The unique index
-- repeated that check on every row written (a third index, and ON CONFLICT's speculative insertion).
drop index delivery_reports_message_phone_key;
