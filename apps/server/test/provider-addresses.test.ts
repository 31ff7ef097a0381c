import { PROVIDER_MESSAGES } from '@sms/contracts/admin/company-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import {
  canonicalHost,
  createPublicAddressPolicy,
  isPublicAddress,
  type Resolve,
} from '../src/lib/public-address.ts';
import { call, companyForm } from './support/admin-factories.ts';
import { createUser, signIn } from './support/factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * A company's provider settings cannot point the server at itself or its networks: the Africa's
 * Talking base URL and the SMPP host are refused at save time (400) when they name a private,
 * loopback, link-local or unique-local address, or carry credentials, unless the operator listed
 * the host in PROVIDER_ALLOWED_PRIVATE_HOSTS. (The adapters check again as they connect: their tests.)
 */
let ctx: TestContext;
let token: string;
beforeAll(async () => {
  ctx = await createTestContext({ PROVIDER_ALLOWED_PRIVATE_HOSTS: 'smsc.on-premises.test, 10.20.30.40' });
  const user = await createUser(ctx.ownerDb, { role: 'system_admin' });
  token = (await signIn(ctx.app, user.email)).accessToken;
});
afterAll(() => ctx.close());

const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  call(ctx.app, token, method, url, payload);

const customBaseUrl = (baseUrl: string) => ({
  provider: {
    kind: 'africastalking',
    username: 'acme-sms',
    apiKey: 'atsk_live_0123456789abcdef',
    environment: 'custom',
    baseUrl,
  },
});
const smppHost = (host: string) => ({
  provider: { kind: 'smpp', host, port: 2775, systemId: 'acme', password: 'pw123456' },
});

async function expectRefused(form: Record<string, unknown>, message: string) {
  const response = await api('POST', '/admin/companies', form);
  expect(response.statusCode, response.body).toBe(400);
  expect(response.json()).toMatchObject({ success: false, message, error: 'validation_failed' });
  const created = await ctx.ownerDb
    .selectFrom('companies')
    .select('id')
    .where('name', '=', form.name as string)
    .executeTakeFirst();
  expect(created).toBeUndefined();
}

describe("saving an Africa's Talking base URL", () => {
  it.each([
    'http://127.0.0.1:9/at',
    'http://2130706433/',
    'http://0x7f.1:8080/',
    'http://127.1/',
    'http://[::1]:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.100.100.200/',
    'http://10.0.0.8/',
    'http://172.16.5.4/',
    'https://192.168.1.20/',
    'http://[fd12:3456::1]/',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://localhost:3000/',
    'http://api.LOCALHOST./',
  ])('refuses %s', async (baseUrl) => {
    await expectRefused(companyForm(customBaseUrl(baseUrl)), PROVIDER_MESSAGES.baseUrlNotPublic);
  });

  it('refuses credentials in the URL', async () => {
    for (const baseUrl of ['https://user:pw@api.example.com', 'https://user@api.example.com'])
      await expectRefused(companyForm(customBaseUrl(baseUrl)), PROVIDER_MESSAGES.baseUrlCredentials);
  });

  it('takes a public address, a listed private one, and a name it cannot resolve now', async () => {
    for (const baseUrl of [
      'https://203.0.113.10/',
      'http://10.20.30.40:8080/at',
      'https://at.unresolved.test',
    ]) {
      const response = await api('POST', '/admin/companies', companyForm(customBaseUrl(baseUrl)));
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().data.company.provider).toMatchObject({ baseUrl });
    }
  });

  it('leaves a company it refuses to update as it was', async () => {
    const created = await api(
      'POST',
      '/admin/companies',
      companyForm(customBaseUrl('https://203.0.113.10/')),
    );
    const company = created.json().data.company;
    const refused = await api(
      'PUT',
      `/admin/companies/${company.id}`,
      companyForm({ name: company.name, ...customBaseUrl('http://169.254.169.254/') }),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe(PROVIDER_MESSAGES.baseUrlNotPublic);
    const row = await ctx.ownerDb
      .selectFrom('company_provider_settings')
      .select('settings')
      .where('company_id', '=', company.id)
      .where('kind', '=', 'africastalking')
      .executeTakeFirstOrThrow();
    expect(row.settings).toMatchObject({ baseUrl: 'https://203.0.113.10/' });
  });
});

describe('saving an SMPP host', () => {
  it.each(['127.0.0.1', 'localhost', '::1', '[::1]', '2130706433', '169.254.169.254', '10.1.1.1', 'fc00::1'])(
    'refuses %s',
    async (host) => {
      await expectRefused(companyForm(smppHost(host)), PROVIDER_MESSAGES.smppHostNotPublic);
    },
  );

  it('refuses what passes for a host name but is no host, such as an IPv4 address out of range', async () => {
    await expectRefused(companyForm(smppHost('999.1.1.1')), PROVIDER_MESSAGES.smppHostInvalid);
  });

  it('takes a public address and the hosts the operator listed', async () => {
    for (const host of ['203.0.113.7', 'smsc.on-premises.test', '10.20.30.40']) {
      const response = await api('POST', '/admin/companies', companyForm(smppHost(host)));
      expect(response.statusCode, response.body).toBe(201);
    }
  });
});

describe('PROVIDER_ALLOWED_PRIVATE_HOSTS', () => {
  it('reads host names and addresses separated by commas, and stops start-up on anything else', () => {
    expect(
      loadConfig({ PROVIDER_ALLOWED_PRIVATE_HOSTS: ' smsc.local , 10.0.0.5,,::1 ' }).messaging,
    ).toMatchObject({ providerAllowedPrivateHosts: ['smsc.local', '10.0.0.5', '::1'] });
    expect(loadConfig({}).messaging.providerAllowedPrivateHosts).toEqual([]);
    expect(() => loadConfig({ PROVIDER_ALLOWED_PRIVATE_HOSTS: 'smsc.local, http://x/y' })).toThrow(
      /PROVIDER_ALLOWED_PRIVATE_HOSTS/,
    );
  });
});

describe('the address check', () => {
  it.each([
    ['8.8.8.8', true],
    ['203.0.113.10', true],
    ['2001:4860:4860::8888', true],
    ['64:ff9b::808:808', true], // NAT64 of a public address
    ['127.0.0.1', false],
    ['127.255.0.1', false],
    ['0.0.0.0', false],
    ['10.9.8.7', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['172.31.255.255', false],
    ['192.168.0.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['64:ff9b::7f00:1', false], // NAT64 of loopback
    ['fc00::1', false],
    ['fdff:ffff::1', false],
    ['fe80::1%eth0', false],
    ['ff02::1', false],
    ['not-an-address', false],
  ])('says %s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('reads hosts as a URL does: numeric IPv4 forms, case, brackets, a trailing dot', () => {
    expect(canonicalHost('2130706433')).toBe('127.0.0.1');
    expect(canonicalHost('0x7f.1')).toBe('127.0.0.1');
    expect(canonicalHost('017700000001')).toBe('127.0.0.1');
    expect(canonicalHost('[0:0:0:0:0:ffff:7f00:1]')).toBe('::ffff:7f00:1');
    expect(canonicalHost('SMSC.Example.NET.')).toBe('smsc.example.net');
    expect(canonicalHost('a b')).toBeNull();
    expect(canonicalHost('user@host')).toBeNull();
  });

  // DNS is outside the system: a resolver stands in for it.
  const resolver =
    (table: Record<string, string[]>): Resolve =>
    async (host) => {
      const addresses = table[host];
      if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };

  it('refuses a name when ANY address it resolves to is not public, unless that address or the name is listed', async () => {
    const table = {
      'public.test': ['93.184.216.34', '2606:2800:220:1::1'],
      'mixed.test': ['93.184.216.34', '10.0.0.7'],
      'mapped.test': ['::ffff:169.254.169.254'],
      'smsc.lan': ['192.168.4.4'],
    };
    const policy = createPublicAddressPolicy([], resolver(table));
    expect(await policy.check('public.test')).toBeNull();
    expect(await policy.check('mixed.test')).not.toBeNull();
    expect(await policy.check('mapped.test')).not.toBeNull();
    expect(await policy.check('smsc.lan')).not.toBeNull();
    expect(await policy.check('nowhere.test')).toBeNull(); // checked again when connecting

    expect(await createPublicAddressPolicy(['smsc.lan'], resolver(table)).check('smsc.lan')).toBeNull();
    expect(await createPublicAddressPolicy(['10.0.0.7'], resolver(table)).check('mixed.test')).toBeNull();
    expect(await createPublicAddressPolicy(['10.0.0.8'], resolver(table)).check('mixed.test')).not.toBeNull();
  });
});
