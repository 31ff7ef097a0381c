import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPublicAddressPolicy, type Resolve } from '../src/lib/public-address.ts';
import { createAfricasTalkingProvider } from '../src/messaging/providers/africastalking.ts';
import { parseAfricasTalkingDeliveryReport } from '../src/messaging/providers/africastalking-dlr.ts';
import type { OutboundSms } from '../src/messaging/providers/provider.ts';
import { startFakeAfricasTalking } from './support/fake-africastalking.ts';

const credentials = { apiKey: 'atsk_test_0123456789abcdef', username: 'acme-sms' };
let fake: Awaited<ReturnType<typeof startFakeAfricasTalking>>;

beforeAll(async () => {
  fake = await startFakeAfricasTalking(credentials);
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.answers.clear();
  fake.setOverride(null);
});

const sms = (n: number, overrides: Partial<OutboundSms> = {}): OutboundSms => ({
  recipientKey: `dr-${n}`,
  to: `+2547110000${String(n).padStart(2, '0')}`,
  from: 'ACME',
  text: 'Hello from Acme',
  encoding: 'GSM-7',
  parts: 1,
  ...overrides,
});

// The fake listens on loopback: allowed here as PROVIDER_ALLOWED_PRIVATE_HOSTS would allow it.
const onLoopback = { allowedPrivateHosts: ['127.0.0.1'] };
const provider = (overrides: Partial<Parameters<typeof createAfricasTalkingProvider>[0]> = {}) =>
  createAfricasTalkingProvider({
    baseUrl: fake.baseUrl,
    ...credentials,
    timeoutMs: 2_000,
    ...onLoopback,
    ...overrides,
  });

const byKey = <T extends { recipientKey: string }>(outcomes: T[]) =>
  Object.fromEntries(outcomes.map((outcome) => [outcome.recipientKey, outcome]));

describe("Africa's Talking adapter", () => {
  it('sends one form-encoded request per text with the documented headers and fields', async () => {
    const outcomes = await provider().sendBatch([sms(1), sms(2), sms(3)]);

    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/version1/messaging' });
    expect(request!.headers).toMatchObject({
      apikey: credentials.apiKey,
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(request!.form).toEqual({
      username: 'acme-sms',
      to: '+254711000001,+254711000002,+254711000003',
      message: 'Hello from Acme',
      from: 'ACME',
      bulkSMSMode: '1',
      enqueue: '1',
    });
    expect(outcomes).toHaveLength(3);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ outcome: 'accepted', providerStatus: 'Success' });
      expect(outcome.outcome === 'accepted' && outcome.providerMessageId).toMatch(/^ATXid_\d+$/);
    }
    expect(new Set(outcomes.map((o) => o.outcome === 'accepted' && o.providerMessageId)).size).toBe(3);
  });

  it('splits by batch size and by text, and falls back to the company sender id', async () => {
    const batch = [
      sms(1, { from: '' }),
      sms(2, { from: '' }),
      sms(3, { from: '' }),
      sms(4, { text: 'Other' }),
    ];
    const outcomes = await provider({ batchSize: 2, senderId: '22384' }).sendBatch(batch);

    expect(outcomes.map((o) => o.outcome)).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
    expect(fake.requests.map((r) => [r.form.to, r.form.message, r.form.from])).toEqual([
      ['+254711000001,+254711000002', 'Hello from Acme', '22384'],
      ['+254711000003', 'Hello from Acme', '22384'],
      ['+254711000004', 'Other', 'ACME'],
    ]);
    expect(provider({ batchSize: 2 }).maxBatchSize).toBe(2);
  });

  it('maps a 201 with mixed per-recipient statuses onto accepted, rejected and retry', async () => {
    fake.answers.set('+254711000002', { statusCode: 403, status: 'InvalidPhoneNumber' });
    fake.answers.set('+254711000003', { statusCode: 406, status: 'UserInBlacklist' });
    fake.answers.set('+254711000004', { statusCode: 500, status: 'InternalServerError' });
    fake.answers.set('+254711000005', { statusCode: 501, status: 'GatewayError' });
    fake.answers.set('+254711000006', { statusCode: 102, status: 'Queued' });
    fake.answers.set('+254711000007', 'omit');
    fake.answers.set('+254711000008', { statusCode: 502, status: 'RejectedByGateway' });

    const outcomes = byKey(await provider().sendBatch([1, 2, 3, 4, 5, 6, 7, 8].map((n) => sms(n))));

    expect(outcomes['dr-1']).toMatchObject({ outcome: 'accepted', providerStatus: 'Success' });
    expect(outcomes['dr-2']).toEqual({
      recipientKey: 'dr-2',
      outcome: 'rejected',
      reason: 'InvalidPhoneNumber',
      providerStatus: 'InvalidPhoneNumber',
    });
    expect(outcomes['dr-3']).toMatchObject({ outcome: 'rejected', reason: 'UserInBlacklist' });
    expect(outcomes['dr-4']).toMatchObject({ outcome: 'retry', reason: 'InternalServerError (500)' });
    expect(outcomes['dr-5']).toMatchObject({ outcome: 'retry', reason: 'GatewayError (501)' });
    expect(outcomes['dr-6']).toMatchObject({ outcome: 'accepted', providerStatus: 'Queued' });
    expect(outcomes['dr-7']).toMatchObject({
      outcome: 'retry',
      reason: "Missing from Africa's Talking's answer",
    });
    expect(outcomes['dr-8']).toMatchObject({ outcome: 'rejected', reason: 'RejectedByGateway' });
  });

  it('matches answers to recipients by number, in order when a number appears twice', async () => {
    const twin = sms(9, { recipientKey: 'dr-9b', to: '+254711000009' });
    const outcomes = await provider().sendBatch([sms(9), sms(8), twin]);
    const ids = outcomes.map((o) => (o.outcome === 'accepted' ? o.providerMessageId : o.outcome));
    expect(outcomes.map((o) => o.recipientKey)).toEqual(['dr-9', 'dr-8', 'dr-9b']);
    expect(new Set(ids).size).toBe(3);
  });

  it('holds every recipient back on refused credentials (401), with a reason the operator can act on', async () => {
    const outcomes = await provider({ apiKey: 'wrong-key' }).sendBatch([sms(1), sms(2)]);
    expect(fake.requests).toHaveLength(1);
    // The account's trouble, not the recipients': the company's sends are held (hand-over.ts).
    expect(outcomes).toEqual([
      expect.objectContaining({ recipientKey: 'dr-1', outcome: 'retry', scope: 'account' }),
      expect.objectContaining({ recipientKey: 'dr-2', outcome: 'retry', scope: 'account' }),
    ]);
    const reason = outcomes[0]!.outcome === 'retry' ? outcomes[0]!.reason : '';
    expect(reason).toBe(
      "Africa's Talking refused the credentials (HTTP 401 Unauthorized): check the company's API key and API username",
    );
  });

  it('retries on HTTP 500, on malformed JSON and on an unreachable host', async () => {
    fake.setOverride((res) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Internal error'));
    expect(await provider().sendBatch([sms(1)])).toEqual([
      {
        recipientKey: 'dr-1',
        outcome: 'retry',
        reason: "Africa's Talking answered HTTP 500 Internal Server Error",
        scope: 'request',
      },
    ]);

    fake.setOverride((res) =>
      res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"SMSMessageData":{"Recipi'),
    );
    expect(await provider().sendBatch([sms(1)])).toEqual([
      {
        recipientKey: 'dr-1',
        outcome: 'retry',
        reason: "Africa's Talking answered HTTP 201 Created with an unreadable body",
        scope: 'request',
      },
    ]);

    const unreachable = createAfricasTalkingProvider({
      baseUrl: 'http://127.0.0.1:1',
      ...credentials,
      ...onLoopback,
    });
    expect(await unreachable.sendBatch([sms(1)])).toEqual([
      {
        recipientKey: 'dr-1',
        outcome: 'retry',
        reason: "Africa's Talking could not be reached (ECONNREFUSED)",
        scope: 'account',
      },
    ]);
  });

  it('gives up on a slow answer at its time-out and leaves its recipients unknown, not retried', async () => {
    const pending: Array<() => void> = [];
    fake.setOverride((res) => {
      const timer = setTimeout(() => res.writeHead(201).end('{}'), 5_000);
      pending.push(() => clearTimeout(timer));
    });
    // Had it waited for the late answer, the outcomes would read accepted, not "did not answer".
    const outcomes = await provider({ timeoutMs: 200 }).sendBatch([sms(1), sms(2)]);
    expect(outcomes).toEqual([
      { recipientKey: 'dr-1', outcome: 'unknown', reason: "Africa's Talking did not answer within 200 ms" },
      { recipientKey: 'dr-2', outcome: 'unknown', reason: "Africa's Talking did not answer within 200 ms" },
    ]);
    for (const cancel of pending) cancel();
  });

  it('holds the rest of the batch back after a request that got no answer, without sending it', async () => {
    const pending: Array<() => void> = [];
    fake.setOverride((res) => {
      const timer = setTimeout(() => res.writeHead(201).end('{}'), 5_000);
      pending.push(() => clearTimeout(timer));
    });
    const before = fake.requests.length;
    const outcomes = await provider({ timeoutMs: 200, batchSize: 1 }).sendBatch([sms(1), sms(2)]);
    expect(outcomes).toEqual([
      { recipientKey: 'dr-1', outcome: 'unknown', reason: "Africa's Talking did not answer within 200 ms" },
      {
        recipientKey: 'dr-2',
        outcome: 'retry',
        reason: "held back: Africa's Talking did not answer within 200 ms",
        scope: 'request',
      },
    ]);
    expect(fake.requests.length - before).toBe(1);
    for (const cancel of pending) cancel();
  });
});

describe("what Africa's Talking's answers may put in front of the company", () => {
  const secret = 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG';

  it('reduces a failed answer to its status and standard words, never the body or the reason phrase', async () => {
    for (const [code, expected, scope] of [
      [502, "Africa's Talking answered HTTP 502 Bad Gateway", 'request'],
      [404, "Africa's Talking answered HTTP 404 Not Found", 'request'],
      [
        403,
        "Africa's Talking refused the credentials (HTTP 403 Forbidden): check the company's API key and API username",
        'account',
      ],
    ] as const) {
      fake.setOverride((res) => res.writeHead(code, secret, { 'Content-Type': 'text/plain' }).end(secret));
      const [outcome] = await provider().sendBatch([sms(1)]);
      expect(outcome).toEqual({ recipientKey: 'dr-1', outcome: 'retry', reason: expected, scope });
    }
  });

  it("keeps a recipient's status to the documented words", async () => {
    fake.answers.set('+254711000001', { statusCode: 403, status: secret });
    fake.answers.set('+254711000002', { statusCode: 499, status: secret });
    fake.answers.set('+254711000003', { statusCode: 501, status: secret });
    fake.answers.set('+254711000004', { statusCode: 101, status: secret });
    const outcomes = byKey(await provider().sendBatch([1, 2, 3, 4].map((n) => sms(n))));
    expect(outcomes['dr-1']).toMatchObject({ outcome: 'rejected', reason: 'InvalidPhoneNumber' });
    expect(outcomes['dr-2']).toMatchObject({ outcome: 'rejected', reason: 'status 499' });
    expect(outcomes['dr-3']).toMatchObject({ outcome: 'retry', reason: 'GatewayError (501)' });
    expect(outcomes['dr-4']).toMatchObject({ outcome: 'accepted', providerStatus: 'Sent' });
    expect(JSON.stringify(outcomes)).not.toContain('AWS_SECRET');
  });

  it('does not follow a redirect: the server it names is never asked', async () => {
    const elsewhere = await startFakeAfricasTalking(credentials);
    try {
      fake.setOverride((res) =>
        res.writeHead(302, { Location: `${elsewhere.baseUrl}/version1/messaging` }).end(),
      );
      expect(await provider().sendBatch([sms(1)])).toEqual([
        {
          recipientKey: 'dr-1',
          outcome: 'retry',
          reason: "Africa's Talking answered HTTP 302 Found, a redirect, which is not followed",
          scope: 'account',
        },
      ]);
      expect(fake.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});

describe("Africa's Talking base URL at connection time", () => {
  const refused = "Africa's Talking base URL refused: it points at a private, loopback or link-local address";
  const port = () => new URL(fake.baseUrl).port;

  it.each([
    ['loopback, not allowed', () => fake.baseUrl, refused],
    ['loopback as one number', () => `http://2130706433:${port()}`, refused],
    ['loopback in hex', () => `http://0x7f.1:${port()}`, refused],
    ['IPv6 loopback', () => `http://[::1]:${port()}`, refused],
    ['IPv4-mapped loopback', () => `http://[::ffff:127.0.0.1]:${port()}`, refused],
    ['localhost', () => `http://localhost:${port()}`, refused],
    ['the metadata address', () => 'http://169.254.169.254', refused],
    ['0.0.0.0', () => `http://0.0.0.0:${port()}`, refused],
    [
      'credentials in the URL',
      () => `http://user:pw@example.com:${port()}`,
      "Africa's Talking base URL refused: it carries a user name or password",
    ],
    [
      'another scheme',
      () => 'ftp://example.com',
      "Africa's Talking base URL refused: it is not an http or https address",
    ],
  ])('refuses %s without sending anything', async (_name, baseUrl, reason) => {
    const outcomes = await createAfricasTalkingProvider({ baseUrl: baseUrl(), ...credentials }).sendBatch([
      sms(1),
    ]);
    expect(outcomes).toEqual([{ recipientKey: 'dr-1', outcome: 'retry', reason, scope: 'account' }]);
    expect(fake.requests).toHaveLength(0);
  });

  // DNS is outside the system: a resolver stands in for a name that now points inside.
  const resolving =
    (addresses: string[]): Resolve =>
    async (host) => {
      if (host !== 'at.rebound.test') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
  const byName = (policy: ReturnType<typeof createPublicAddressPolicy>) =>
    createAfricasTalkingProvider(
      { baseUrl: `http://at.rebound.test:${port()}`, ...credentials, timeoutMs: 2_000 },
      policy,
    );

  it('refuses a name when any address it resolves to is private, checked as it connects', async () => {
    for (const addresses of [['127.0.0.1'], ['93.184.216.34', '127.0.0.1'], ['2606:2800::1', 'fd00::1']]) {
      const outcomes = await byName(createPublicAddressPolicy([], resolving(addresses))).sendBatch([sms(1)]);
      expect(outcomes).toEqual([
        { recipientKey: 'dr-1', outcome: 'retry', reason: refused, scope: 'account' },
      ]);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('connects to the address the name resolved to when the operator allows it', async () => {
    const allowed = byName(createPublicAddressPolicy(['127.0.0.1'], resolving(['127.0.0.1'])));
    expect(await allowed.sendBatch([sms(1)])).toEqual([
      expect.objectContaining({ recipientKey: 'dr-1', outcome: 'accepted' }),
    ]);
    expect(fake.requests).toHaveLength(1);
  });
});

describe("Africa's Talking delivery reports", () => {
  const at = new Date('2026-03-01T10:00:00Z');

  it.each([
    ['Success', 'delivered', null],
    ['Sent', 'sent', null],
    ['Submitted', 'submitted', null],
    ['Buffered', 'sent', null],
    ['Rejected', 'rejected', 'DoNotDisturbRejection'],
    ['Failed', 'failed', 'DeliveryFailure'],
    ['AbsentSubscriber', 'failed', 'AbsentSubscriber'],
    ['Expired', 'expired', 'Expired'],
  ])('maps %s onto %s', (status, expected, error) => {
    const failureReason = ['Rejected', 'Failed'].includes(status) ? error : undefined;
    expect(
      parseAfricasTalkingDeliveryReport(
        { id: 'ATXid_1', status, phoneNumber: '+254711000001', networkCode: '63902', failureReason },
        at,
      ),
    ).toEqual({
      providerMessageId: 'ATXid_1',
      status: expected,
      providerStatus: status,
      error,
      at,
      phone: '+254711000001',
    });
  });

  it('reads field names and status words in any case, ignores unknown fields and strips NULs', () => {
    expect(
      parseAfricasTalkingDeliveryReport(
        { ID: 'ATX\u0000id_9', STATUS: 'sUcCeSs', retryCount: '0', somethingNew: 'x', FailureReason: '' },
        at,
      ),
    ).toEqual({
      providerMessageId: 'ATXid_9',
      status: 'delivered',
      providerStatus: 'sUcCeSs',
      error: null,
      at,
      phone: null,
    });
    expect(parseAfricasTalkingDeliveryReport({ id: ['ATXid_2', 'dup'], status: 'failed' }, at)).toMatchObject(
      {
        providerMessageId: 'ATXid_2',
        status: 'failed',
        error: 'failed',
      },
    );
  });

  it.each([
    [null],
    ['id=1'],
    [{}],
    [{ status: 'Success' }],
    [{ id: '\u0000', status: 'Success' }],
    [{ id: 'ATXid_1' }],
    [{ id: 'ATXid_1', status: 'Teleported' }],
    [{ id: { nested: true }, status: 'Success' }],
  ])('answers null for %o', (body) => {
    expect(parseAfricasTalkingDeliveryReport(body)).toBeNull();
  });
});
