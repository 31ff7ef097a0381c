-- Provider settings per company (ADR 0007): companies.sms_provider stays the kind in use; each
-- kind a company has configured keeps its own row, so switching to the simulator and back does
-- not lose the Africa's Talking or SMPP settings. Non-secret settings are plain JSON (validated
-- per kind by packages/contracts/src/admin/company-provider.ts); the kind's one secret (Africa's
-- Talking API key, SMPP password) is AES-256-GCM with ENCRYPTION_KEY and never returned in full.
create table company_provider_settings (
  company_id bigint not null references companies (id) on delete cascade,
  kind text not null check (kind in ('simulator', 'africastalking', 'smpp')),
  settings jsonb not null default '{}' check (jsonb_typeof(settings) = 'object'),
  secret_encrypted text,
  updated_at timestamptz not null default now(),
  primary key (company_id, kind)
);

alter table company_provider_settings enable row level security, force row level security;
create policy tenant_isolation on company_provider_settings
  using (app_tenant_visible(company_id)) with check (app_tenant_visible(company_id));

-- Today's credentials are Africa's Talking's (spec section 3: apiKey, and apiSecret labelled
-- 'API Username'). The username is not a secret, but it is stored encrypted and SQL cannot decrypt
-- it: it moves as it is (legacyUsernameEncrypted), the server reads it through, and the next save
-- of those settings writes it in plain.
insert into company_provider_settings (company_id, kind, settings, secret_encrypted)
select id,
       'africastalking',
       jsonb_strip_nulls(jsonb_build_object('legacyUsernameEncrypted', api_secret_encrypted)),
       api_key_encrypted
  from companies
 where api_key_encrypted is not null or api_secret_encrypted is not null;

alter table companies drop column api_key_encrypted, drop column api_secret_encrypted;
