import { PROVIDER_MESSAGES } from '@sms/contracts/admin/company-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyScope, inTenantTransaction } from '../src/db/tenant-scope.ts';
import { decryptSecret, encryptSecret } from '../src/lib/crypto.ts';
import { loadProviderSettings } from '../src/messaging/providers/provider-settings.ts';
import { auditEntries, call, companyForm } from './support/admin-factories.ts';
import { createCompany, createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ctx = await createTestContext();
  const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
  token = (await signIn(ctx.app, user.email)).accessToken;
});
afterAll(() => ctx.close());

const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  call(ctx.app, token, method, url, payload);

const atProvider = (overrides: Record<string, unknown> = {}) => ({
  kind: 'africastalking',
  username: 'acme-sms',
  apiKey: 'atsk_live_0123456789abcdef',
  environment: 'sandbox',
  senderId: 'ACME',
  batchSize: 200,
  messagesPerSecond: 20,
  ...overrides,
});

const smppProvider = (overrides: Record<string, unknown> = {}) => ({
  kind: 'smpp',
  host: 'smsc.example.net',
  port: 2776,
  systemId: 'acme',
  password: 'pw123456',
  bindMode: 'transmitter_receiver',
  messagesPerSecond: 80,
  window: 25,
  ...overrides,
});

async function createWith(overrides: Record<string, unknown>) {
  const response = await api('POST', '/admin/companies', companyForm(overrides));
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data.company;
}

const storedRows = (companyId: number) =>
  ctx.ownerDb
    .selectFrom('company_provider_settings')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('kind')
    .execute();

const engineSettings = (companyId: number, boundTo = companyId) =>
  inTenantTransaction(ctx.db, companyScope(boundTo), (trx) =>
    loadProviderSettings(trx, companyId, ctx.deps.keys.encryption),
  );

describe('masked secrets', () => {
  it('shows the last four characters only of a secret of 12 or more; a shorter one is bullets only', async () => {
    const long = await createWith({ apiKey: 'abcdefgh6789' });
    expect(long.apiKey).toBe('••••••••6789');
    const short = await createWith({ apiKey: 'short-6789' });
    expect(short.apiKey).toBe('••••••••');
    const listed = (await api('GET', `/admin/companies?searchTerm=${encodeURIComponent(short.name)}`)).json()
      .data;
    expect(listed.companies[0].apiKey).toBe('••••••••');
    expect(JSON.stringify(listed)).not.toContain('6789');
  });

  it('keeps the stored key when PUT sends back the mask GET returned, or leaves the field out or blank', async () => {
    const company = await createWith({ apiKey: 'original-key-6789', apiSecret: 'acme-user' });
    const { apiKey: mask } = (
      await api('GET', `/admin/companies?searchTerm=${encodeURIComponent(company.name)}`)
    ).json().data.companies[0];
    expect(mask).toBe('••••••••6789');

    for (const apiKey of [mask, undefined, '', '••••••••']) {
      const saved = await api(
        'PUT',
        `/admin/companies/${company.id}`,
        companyForm({ name: company.name, apiKey }),
      );
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json().data.company).toMatchObject({ apiKey: '••••••••6789', apiSecret: 'acme-user' });
    }
    const [row] = await storedRows(company.id);
    expect(decryptSecret(row!.secret_encrypted!, ctx.deps.keys.encryption)).toBe('original-key-6789');
  });

  it('clears a secret and the username on null, replaces them on new text', async () => {
    const company = await createWith({ apiKey: 'original-key-6789', apiSecret: 'acme-user' });
    const replaced = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({ apiKey: 'replaced-key-4321' }),
    );
    expect(replaced.json().data.company.apiKey).toBe('••••••••4321');
    const cleared = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({ apiKey: null, apiSecret: null }),
    );
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json().data.company).toMatchObject({ apiKey: null, apiSecret: null });
    const [row] = await storedRows(company.id);
    expect(row!.secret_encrypted).toBeNull();
  });

  it('keeps a secret it cannot read (encrypted with another key), showing it as set', async () => {
    const company = await createCompany(ctx.ownerDb);
    const otherKey = Buffer.alloc(32, 7);
    const foreign = encryptSecret('written-elsewhere-1234', otherKey);
    await ctx.ownerDb
      .insertInto('company_provider_settings')
      .values({ company_id: company.id, kind: 'africastalking', settings: '{}', secret_encrypted: foreign })
      .execute();
    const saved = await api('PUT', `/admin/companies/${company.id}`, companyForm({ apiSecret: 'someone' }));
    expect(saved.json().data.company).toMatchObject({ apiKey: '••••••••', apiSecret: 'someone' });
    const [row] = await storedRows(company.id);
    expect(row!.secret_encrypted).toBe(foreign);
  });
});

describe('provider settings per kind', () => {
  it("stores Africa's Talking settings apart from its encrypted key, picks the kind, and feeds the engine", async () => {
    const company = await createWith({ provider: atProvider() });
    expect(company.provider).toEqual({
      kind: 'africastalking',
      username: 'acme-sms',
      apiKey: '••••••••cdef',
      environment: 'sandbox',
      baseUrl: null,
      senderId: 'ACME',
      batchSize: 200,
      messagesPerSecond: 20,
    });
    // The spec's fields are Africa's Talking's key and username.
    expect(company).toMatchObject({ apiKey: '••••••••cdef', apiSecret: 'acme-sms' });

    const [row] = await storedRows(company.id);
    expect(row).toMatchObject({ kind: 'africastalking' });
    expect(row!.settings).toEqual({
      username: 'acme-sms',
      environment: 'sandbox',
      baseUrl: null,
      senderId: 'ACME',
      batchSize: 200,
      messagesPerSecond: 20,
    });
    expect(JSON.stringify(row!.settings)).not.toContain('atsk_live');
    const stored = await ctx.ownerDb
      .selectFrom('companies')
      .select('sms_provider')
      .where('id', '=', company.id)
      .executeTakeFirstOrThrow();
    expect(stored.sms_provider).toBe('africastalking');

    expect(await engineSettings(company.id)).toEqual({
      kind: 'africastalking',
      username: 'acme-sms',
      apiKey: 'atsk_live_0123456789abcdef',
      environment: 'sandbox',
      baseUrl: null,
      senderId: 'ACME',
      batchSize: 200,
      messagesPerSecond: 20,
    });
  });

  it('stores SMPP settings with its password encrypted; the masked password saved back keeps it', async () => {
    const company = await createWith({ provider: smppProvider() });
    expect(company.provider).toEqual({
      kind: 'smpp',
      host: 'smsc.example.net',
      port: 2776,
      systemId: 'acme',
      password: '••••••••',
      systemType: null,
      bindMode: 'transmitter_receiver',
      // Matches receipts that give the id in hex or in decimal, unless the company says which.
      messageIdType: 'auto',
      messagesPerSecond: 80,
      window: 25,
      sourceTon: null,
      sourceNpi: null,
    });
    const saved = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({
        name: company.name,
        provider: smppProvider({ password: '••••••••', window: 50, messageIdType: 'hex_decimal' }),
      }),
    );
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data.company.provider).toMatchObject({
      window: 50,
      password: '••••••••',
      messageIdType: 'hex_decimal',
    });
    const refused = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({ name: company.name, provider: smppProvider({ messageIdType: 'octal' }) }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe('Message ID type must be auto, same, hex_decimal or decimal_hex');
    expect(await engineSettings(company.id)).toMatchObject({
      kind: 'smpp',
      password: 'pw123456',
      window: 50,
    });
  });

  it('switching kinds keeps the other kinds’ settings for later', async () => {
    const company = await createWith({ provider: smppProvider() });
    const simulator = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({
        provider: { kind: 'simulator', acceptanceRate: 0.9, failureRate: 0.1, deliveryDelayMs: 50 },
      }),
    );
    expect(simulator.json().data.company.provider).toEqual({
      kind: 'simulator',
      acceptanceRate: 0.9,
      failureRate: 0.1,
      deliveryDelayMs: 50,
      messagesPerSecond: null,
    });
    expect((await storedRows(company.id)).map((row) => row.kind)).toEqual(['simulator', 'smpp']);
    // Back to SMPP without retyping the password.
    const back = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({ provider: smppProvider({ password: undefined }) }),
    );
    expect(back.statusCode, back.body).toBe(200);
    expect(await engineSettings(company.id)).toMatchObject({ kind: 'smpp', password: 'pw123456' });
  });

  it('a company that configured nothing sends through the simulator with the platform defaults', async () => {
    const company = await createCompany(ctx.ownerDb);
    expect(await engineSettings(company.id)).toEqual({
      kind: 'simulator',
      acceptanceRate: null,
      failureRate: null,
      deliveryDelayMs: null,
      messagesPerSecond: null,
    });
  });

  it("another company's binding sees none of these settings (row-level security)", async () => {
    const company = await createWith({ provider: atProvider() });
    const other = await createCompany(ctx.ownerDb);
    expect(await engineSettings(company.id, other.id)).toMatchObject({ kind: 'simulator' });
    const visible = await inTenantTransaction(ctx.db, companyScope(other.id), (trx) =>
      trx.selectFrom('company_provider_settings').selectAll().execute(),
    );
    expect(visible).toEqual([]);
  });

  it('reads a username moved encrypted by migration 0007 and writes it in plain at the next save', async () => {
    const company = await createCompany(ctx.ownerDb);
    const key = ctx.deps.keys.encryption;
    await ctx.ownerDb
      .insertInto('company_provider_settings')
      .values({
        company_id: company.id,
        kind: 'africastalking',
        settings: JSON.stringify({ legacyUsernameEncrypted: encryptSecret('sandbox', key) }),
        secret_encrypted: encryptSecret('legacy-api-key-0042', key),
      })
      .execute();
    await ctx.ownerDb
      .updateTable('companies')
      .set({ sms_provider: 'africastalking' })
      .where('id', '=', company.id)
      .execute();

    expect(await engineSettings(company.id)).toMatchObject({
      username: 'sandbox',
      apiKey: 'legacy-api-key-0042',
      environment: 'sandbox',
    });
    const saved = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({ provider: atProvider({ username: 'sandbox', apiKey: undefined }) }),
    );
    expect(saved.statusCode, saved.body).toBe(200);
    const [row] = await storedRows(company.id);
    expect(row!.settings).toMatchObject({ username: 'sandbox' });
    expect(row!.settings).not.toHaveProperty('legacyUsernameEncrypted');
    expect(decryptSecret(row!.secret_encrypted!, key)).toBe('legacy-api-key-0042');
  });

  it('audits provider changes without their secrets', async () => {
    const company = await createWith({ provider: smppProvider({ password: 'topsecr8' }) });
    const [entry] = await auditEntries(ctx.ownerDb, {
      action: 'CREATE',
      entity: 'COMPANY',
      entityId: company.id,
    });
    expect(entry!.details).toMatchObject({
      provider: { kind: 'smpp', host: 'smsc.example.net', systemId: 'acme' },
      providerSecretChanged: true,
    });
    expect(JSON.stringify(entry!.details)).not.toContain('topsecr8');
  });
});

describe('provider settings validation', () => {
  it.each([
    [{ provider: { kind: 'carrier-pigeon' } }, 'Provider kind must be simulator, africastalking or smpp'],
    [{ provider: atProvider({ username: '' }) }, PROVIDER_MESSAGES.atUsernameRequired],
    [{ provider: atProvider({ apiKey: undefined }) }, PROVIDER_MESSAGES.atApiKeyRequired],
    [{ provider: atProvider({ environment: 'custom' }) }, PROVIDER_MESSAGES.atBaseUrlRequired],
    [
      { provider: atProvider({ environment: 'custom', baseUrl: 'ftp://x' }) },
      PROVIDER_MESSAGES.baseUrlInvalid,
    ],
    [{ provider: atProvider({ batchSize: 0 }) }, 'Batch size must be at least 1'],
    [{ provider: atProvider({ messagesPerSecond: 2.5 }) }, 'Messages per second must be a whole number'],
    [{ provider: smppProvider({ host: 'smpp://smsc:2775' }) }, PROVIDER_MESSAGES.smppHostInvalid],
    [{ provider: smppProvider({ port: 70000 }) }, 'Port must be at most 65535'],
    [
      { provider: smppProvider({ systemId: 'a-system-id-too-long' }) },
      'System ID must be 15 characters or less',
    ],
    [
      { provider: smppProvider({ bindMode: 'receiver' }) },
      'Bind mode must be transceiver or transmitter_receiver',
    ],
    [{ provider: smppProvider({ window: 1001 }) }, 'Window must be at most 1000'],
    [{ provider: smppProvider({ sourceTon: 7 }) }, 'Source TON must be at most 6'],
    [
      { provider: smppProvider({ messagesPerSecond: 100_001 }) },
      'Messages per second must be at most 100000',
    ],
    [{ provider: smppProvider({ password: 'nine-char' }) }, PROVIDER_MESSAGES.smppPasswordTooLong],
    [{ provider: atProvider({ senderId: 'ACMEBANKING1' }) }, PROVIDER_MESSAGES.senderTooLong],
    [{ provider: { kind: 'simulator', acceptanceRate: 1.5 } }, PROVIDER_MESSAGES.rate],
  ])('refuses %o with "%s" and stores nothing', async (overrides, message) => {
    const form = companyForm(overrides);
    const response = await api('POST', '/admin/companies', form);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, message });
    const created = await ctx.ownerDb
      .selectFrom('companies')
      .select('id')
      .where('name', '=', form.name)
      .executeTakeFirst();
    expect(created).toBeUndefined();
  });

  it("keeps a company's SMPP source TON/NPI, and blank for the defaults by sender", async () => {
    const company = await createWith({ provider: smppProvider({ sourceTon: 0, sourceNpi: 9 }) });
    expect(company.provider).toMatchObject({ sourceTon: 0, sourceNpi: 9 });
    expect(await engineSettings(company.id)).toMatchObject({ sourceTon: 0, sourceNpi: 9 });
    const saved = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({ provider: smppProvider() }),
    );
    expect(saved.json().data.company.provider).toMatchObject({ sourceTon: null, sourceNpi: null });
  });

  it('accepts the largest SMPP pace real SMSCs offer: 100,000 a second, a window of 1,000', async () => {
    const company = await createWith({
      provider: smppProvider({ messagesPerSecond: 100_000, window: 1_000, password: '12345678' }),
    });
    expect(company.provider).toMatchObject({ messagesPerSecond: 100_000, window: 1_000 });
  });

  it('accepts a custom base URL for Africa’s Talking and an existing key on edit', async () => {
    const company = await createWith({ apiKey: 'kept-for-later-0001' });
    const saved = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({
        provider: atProvider({ apiKey: '', environment: 'custom', baseUrl: 'http://127.0.0.1:9/at' }),
      }),
    );
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().data.company.provider).toMatchObject({
      environment: 'custom',
      baseUrl: 'http://127.0.0.1:9/at',
      apiKey: '••••••••0001',
    });
  });
});
