-- The tenant wall: who sees which row. The application binds each transaction to a scope
-- (db/tenant-scope.ts): a company (app.company_id) or the platform (app.platform = 'on': system
-- admins, sign-in before the company is known, the engine's dispatch across companies, migrations).
-- Unbound work sees nothing (fail closed); the platform scope is the explicit way across tenants,
-- never the absence of a binding.
--
-- The policies compare each row with (select app_platform_scope()) and (select app_company_id()):
-- scalar subqueries, computed once per statement (an InitPlan), not once per row read and written
-- (a per-row call doubled the cost of writing a million recipients).
--
-- app_platform_scope is written "<> ''" rather than "= 'on'" on purpose: bindScope sets 'on' or ''
-- (unset reads as null), so both mean the same, but the planner cannot read the setting when it
-- plans and guesses an unknown "=" true for 0.5% of rows and an unknown "<>" for 99.5%. With "="
-- every estimate on a policed table shrank 200-fold and set-based statements (imports, fan-out)
-- turned into nested loops over thousands of rows.
create or replace function app_platform_scope()
 returns boolean
 language sql
 stable parallel safe
as $function$
  select coalesce(current_setting('app.platform', true) <> '', false)
$function$;

create or replace function app_company_id()
 returns bigint
 language sql
 stable parallel safe
as $function$
  select nullif(current_setting('app.company_id', true), '')::bigint
$function$;

-- The policies. A tenant table's rows are seen and written by the platform scope or by the company
-- the transaction is bound to (db/tenant-scope.ts). Each policy compares with the statement's own
-- binding through scalar subqueries (computed once per statement, an InitPlan), not once per row.
-- Month partitions of delivery_reports and recipient_gateway_ids get theirs when the engine creates
-- them (ensure_delivery_report_partition, 30-engine-partitions.sql).
do $$
declare
  tenant_table text;
begin
  foreach tenant_table in array array[
    'users', 'company_callback_tokens', 'services', 'subscribers', 'subscriptions', 'messages',
    'company_subscriber_counts', 'delivery_reports', 'message_sends', 'message_delivery_counts',
    'company_monthly_usage', 'company_send_windows', 'idempotency_keys', 'unmatched_delivery_reports',
    'company_provider_settings', 'company_hourly_activity', 'company_monthly_activity',
    'company_daily_activity', 'message_search_words', 'message_search_text', 'message_status_counts',
    'recipient_gateway_ids', 'delivery_report_inbox', 'message_search_vocabulary', 'api_keys',
    'company_provider_health', 'hand_over_claims', 'webhook_endpoints', 'webhook_events',
    'webhook_deliveries', 'message_templates'
  ] loop
    execute format('drop policy if exists tenant_isolation on %I', tenant_table);
    execute format(
      'create policy tenant_isolation on %I
         using ((select app_platform_scope()) or company_id = (select app_company_id()))
         with check ((select app_platform_scope()) or company_id = (select app_company_id()))',
      tenant_table);
  end loop;
end $$;

-- A company scope reads and updates its own company; only the platform creates or deletes one.
drop policy if exists company_create on companies;
create policy company_create on companies for insert
  with check ((select app_platform_scope()));
drop policy if exists company_delete on companies;
create policy company_delete on companies for delete
  using ((select app_platform_scope()));
drop policy if exists company_read on companies;
create policy company_read on companies for select
  using ((select app_platform_scope()) or id = (select app_company_id()));
drop policy if exists company_update on companies;
create policy company_update on companies for update
  using ((select app_platform_scope()) or id = (select app_company_id()))
  with check ((select app_platform_scope()) or id = (select app_company_id()));

-- The audit trail is append-only for a company; only the platform may change or delete entries.
drop policy if exists audit_append on audit_logs;
create policy audit_append on audit_logs for insert
  with check ((select app_platform_scope()) or company_id = (select app_company_id()));
drop policy if exists audit_read on audit_logs;
create policy audit_read on audit_logs for select
  using ((select app_platform_scope()) or company_id = (select app_company_id()));
drop policy if exists audit_platform_update on audit_logs;
create policy audit_platform_update on audit_logs for update
  using ((select app_platform_scope()))
  with check ((select app_platform_scope()));
drop policy if exists audit_platform_delete on audit_logs;
create policy audit_platform_delete on audit_logs for delete
  using ((select app_platform_scope()));
