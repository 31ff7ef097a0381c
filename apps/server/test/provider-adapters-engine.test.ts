import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderSettings } from '../src/messaging/providers/provider-settings.ts';
import { writeProviderSettings } from '../src/modules/admin/companies.repository.ts';
import { startFakeAfricasTalking } from './support/fake-africastalking.ts';
import { startFakeSmsc } from './support/fake-smsc.ts';
import {
  createSendingCompany,
  ENCRYPTION_KEY,
  messageRow,
  numbers,
  recipientsOf,
  signInSystemAdmin,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

/**
 * The company's stored provider settings pick and configure its provider: sends go through the
 * real worker and the default registry to local fakes of Africa's Talking and an SMSC.
 */
let ctx: TestContext;
let systemAdmin: Record<string, string>;
const atCredentials = { apiKey: 'atsk_engine_0123456789', username: 'engine-co' };
let at: Awaited<ReturnType<typeof startFakeAfricasTalking>>;
const smscCredentials = { systemId: 'engine', password: 'pw-smpp' };
let smsc: Awaited<ReturnType<typeof startFakeSmsc>>;

beforeAll(async () => {
  ctx = await createTestContext({ SEND_MAX_ATTEMPTS: '50' });
  at = await startFakeAfricasTalking(atCredentials);
  smsc = await startFakeSmsc(smscCredentials);
  systemAdmin = await signInSystemAdmin(ctx);
  await startWorker(ctx);
});
afterAll(async () => {
  await ctx?.close();
  await at?.close();
  await smsc?.close();
});

async function configure(companyId: number, name: string, provider: Record<string, unknown>) {
  const response = await ctx.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/companies/${companyId}`,
    headers: systemAdmin,
    payload: { name, email: `c${companyId}@co.test`, phoneNumber: '+254700', address: 'Road', provider },
  });
  expect(response.statusCode, response.body).toBe(200);
}

async function sendTo(
  tenant: Awaited<ReturnType<typeof createSendingCompany>>,
  msisdns: string[],
  message: string,
) {
  const service = await tenant.service();
  await subscribe(ctx.ownerDb, service, msisdns);
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/messages/bulk/send',
    headers: tenant.admin,
    payload: { serviceIds: [service.id], message },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().data.message.id as number;
}

/** The message's recipients once each of the `count` has had its first hand-over attempt. */
const firstAttempts = (messageId: number, count: number) =>
  waitFor(
    () => recipientsOf(ctx.ownerDb, messageId),
    // Offered and its outcome recorded: final, or pending with the provider's reason (an outage or
    // flow control gives its attempt back, so the attempts may read 0).
    (rows) =>
      rows.length === count && rows.every((row) => row.status !== 'pending' || row.error_message !== null),
    { what: 'a first attempt' },
  );

describe("a company on Africa's Talking", () => {
  it('hands its recipients to the configured API with its credentials; reports to its DLR URL complete them', async () => {
    const tenant = await createSendingCompany(ctx);
    await configure(tenant.company.id, tenant.company.name, {
      kind: 'africastalking',
      ...atCredentials,
      environment: 'custom',
      baseUrl: at.baseUrl,
      batchSize: 2,
      messagesPerSecond: 100,
    });
    const msisdns = numbers(31, 0, 3);
    at.answers.set(msisdns[2]!, { statusCode: 403, status: 'InvalidPhoneNumber' });
    const messageId = await sendTo(tenant, msisdns, 'Through Africa’s Talking');

    const recipients = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.length === 3 && rows.every((row) => row.status !== 'pending'),
      { what: 'every recipient handed over' },
    );
    const byPhone = Object.fromEntries(recipients.map((row) => [row.recipient_phone, row]));
    expect(byPhone[msisdns[0]!]).toMatchObject({
      status: 'submitted',
      gateway_message_id: expect.stringMatching(/^ATXid_/),
    });
    expect(byPhone[msisdns[2]!]).toMatchObject({ status: 'rejected', error_message: 'InvalidPhoneNumber' });
    const requests = at.requests.filter((r) => r.form.message === 'Through Africa’s Talking');
    expect(requests.length).toBeGreaterThanOrEqual(2); // batch size 2
    for (const request of requests) {
      expect(request.headers.apikey).toBe(atCredentials.apiKey);
      expect(request.form.username).toBe(atCredentials.username);
    }

    const delivered = await ctx.app.inject({
      method: 'POST',
      url: `/api/v1/callbacks/dlr/${tenant.company.id}/${tenant.tokens.dlr}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        id: byPhone[msisdns[0]!]!.gateway_message_id!,
        status: 'Success',
        phoneNumber: msisdns[0]!,
        networkCode: '63902',
      }).toString(),
    });
    expect(delivered.statusCode).toBe(200);
    await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.find((row) => row.recipient_phone === msisdns[0])?.status === 'delivered',
      { what: 'the delivery report applied' },
    );
  });

  it('holds recipients back with the credential error when the stored key is refused', async () => {
    const tenant = await createSendingCompany(ctx);
    await configure(tenant.company.id, tenant.company.name, {
      kind: 'africastalking',
      username: atCredentials.username,
      apiKey: 'atsk_wrong_key_000000',
      environment: 'custom',
      baseUrl: at.baseUrl,
    });
    const messageId = await sendTo(tenant, numbers(32, 0, 2), 'Wrong key');
    const recipients = await firstAttempts(messageId, 2);
    for (const row of recipients) {
      expect(row.status).toBe('pending');
      expect(row.error_message).toContain("Africa's Talking refused the credentials (HTTP 401");
    }
  });
});

describe('changing the provider', () => {
  it('applies to the next send at once, without waiting for the registry to read settings again', async () => {
    const tenant = await createSendingCompany(ctx);
    const first = await sendTo(tenant, numbers(34, 0, 1), 'Through the simulator');
    await waitFor(
      () => recipientsOf(ctx.ownerDb, first),
      (rows) => rows.length === 1 && rows[0]!.gateway_message_id?.startsWith('SIM-') === true,
      { what: 'the simulator hand-over' },
    );
    await configure(tenant.company.id, tenant.company.name, {
      kind: 'africastalking',
      ...atCredentials,
      environment: 'custom',
      baseUrl: at.baseUrl,
    });
    const second = await sendTo(tenant, numbers(34, 1, 1), 'Now through Africa’s Talking');
    const [row] = await waitFor(
      () => recipientsOf(ctx.ownerDb, second),
      (rows) => rows.length === 1 && rows[0]!.status !== 'pending',
      { what: "the Africa's Talking hand-over" },
    );
    expect(row!.gateway_message_id).toMatch(/^ATXid_/);
  });
});

describe('a company on SMPP', () => {
  it('binds with its stored system id and password; deliver_sm receipts deliver its recipients', async () => {
    const tenant = await createSendingCompany(ctx);
    smsc.setPlan(() => ({ receipt: 'DELIVRD' }));
    await configure(tenant.company.id, tenant.company.name, {
      kind: 'smpp',
      host: smsc.host,
      port: smsc.port,
      ...smscCredentials,
      bindMode: 'transceiver',
      window: 5,
      messagesPerSecond: 100,
    });
    const msisdns = numbers(33, 0, 4);
    const messageId = await sendTo(tenant, msisdns, 'Through the SMSC');

    const recipients = await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.length === 4 && rows.every((row) => row.status === 'delivered'),
      { what: 'every receipt applied' },
    );
    expect(recipients.every((row) => row.gateway_message_id?.startsWith('SMSC'))).toBe(true);
    const message = await waitFor(
      () => messageRow(ctx.ownerDb, messageId),
      (row) => row?.status === 'delivered',
      { what: 'the message delivered' },
    );
    expect(message?.recipient_count).toBe(4);
    expect(smsc.binds).toContain('bind_transceiver');
    const submits = smsc.submits.filter((pdu) => msisdns.includes(`+${pdu.destination_addr}`));
    expect(submits).toHaveLength(4);
    expect(submits.every((pdu) => pdu.data_coding === 0 && pdu.registered_delivery === 1)).toBe(true);
  });
});

describe('what a provider may write where the company reads it', () => {
  it("keeps an answer's body out of the recipients' error: the status and its standard words only", async () => {
    const tenant = await createSendingCompany(ctx);
    await configure(tenant.company.id, tenant.company.name, {
      kind: 'africastalking',
      ...atCredentials,
      environment: 'custom',
      baseUrl: at.baseUrl,
    });
    const secret = 'root:x:0:0:root:/root:/bin/bash SECRET_TOKEN=abc123';
    at.setOverride((res) => res.writeHead(502, { 'Content-Type': 'text/plain' }).end(secret));
    try {
      const messageId = await sendTo(tenant, numbers(35, 0, 2), 'Into a broken gateway');
      const recipients = await firstAttempts(messageId, 2);
      for (const row of recipients) {
        expect(row.status).toBe('pending');
        expect(row.error_message).toBe("Africa's Talking answered HTTP 502 Bad Gateway");
      }
    } finally {
      at.setOverride(null);
    }
  });
});

describe('settings stored before addresses were checked', () => {
  /** Writes the settings straight to the table, as an older version could have saved them. */
  async function storeDirectly(companyId: number, settings: ProviderSettings, secret: string) {
    await writeProviderSettings(
      ctx.ownerDb,
      companyId,
      settings,
      { action: 'set', value: secret },
      ENCRYPTION_KEY,
    );
    await ctx.ownerDb
      .updateTable('companies')
      .set({ sms_provider: settings.kind })
      .where('id', '=', companyId)
      .execute();
  }

  it.each([
    [
      "an Africa's Talking base URL at the metadata address",
      {
        kind: 'africastalking',
        username: atCredentials.username,
        apiKey: null,
        environment: 'custom',
        baseUrl: 'http://169.254.169.254/latest',
        senderId: null,
        batchSize: 100,
        messagesPerSecond: 100,
      },
      atCredentials.apiKey,
      "Africa's Talking base URL refused: it points at a private, loopback or link-local address",
    ],
    [
      'an SMPP host on loopback, in IPv6',
      {
        kind: 'smpp',
        host: '::1',
        port: 2775,
        systemId: smscCredentials.systemId,
        password: null,
        systemType: null,
        bindMode: 'transceiver',
        messagesPerSecond: 100,
        window: 5,
      },
      smscCredentials.password,
      'not bound to the SMSC: the SMSC host is refused: it points at a private, loopback or link-local address',
    ],
  ] as const)(
    '%s: every attempt fails with the refusal, for all recipients, and nothing is sent',
    async (_name, settings, secret, reason) => {
      const tenant = await createSendingCompany(ctx);
      await storeDirectly(tenant.company.id, settings as ProviderSettings, secret);
      const msisdns = numbers(36, settings.kind === 'smpp' ? 10 : 0, 3);
      const messageId = await sendTo(tenant, msisdns, 'Towards the inside');
      const recipients = await firstAttempts(messageId, 3);
      for (const row of recipients) {
        // Held back like any other connection failure: offered again, never burned by it sooner.
        expect(row.status).toBe('pending');
        expect(row.error_message).toBe(reason);
      }
      expect(at.requests.filter((request) => request.form.message === 'Towards the inside')).toHaveLength(0);
      expect(smsc.submits.filter((pdu) => msisdns.includes(`+${pdu.destination_addr}`))).toHaveLength(0);
    },
  );
});
