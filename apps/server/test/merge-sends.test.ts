import { MERGE_FIELD_MESSAGES } from '@sms/contracts/templates/merge-fields';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboundSms, SmsProvider } from '../src/messaging/providers/provider.ts';
import { buildProvider } from '../src/messaging/providers/registry.ts';
import {
  createSendingCompany,
  messageRow,
  numbers,
  recipientsOf,
  startWorker,
  subscribe,
  waitFor,
} from './support/messaging-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
/** Per company, a provider that accepts everything and keeps every batch it was handed. */
const providers = new Map<number, SmsProvider & { batches: OutboundSms[][] }>();

beforeAll(async () => {
  ctx = await createTestContext({
    FANOUT_BATCH_SIZE: '50',
    SIMULATOR_BATCH_SIZE: '100',
    WORKER_CONCURRENCY: '2',
  });
  await startWorker(ctx, {
    build: (chosen, context) => providers.get(context.companyId) ?? buildProvider(chosen, context),
  });
});
afterAll(async () => ctx?.close());

function keepingProvider() {
  const provider: SmsProvider & { batches: OutboundSms[][] } = {
    kind: 'simulator',
    maxBatchSize: 100,
    batches: [],
    async sendBatch(messages) {
      provider.batches.push(messages);
      return messages.map((sms) => ({
        recipientKey: sms.recipientKey,
        outcome: 'accepted' as const,
        providerMessageId: `KEPT-${sms.recipientKey}`,
      }));
    },
    async close() {},
  };
  return provider;
}

const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
  ctx.app.inject({ method, url: `/api/v1${url}`, headers, payload });

/** Sets subscribers' attributes by number (as an import or the console would). */
async function label(companyId: number, values: Record<string, Record<string, string>>) {
  for (const [msisdn, attributes] of Object.entries(values))
    await sql`update subscribers set attributes = ${JSON.stringify(attributes)}::jsonb
               where company_id = ${companyId} and msisdn = ${msisdn}`.execute(ctx.ownerDb);
}

/** A company with one service of `count` subscribers, the first ones named. */
async function namedAudience(count: number, prefix: number, names: (string | null)[]) {
  const tenant = await createSendingCompany(ctx);
  const service = await tenant.service();
  const phones = numbers(prefix, 0, count);
  await subscribe(ctx.ownerDb, service, phones);
  await label(
    tenant.company.id,
    Object.fromEntries(
      names.flatMap((name, i) => (name === null ? [] : [[phones[i], { first_name: name }]])),
    ),
  );
  return { tenant, service, phones };
}

const TEXT = 'Hi {{first_name|friend}}, your order is ready';
const LITERAL = 'Hi , your order is ready'.length;

describe('GET /messages/merge-fields', () => {
  it("answers each field's longest value over all the recipients, whether some have none, and three recipients with their fields", async () => {
    const { tenant, service, phones } = await namedAudience(8, 30, ['Amina', null, 'Bartholomew', 'Жанна']);
    const response = await call(
      'GET',
      `/messages/merge-fields?serviceIds=${service.id}&fields=first_name,language`,
      tenant.editor,
    );
    expect(response.statusCode, response.body).toBe(200);
    const data = response.json().data;
    expect(data.fields).toEqual([
      { name: 'first_name', maxLength: 11, maxGsmUnits: 11, anyUnicode: true, anyMissing: true },
      { name: 'language', maxLength: 0, maxGsmUnits: 0, anyUnicode: false, anyMissing: true },
    ]);
    expect(data.samples).toEqual([
      { id: expect.any(Number), msisdn: phones[0], attributes: { first_name: 'Amina' } },
      { id: expect.any(Number), msisdn: phones[1], attributes: {} },
      { id: expect.any(Number), msisdn: phones[2], attributes: { first_name: 'Bartholomew' } },
    ]);
  });

  it('refuses a field that cannot be a name, and another company’s service', async () => {
    const { tenant, service } = await namedAudience(1, 31, []);
    const bad = await call(
      'GET',
      `/messages/merge-fields?serviceIds=${service.id}&fields=First%20Name`,
      tenant.admin,
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain(MERGE_FIELD_MESSAGES.nameInvalid('First Name'));
    const other = await createSendingCompany(ctx);
    const theirs = await call(
      'GET',
      `/messages/merge-fields?serviceIds=${service.id}&fields=first_name`,
      other.admin,
    );
    expect(theirs.statusCode).toBe(404);
  });
});

describe('a bulk send with merge fields', () => {
  it('is refused when the longest text among the chosen recipients passes 160 characters, and nothing is queued', async () => {
    const { tenant, service } = await namedAudience(3, 32, ['Al', 'x'.repeat(100)]);
    const before = await ctx.ownerDb
      .selectFrom('messages')
      .select('id')
      .where('company_id', '=', tenant.company.id)
      .execute();
    const text = `${'a'.repeat(70)} {{first_name|friend}}`;
    const refused = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [service.id],
      message: text,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toBe(MERGE_FIELD_MESSAGES.longestTooLong(171));
    const after = await ctx.ownerDb
      .selectFrom('messages')
      .select('id')
      .where('company_id', '=', tenant.company.id)
      .execute();
    expect(after).toEqual(before);
  });

  it('refuses a malformed placeholder', async () => {
    const { tenant, service } = await namedAudience(1, 33, []);
    const refused = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [service.id],
      message: 'Hi {{First Name}}',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toContain(MERGE_FIELD_MESSAGES.placeholderInvalid('{{First Name}}'));
  });

  it('reserves the parts of the longest text: a Unicode name makes it Unicode for the reservation', async () => {
    const { tenant, service } = await namedAudience(4, 34, ['Amina', 'Жанна']);
    const text = `${'a'.repeat(60)} {{first_name|friend}}`;
    const sent = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [service.id],
      message: text,
      scheduleType: 'scheduled',
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(sent.statusCode, sent.body).toBe(201);
    const row = await messageRow(ctx.ownerDb, sent.json().data.message.id);
    // 60 + 1 + 6 ("friend") = 67 characters of UCS-2: one part of 70.
    expect(row).toMatchObject({ encoding: 'UCS-2', parts: 1, merge_fields: ['first_name'] });
    const reserved = await ctx.ownerDb
      .selectFrom('message_sends')
      .select('reserved_units')
      .where('message_id', '=', row!.id)
      .executeTakeFirstOrThrow();
    expect(reserved.reserved_units).toBe(4);

    const longer = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [service.id],
      message: `${'a'.repeat(66)} {{first_name|friend}}`,
    });
    // 66 + 1 + 6 = 73 characters of UCS-2: two parts.
    expect((await messageRow(ctx.ownerDb, longer.json().data.message.id))?.parts).toBe(2);
  });

  it('hands each recipient its own text, rendered from its fields at hand-over, recipients sharing a text side by side; a text over 160 is never cut but fails', async () => {
    const { tenant, service, phones } = await namedAudience(12, 35, [
      'Amina',
      'Baraka',
      'Amina',
      null,
      'Chebet',
      'Amina',
      null,
    ]);
    const provider = keepingProvider();
    providers.set(tenant.company.id, provider);
    const text = `${TEXT} {{ language }}`;
    const sent = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [service.id],
      message: text,
      scheduleType: 'scheduled',
      scheduledAt: new Date(Date.now() + 1500).toISOString(),
    });
    expect(sent.statusCode, sent.body).toBe(201);
    const messageId = sent.json().data.message.id;
    // After the send was accepted: one name changes, one grows past what a text can hold.
    await label(tenant.company.id, {
      [phones[1]]: { first_name: 'Baraka', language: 'sw' },
      [phones[4]]: { first_name: 'y'.repeat(150) },
    });

    await waitFor(
      () => recipientsOf(ctx.ownerDb, messageId),
      (rows) => rows.length === 12 && rows.every((row) => row.status !== 'pending'),
      { what: 'every recipient handed over' },
    );
    const offered = provider.batches.flat();
    const textOf = new Map(offered.map((sms) => [sms.to, sms.text]));
    expect(textOf.get(phones[0])).toBe('Hi Amina, your order is ready ');
    expect(textOf.get(phones[1])).toBe('Hi Baraka, your order is ready sw');
    expect(textOf.get(phones[3])).toBe('Hi friend, your order is ready ');
    expect(textOf.get(phones[11])).toBe('Hi friend, your order is ready ');
    expect(textOf.has(phones[4])).toBe(false);
    expect(offered).toHaveLength(11);
    expect(offered.every((sms) => sms.encoding === 'GSM-7' && sms.parts === 1)).toBe(true);
    // In each batch, recipients that share a text are side by side.
    for (const batch of provider.batches) {
      const runs = batch.map((sms) => sms.text).filter((value, i, all) => i === 0 || value !== all[i - 1]);
      expect(new Set(runs).size).toBe(runs.length);
    }

    const tooLong = (await recipientsOf(ctx.ownerDb, messageId)).find(
      (row) => row.recipient_phone === phones[4],
    );
    expect(tooLong).toMatchObject({
      status: 'failed',
      attempts: 0,
      error_message: MERGE_FIELD_MESSAGES.renderedTooLong(LITERAL + 150 + 1),
    });
  });

  it('leaves a plain text as it is, braces and all', async () => {
    const { tenant, service, phones } = await namedAudience(2, 36, ['Amina']);
    const provider = keepingProvider();
    providers.set(tenant.company.id, provider);
    const sent = await call('POST', '/messages/bulk/send', tenant.admin, {
      serviceIds: [service.id],
      message: 'Use code {SAVE} today',
    });
    expect(sent.statusCode, sent.body).toBe(201);
    expect((await messageRow(ctx.ownerDb, sent.json().data.message.id))?.merge_fields).toEqual([]);
    await waitFor(
      async () => provider.batches.flat().length,
      (count) => count === 2,
      { what: 'both recipients handed over' },
    );
    expect(
      provider.batches
        .flat()
        .map((sms) => [sms.to, sms.text])
        .sort(),
    ).toEqual([
      [phones[0], 'Use code {SAVE} today'],
      [phones[1], 'Use code {SAVE} today'],
    ]);
  });
});
