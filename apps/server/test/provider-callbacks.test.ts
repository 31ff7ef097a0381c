import { CALLBACK_MESSAGES } from '@sms/contracts/callbacks/callback-urls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from './support/factories.ts';
import {
  createService,
  kenyanNumber,
  subscribeNumbers,
  subscriptionCallbackToken,
  subscriptionOf,
} from './support/services-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

let ctx: TestContext;
let company: Awaited<ReturnType<typeof createCompany>>;
let token: string;
let news: Awaited<ReturnType<typeof createService>>;
let sports: Awaited<ReturnType<typeof createService>>;
let otherCode: Awaited<ReturnType<typeof createService>>;
beforeAll(async () => {
  ctx = await createTestContext();
  company = await createCompany(ctx.ownerDb);
  token = await subscriptionCallbackToken(ctx.ownerDb, company.id);
  news = await createService(ctx.ownerDb, company.id, { shortcode: '22550', keyword: 'News' });
  sports = await createService(ctx.ownerDb, company.id, { shortcode: '22550', keyword: 'SPORTS' });
  otherCode = await createService(ctx.ownerDb, company.id, { shortcode: '33660', keyword: 'JOKES' });
});
afterAll(() => ctx.close());

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const post = (fields: Record<string, string>, options: { json?: boolean; url?: string } = {}) =>
  ctx.app.inject({
    method: 'POST',
    url: options.url ?? `/api/v1/callbacks/subscription/${company.id}/${token}`,
    headers: { 'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded' },
    payload: options.json ? JSON.stringify(fields) : form(fields),
  });

describe('subscription notifications', () => {
  it('adds on addition (form-encoded, keyword in any case), and a repeat changes nothing', async () => {
    const msisdn = kenyanNumber(60, 1);
    const notification = { phoneNumber: msisdn, shortCode: '22550', keyword: 'NEWS', updateType: 'addition' };
    const first = await post(notification);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      success: true,
      data: { received: true, outcome: 'subscribed', serviceIds: [news.id] },
    });
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toEqual({
      status: 'active',
      source: 'provider',
      subscriber_status: 'active',
    });
    const repeat = await post(notification);
    expect(repeat.json().data.outcome).toBe('unchanged');
    const audits = await ctx.ownerDb
      .selectFrom('audit_logs')
      .selectAll()
      .where('entity', '=', 'SUBSCRIBER')
      .where('company_id', '=', company.id)
      .execute();
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ action: 'CREATE', user_id: null });
    const count = await ctx.ownerDb
      .selectFrom('services')
      .select('subscriber_count')
      .where('id', '=', news.id)
      .executeTakeFirstOrThrow();
    expect(count.subscriber_count).toBe(1);
  });

  it('removes on deletion (JSON too), only from that service', async () => {
    const msisdn = kenyanNumber(60, 2);
    await subscribeNumbers(ctx.ownerDb, news, [msisdn]);
    await subscribeNumbers(ctx.ownerDb, sports, [msisdn]);
    const response = await post(
      { phoneNumber: msisdn, shortCode: '22550', keyword: 'sports', updateType: 'Deletion' },
      { json: true },
    );
    expect(response.json().data).toMatchObject({ outcome: 'unsubscribed', serviceIds: [sports.id] });
    expect(await subscriptionOf(ctx.ownerDb, sports.id, msisdn)).toMatchObject({
      status: 'unsubscribed',
      subscriber_status: 'active',
    });
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toMatchObject({ status: 'active' });
    const repeat = await post({
      phoneNumber: msisdn,
      shortCode: '22550',
      keyword: 'sports',
      updateType: 'deletion',
    });
    expect(repeat.json().data.outcome).toBe('unchanged');
  });

  it('answers an unknown short code + keyword without changing anything, and 400 for bad fields', async () => {
    const unknown = await post({
      phoneNumber: kenyanNumber(60, 3),
      shortCode: '99999',
      keyword: 'NOPE',
      updateType: 'addition',
    });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json().data.outcome).toBe('unknown_service');
    const badType = await post({
      phoneNumber: kenyanNumber(60, 3),
      shortCode: '22550',
      keyword: 'NEWS',
      updateType: 'maybe',
    });
    expect(badType.statusCode).toBe(400);
    const badPhone = await post({
      phoneNumber: '123',
      shortCode: '22550',
      keyword: 'NEWS',
      updateType: 'addition',
    });
    expect(badPhone.statusCode).toBe(400);
    expect(badPhone.json().message).toBe('123 is not a valid phone number');
    const garbage = await post({ hello: 'world' });
    expect(garbage.statusCode).toBe(400);
  });
});

describe('bad URLs', () => {
  it('gives the same 404 for a wrong token, an unknown company and a DLR token, and changes nothing', async () => {
    const msisdn = kenyanNumber(61, 1);
    const notification = { phoneNumber: msisdn, shortCode: '22550', keyword: 'NEWS', updateType: 'addition' };
    const dlrToken = (
      await ctx.ownerDb
        .selectFrom('company_callback_tokens')
        .select('callback_type')
        .where('company_id', '=', company.id)
        .execute()
    ).length;
    expect(dlrToken).toBe(2);
    const urls = [
      `/api/v1/callbacks/subscription/${company.id}/${'x'.repeat(43)}`,
      `/api/v1/callbacks/subscription/999999/${token}`,
      `/api/v1/callbacks/subscription/abc/${token}`,
      `/api/v1/callbacks/subscription/${company.id}/short`,
    ];
    for (const url of urls) {
      const response = await post(notification, { url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        success: false,
        message: CALLBACK_MESSAGES.invalidCallback,
        error: 'not_found',
      });
    }
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toBeUndefined();
  });

  it('stops accepting the old token once regenerated', async () => {
    const old = await subscriptionCallbackToken(ctx.ownerDb, company.id);
    token = await subscriptionCallbackToken(ctx.ownerDb, company.id);
    const response = await post(
      { phoneNumber: kenyanNumber(61, 2), shortCode: '22550', keyword: 'NEWS', updateType: 'addition' },
      { url: `/api/v1/callbacks/subscription/${company.id}/${old}` },
    );
    expect(response.statusCode).toBe(404);
  });
});

describe('bulk opt-out', () => {
  it('unsubscribes from every service on the sender id, or all of the company’s', async () => {
    const msisdn = kenyanNumber(62, 1);
    await subscribeNumbers(ctx.ownerDb, news, [msisdn]);
    await subscribeNumbers(ctx.ownerDb, sports, [msisdn]);
    await subscribeNumbers(ctx.ownerDb, otherCode, [msisdn]);
    const response = await post({ senderId: '22550', phoneNumber: msisdn });
    expect(response.json().data.outcome).toBe('unsubscribed');
    expect(response.json().data.serviceIds.sort()).toEqual([news.id, sports.id].sort());
    expect(await subscriptionOf(ctx.ownerDb, otherCode.id, msisdn)).toMatchObject({ status: 'active' });
    const everything = await post({ senderId: 'ACME', phoneNumber: msisdn });
    expect(everything.json().data).toMatchObject({ outcome: 'unsubscribed', serviceIds: [otherCode.id] });
    expect(await subscriptionOf(ctx.ownerDb, otherCode.id, msisdn)).toMatchObject({
      subscriber_status: 'unsubscribed',
    });
  });
});

describe('incoming messages', () => {
  it('stores an inbound message once, matched to the service by keyword', async () => {
    const msisdn = kenyanNumber(63, 1);
    const message = {
      from: msisdn,
      to: '22550',
      text: 'news please',
      id: 'ATXid_1',
      date: '2026-01-01 10:00:00',
      networkCode: '63902',
    };
    const first = await post(message);
    expect(first.json().data.outcome).toBe('stored');
    const repeat = await post(message);
    expect(repeat.json().data.outcome).toBe('duplicate');
    const rows = await ctx.ownerDb
      .selectFrom('messages')
      .selectAll()
      .where('provider_message_id', '=', 'ATXid_1')
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      direction: 'inbound',
      status: 'received',
      msisdn,
      content: 'news please',
      service_id: news.id,
    });
  });

  it('STOP unsubscribes the sender from the short code’s services; STOP <keyword> from that one', async () => {
    const msisdn = kenyanNumber(63, 2);
    await subscribeNumbers(ctx.ownerDb, news, [msisdn]);
    await subscribeNumbers(ctx.ownerDb, sports, [msisdn]);
    await subscribeNumbers(ctx.ownerDb, otherCode, [msisdn]);
    const one = await post({ from: msisdn, to: '22550', text: '  stop   Sports ', id: 'ATXid_2' });
    expect(one.json().data).toMatchObject({ outcome: 'unsubscribed', serviceIds: [sports.id] });
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toMatchObject({ status: 'active' });
    const all = await post({ from: msisdn, to: '22550', text: 'STOP', id: 'ATXid_3' });
    expect(all.json().data).toMatchObject({ outcome: 'unsubscribed', serviceIds: [news.id] });
    expect(await subscriptionOf(ctx.ownerDb, otherCode.id, msisdn)).toMatchObject({ status: 'active' });
    const again = await post({ from: msisdn, to: '22550', text: 'Stop', id: 'ATXid_4' });
    expect(again.json().data.outcome).toBe('unchanged');
    const audit = await ctx.ownerDb
      .selectFrom('audit_logs')
      .selectAll()
      .where('action', '=', 'DELETE')
      .where('entity', '=', 'SUBSCRIBER')
      .where('company_id', '=', company.id)
      .execute();
    expect(audit.some((entry) => (entry.details as { source?: string }).source === 'sms')).toBe(true);
  });

  it('a keyword texted to its short code subscribes the sender; a repeat changes nothing', async () => {
    const msisdn = kenyanNumber(63, 10);
    const joined = await post({ from: msisdn, to: '22550', text: ' news ', id: 'ATXid_20' });
    expect(joined.json().data).toMatchObject({ outcome: 'subscribed', serviceIds: [news.id] });
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toMatchObject({
      status: 'active',
      source: 'sms',
    });
    const withJoinWord = await post({ from: msisdn, to: '22550', text: 'JOIN NEWS', id: 'ATXid_21' });
    expect(withJoinWord.json().data.outcome).toBe('unchanged');
    const sportsToo = await post({ from: msisdn, to: '22550', text: 'sports start', id: 'ATXid_22' });
    expect(sportsToo.json().data).toMatchObject({ outcome: 'subscribed', serviceIds: [sports.id] });
  });

  it('an opted-out number that texts the keyword again is back in', async () => {
    const msisdn = kenyanNumber(63, 11);
    await subscribeNumbers(ctx.ownerDb, news, [msisdn]);
    await post({ from: msisdn, to: '22550', text: 'STOP NEWS', id: 'ATXid_30' });
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toMatchObject({ status: 'unsubscribed' });
    const back = await post({ from: msisdn, to: '22550', text: 'NEWS', id: 'ATXid_31' });
    expect(back.json().data.outcome).toBe('subscribed');
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toMatchObject({ status: 'active' });
  });

  it('neither a longer text nor a keyword of an inactive service subscribes anyone', async () => {
    const paused = await createService(ctx.ownerDb, company.id, {
      shortcode: '44770',
      keyword: 'PAUSED',
      status: 'inactive',
    });
    const msisdn = kenyanNumber(63, 12);
    const chat = await post({
      from: msisdn,
      to: '22550',
      text: 'news about the match please',
      id: 'ATXid_40',
    });
    expect(chat.json().data.outcome).toBe('stored');
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toBeUndefined();
    const inactive = await post({ from: msisdn, to: '44770', text: 'paused', id: 'ATXid_41' });
    expect(inactive.json().data.outcome).toBe('stored');
    expect(await subscriptionOf(ctx.ownerDb, paused.id, msisdn)).toBeUndefined();
  });

  it('records every received message in the audit trail, once', async () => {
    const msisdn = kenyanNumber(63, 13);
    const message = { from: msisdn, to: '33660', text: 'Thanks!', id: 'ATXid_50' };
    const stored = (await post(message)).json().data;
    await post(message);
    const entries = await ctx.ownerDb
      .selectFrom('audit_logs')
      .selectAll()
      .where('entity', '=', 'MESSAGE')
      .where('entity_id', '=', String(stored.messageId))
      .execute();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'CREATE', company_id: company.id, user_id: null });
    expect(entries[0].details).toMatchObject({
      direction: 'inbound',
      from: msisdn,
      to: '33660',
      serviceId: otherCode.id,
    });
  });

  it('keeps the provider’s date as the message’s time when it is plausible, else the time it arrived', async () => {
    const minutes = (n: number) => n * 60_000;
    const hoursAgo = new Date(Math.floor((Date.now() - minutes(150)) / 1000) * 1000);
    const asGiven = (date: Date) => date.toISOString().replace('T', ' ').slice(0, 19); // "YYYY-MM-DD hh:mm:ss", UTC
    const cases = [
      { id: 'ATXid_date_plain', date: asGiven(hoursAgo), expected: 'provider' },
      { id: 'ATXid_date_iso', date: hoursAgo.toISOString(), expected: 'provider' },
      {
        id: 'ATXid_date_zone',
        date: `${asGiven(new Date(hoursAgo.getTime() + minutes(180))).replace(' ', 'T')}+03:00`,
        expected: 'provider',
      },
      { id: 'ATXid_date_future', date: asGiven(new Date(Date.now() + minutes(60))), expected: 'arrival' },
      {
        id: 'ATXid_date_stale',
        date: asGiven(new Date(Date.now() - minutes(8 * 24 * 60))),
        expected: 'arrival',
      },
      { id: 'ATXid_date_garbage', date: 'yesterday', expected: 'arrival' },
      { id: 'ATXid_date_none', date: '', expected: 'arrival' },
    ];
    for (const [n, { id, date }] of cases.entries()) {
      const fields = {
        from: kenyanNumber(63, 60 + n),
        to: '33660',
        text: 'Hello',
        id,
        ...(date && { date }),
      };
      expect((await post(fields)).json().data.outcome, id).toBe('stored');
    }
    const arrivedBy = Date.now();
    const rows = await ctx.ownerDb
      .selectFrom('messages')
      .select(['provider_message_id', 'created_at'])
      .where('provider_message_id', 'like', 'ATXid_date_%')
      .execute();
    const createdAt = Object.fromEntries(
      rows.map((row) => [row.provider_message_id, row.created_at.getTime()]),
    );
    for (const { id, expected } of cases) {
      if (expected === 'provider') expect(createdAt[id], id).toBe(hoursAgo.getTime());
      // Stored as it arrived: within this test's run, not at the date it claimed.
      else expect(arrivedBy - createdAt[id]!, id).toBeLessThan(minutes(5));
    }
  });

  it('does not read "stop by later" as an opt-out', async () => {
    const msisdn = kenyanNumber(63, 3);
    await subscribeNumbers(ctx.ownerDb, news, [msisdn]);
    const response = await post({ from: msisdn, to: '22550', text: 'stop by the shop later', id: 'ATXid_5' });
    expect(response.json().data.outcome).toBe('stored');
    expect(await subscriptionOf(ctx.ownerDb, news.id, msisdn)).toMatchObject({ status: 'active' });
  });
});

describe('a company or service that is not active', () => {
  it.each([
    ['suspended', 1],
    ['pending', 2],
  ])(
    'a %s company still has its opt-outs honoured and its messages stored, but takes no opt-in',
    async (status, n) => {
      const held = await createCompany(ctx.ownerDb, { status });
      const heldToken = await subscriptionCallbackToken(ctx.ownerDb, held.id);
      const shortCode = `5588${n}`;
      const service = await createService(ctx.ownerDb, held.id, { shortcode: shortCode, keyword: 'HALT' });
      const [byDeletion, byOptOut, byStop, newcomer, texter] = [1, 2, 3, 4, 5].map((i) =>
        kenyanNumber(64, n * 10 + i),
      );
      await subscribeNumbers(ctx.ownerDb, service, [byDeletion, byOptOut, byStop]);
      const url = `/api/v1/callbacks/subscription/${held.id}/${heldToken}`;
      const outcomeOf = async (fields: Record<string, string>) => {
        const response = await post(fields, { url });
        expect(response.statusCode, response.body).toBe(200);
        return response.json().data;
      };

      expect(
        await outcomeOf({ phoneNumber: byDeletion, shortCode, keyword: 'HALT', updateType: 'deletion' }),
      ).toEqual({
        received: true,
        outcome: 'unsubscribed',
        serviceIds: [service.id],
      });
      expect((await outcomeOf({ senderId: shortCode, phoneNumber: byOptOut })).outcome).toBe('unsubscribed');
      const stop = await outcomeOf({ from: byStop, to: shortCode, text: 'STOP', id: `ATXid_held_${n}_stop` });
      expect(stop).toMatchObject({ outcome: 'unsubscribed', messageId: expect.any(Number) });
      for (const msisdn of [byDeletion, byOptOut, byStop])
        expect(await subscriptionOf(ctx.ownerDb, service.id, msisdn)).toMatchObject({
          status: 'unsubscribed',
        });

      expect(
        await outcomeOf({ phoneNumber: newcomer, shortCode, keyword: 'HALT', updateType: 'addition' }),
      ).toEqual({
        received: true,
        outcome: 'company_not_active',
        serviceIds: [service.id],
      });
      const join = await outcomeOf({ from: texter, to: shortCode, text: 'HALT', id: `ATXid_held_${n}_join` });
      expect(join).toMatchObject({ outcome: 'company_not_active', messageId: expect.any(Number) });
      expect(await subscriptionOf(ctx.ownerDb, service.id, newcomer)).toBeUndefined();
      expect(await subscriptionOf(ctx.ownerDb, service.id, texter)).toBeUndefined();
      const refusals = await ctx.ownerDb
        .selectFrom('audit_logs')
        .select(['action', 'details'])
        .where('company_id', '=', held.id)
        .where('action', '=', 'REJECT')
        .execute();
      expect(refusals.map((row) => (row.details as { reason: string }).reason)).toEqual([
        'companyNotActive',
        'companyNotActive',
      ]);
      // The validate endpoint agrees: the URL works.
      const check = await ctx.app.inject({
        method: 'GET',
        url: `/api/v1/callbacks/validate/subscription/${held.id}/${heldToken}`,
      });
      expect(check.json().data.valid).toBe(true);
    },
  );

  it('an inactive service answers exactly as an unknown one, and its subscriptions stay as they are', async () => {
    const inactive = await createService(ctx.ownerDb, company.id, {
      shortcode: '66990',
      keyword: 'ASLEEP',
      status: 'inactive',
    });
    const subscribed = kenyanNumber(64, 3);
    await subscribeNumbers(ctx.ownerDb, inactive, [subscribed]);
    const unknown = await post({
      phoneNumber: subscribed,
      shortCode: '66990',
      keyword: 'NOSUCH',
      updateType: 'deletion',
    });

    for (const updateType of ['addition', 'deletion']) {
      const response = await post({
        phoneNumber: kenyanNumber(64, 4),
        shortCode: '66990',
        keyword: 'asleep',
        updateType,
      });
      expect(response.statusCode).toBe(unknown.statusCode);
      expect(response.json()).toEqual(unknown.json());
      const ended = await post({
        phoneNumber: subscribed,
        shortCode: '66990',
        keyword: 'ASLEEP',
        updateType,
      });
      expect(ended.json()).toEqual(unknown.json());
    }
    expect(unknown.json().data.outcome).toBe('unknown_service');
    // Opt-outs and STOP texts aimed at it do not reach it either.
    await post({ senderId: '66990', phoneNumber: subscribed });
    await post({ from: subscribed, to: '66990', text: 'STOP ASLEEP', id: 'ATXid_asleep' });
    expect(await subscriptionOf(ctx.ownerDb, inactive.id, subscribed)).toMatchObject({ status: 'active' });
    expect(await subscriptionOf(ctx.ownerDb, inactive.id, kenyanNumber(64, 4))).toBeUndefined();
  });
});
