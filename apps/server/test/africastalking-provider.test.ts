import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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

const provider = (overrides: Partial<Parameters<typeof createAfricasTalkingProvider>[0]> = {}) =>
  createAfricasTalkingProvider({ baseUrl: fake.baseUrl, ...credentials, timeoutMs: 2_000, ...overrides });

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
    expect(outcomes).toEqual([
      expect.objectContaining({ recipientKey: 'dr-1', outcome: 'retry' }),
      expect.objectContaining({ recipientKey: 'dr-2', outcome: 'retry' }),
    ]);
    const reason = outcomes[0]!.outcome === 'retry' ? outcomes[0]!.reason : '';
    expect(reason).toContain('refused the credentials (HTTP 401');
    expect(reason).toContain('The supplied authentication is invalid');
    expect(reason).not.toContain('wrong-key');
  });

  it('retries on HTTP 500, on malformed JSON and on an unreachable host', async () => {
    fake.setOverride((res) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Internal error'));
    expect(await provider().sendBatch([sms(1)])).toEqual([
      {
        recipientKey: 'dr-1',
        outcome: 'retry',
        reason: "Africa's Talking answered HTTP 500: Internal error",
      },
    ]);

    fake.setOverride((res) =>
      res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"SMSMessageData":{"Recipi'),
    );
    expect(await provider().sendBatch([sms(1)])).toEqual([
      {
        recipientKey: 'dr-1',
        outcome: 'retry',
        reason: "Africa's Talking answered HTTP 201 with an unreadable body",
      },
    ]);

    const unreachable = createAfricasTalkingProvider({ baseUrl: 'http://127.0.0.1:1', ...credentials });
    const [outcome] = await unreachable.sendBatch([sms(1)]);
    expect(outcome).toMatchObject({ outcome: 'retry' });
    expect(outcome!.outcome === 'retry' && outcome!.reason).toMatch(/could not be reached/);
  });

  it('gives up on a slow answer at its time-out and retries', async () => {
    const pending: Array<() => void> = [];
    fake.setOverride((res) => {
      const timer = setTimeout(() => res.writeHead(201).end('{}'), 5_000);
      pending.push(() => clearTimeout(timer));
    });
    const started = Date.now();
    const outcomes = await provider({ timeoutMs: 200 }).sendBatch([sms(1), sms(2)]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(outcomes).toEqual([
      { recipientKey: 'dr-1', outcome: 'retry', reason: "Africa's Talking did not answer within 200 ms" },
      { recipientKey: 'dr-2', outcome: 'retry', reason: "Africa's Talking did not answer within 200 ms" },
    ]);
    for (const cancel of pending) cancel();
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
    ).toEqual({ providerMessageId: 'ATXid_1', status: expected, providerStatus: status, error, at });
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
