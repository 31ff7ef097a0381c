import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  companyScope,
  inTenantTransaction,
  platformScope,
  type TenantScope,
} from '../src/db/tenant-scope.ts';
import {
  messagesHoldingWord,
  readPattern,
  readSearchPage,
} from '../src/modules/messages/message-search.repository.ts';
import { createCompany } from './support/factories.ts';
import { insertManyMessages } from './support/message-log-factories.ts';
import { createTestContext, type TestContext } from './support/test-app.ts';

// Migration 0034: a search without another filter is answered from the word index (more than the
// cap hold the text as a whole word), from one trigram lookup (every match when there are at most
// the cap) or from the company's newest messages (a common text's page), else as 0030 did. Whichever
// way, the total, its exactness and the page must be a direct read's: matches newest first, counted
// to the cap + 1. Probed through sms_app's own connections.

let ctx: TestContext;
let a: number;
let b: number;
let c: number;

/** Messages of one company, newest last, `minutes` apart, ending `endMinutesAgo` before now. */
async function insertTexts(companyId: number, texts: string[], endMinutesAgo: number) {
  await sql`
    insert into messages (company_id, direction, content, msisdn, status, created_at, updated_at)
    select ${companyId}, case when t.text like 'From %' then 'inbound' else 'outbound' end, t.text,
           case when t.text like 'From %' then '+2547110000' || lpad(t.n::text, 2, '0') end,
           case when t.text like 'From %' then 'received' else 'sent' end,
           now() - ((${endMinutesAgo}::int + ${texts.length}::int - t.n) || ' minutes')::interval, now()
      from unnest(${texts}::text[]) with ordinality t(text, n)`.execute(ctx.ownerDb);
}

// Seven whole "weekend"s, four "weekends" and two "midweekend" (the text, not the word), numbers.
const TEXTS = [
  ...Array.from({ length: 7 }, (_, i) => `Weekend sale ${i}`),
  ...Array.from({ length: 4 }, (_, i) => `Weekends off ${i}`),
  'A midweekend match',
  'midweekend!',
  ...Array.from({ length: 5 }, (_, i) => `From a reader ${i}`),
  'Nothing to see',
].sort(
  (x, y) =>
    ((x.length * 31 + x.charCodeAt(x.length - 1)) % 7) - ((y.length * 31 + y.charCodeAt(y.length - 1)) % 7),
);

beforeAll(async () => {
  ctx = await createTestContext();
  a = (await createCompany(ctx.ownerDb)).id;
  b = (await createCompany(ctx.ownerDb)).id;
  c = (await createCompany(ctx.ownerDb)).id;
  await insertTexts(a, TEXTS, 10);
  await insertTexts(b, [...TEXTS].reverse(), 5);
  // Company c: twelve matches older than its newest 5,000 messages (none of which match).
  await insertTexts(
    c,
    Array.from({ length: 12 }, (_, i) => `An oldword here ${i}`),
    60 * 24 * 30,
  );
  await insertManyMessages(ctx.ownerDb, c, 5_100, new Date());
});
afterAll(() => ctx?.close());

const patternOf = (text: string) => `%${text}%`;

/** The direct read: the company's (or every company's) matches, newest first. */
async function direct(companyId: number | null, text: string) {
  const { rows } = await sql<{ id: number }>`
    select id from messages
     where (${companyId}::bigint is null or company_id = ${companyId})
       and (lower(content) like ${patternOf(text)} or (${text} ~ '^\\+?[0-9]+$' and msisdn like ${patternOf(text)}))
     order by created_at desc, id desc`.execute(ctx.ownerDb);
  return rows.map((row) => row.id);
}

type Page = { searched: { n: number; more: boolean }; messages: { id: number }[] };
const pageOf = (page: { searched: Page['searched']; rows: { id: number }[] }): Page => ({
  searched: page.searched,
  messages: page.rows,
});

const searchPage = (
  scope: TenantScope,
  companyId: number | null,
  text: string,
  offset: number,
  limit: number,
  cap: number,
) =>
  inTenantTransaction(ctx.db, scope, async (trx) =>
    pageOf(await readSearchPage(trx, companyId, patternOf(text), null, null, offset, limit, cap)),
  );

async function expectDirect(scope: TenantScope, companyId: number | null, text: string, cap: number) {
  const all = await direct(companyId, text);
  const searched = all.length > cap ? { n: cap + 1, more: true } : { n: all.length, more: false };
  for (const offset of [0, 2, 6, 12]) {
    const page = await searchPage(scope, companyId, text, offset, 3, cap);
    expect(page.searched, `${text}, cap ${cap}`).toEqual(searched);
    // A page past an exact total is not read; otherwise the page is the direct read's.
    const expected = !searched.more && offset >= all.length ? [] : all.slice(offset, offset + 3);
    expect(
      page.messages.map((m) => m.id),
      `${text}, cap ${cap}, offset ${offset}`,
    ).toEqual(expected);
  }
}

describe('the searched page without another filter (migration 0034)', () => {
  it('counts and pages every way as a direct read: word index, one trigram lookup, the newest messages', async () => {
    for (const text of [
      'weekend',
      'weekends',
      'midweek',
      'sale',
      'reader',
      '711000',
      '+25471100000',
      'nothing',
      'zzqx',
    ])
      for (const cap of [3, 5, 7, 10, 13, 20]) await expectDirect(companyScope(a), a, text, cap);
  });

  it('across every company in the platform scope, and for one', async () => {
    for (const cap of [5, 10, 13, 30]) {
      await expectDirect(platformScope, null, 'weekend', cap);
      await expectDirect(platformScope, b, 'weekend', cap);
    }
  });

  it('finds a common text older than the company’s newest 5,000 messages', async () => {
    for (const cap of [5, 11, 12, 20]) await expectDirect(companyScope(c), c, 'oldword', cap);
  });

  it("bound to company A, finds A's messages only, whichever company is asked for", async () => {
    const asked = await searchPage(companyScope(a), b, 'weekend', 0, 20, 5);
    expect(asked).toMatchObject({ searched: { n: 0, more: false }, messages: [] });
    const own = await searchPage(companyScope(a), null, 'weekend', 0, 20, 5);
    expect(own.searched).toEqual({ n: 6, more: true });
    const ofA = new Set(await direct(a, 'weekend'));
    for (const message of own.messages) expect(ofA.has(message.id)).toBe(true);
  });
});

// Migration 0038: past the cap, a word's page comes from the word index, with the messages of the
// longer words that hold it, when that is provably every message holding the text.
describe('a word’s page from the word index (migration 0038)', () => {
  let longWords: number;
  let longDigits: number;
  let manyWords: number;
  let numbers: number;

  beforeAll(async () => {
    longWords = (await createCompany(ctx.ownerDb)).id;
    longDigits = (await createCompany(ctx.ownerDb)).id;
    manyWords = (await createCompany(ctx.ownerDb)).id;
    numbers = (await createCompany(ctx.ownerDb)).id;
    // The newest holds "weekend" past the 40 characters the word index keeps of its word.
    await insertTexts(
      longWords,
      [...Array.from({ length: 6 }, (_, i) => `Weekend fun ${i}`), `${'x'.repeat(38)}weekend!`],
      10,
    );
    // The same past 40 digits: a word of digits alone, but of 40 characters.
    await insertTexts(
      longDigits,
      [...Array.from({ length: 6 }, (_, i) => `Weekend fun ${i}`), `${'1'.repeat(40)}weekend`],
      10,
    );
    // Seventeen words hold "promo".
    await insertTexts(
      manyWords,
      Array.from({ length: 17 }, (_, i) => `Promo${String.fromCharCode(97 + i)} and promo ${i}`),
      10,
    );
    // "711000" is a word of the older texts and in the numbers of the newer ones.
    await insertTexts(
      numbers,
      [
        'Ref x711000',
        ...Array.from({ length: 5 }, (_, i) => `Code 711000 number ${i}`),
        ...Array.from({ length: 4 }, (_, i) => `From a reader ${i}`),
        // Both a word and a longer word holding it: one message, once.
        ...Array.from({ length: 4 }, (_, i) => `Weekend or weekends ${i}`),
      ],
      10,
    );
  });

  const wordPage = (scope: TenantScope, companyId: number | null, word: string, limit: number) =>
    inTenantTransaction(ctx.db, scope, async (trx) =>
      (await messagesHoldingWord(trx, companyId as number, word, limit)).map((row) => row.message_id),
    );

  it('is the newest messages holding the text, those of longer words included', async () => {
    for (const word of ['weekend', 'weekends', 'midweek', 'sale', 'reader']) {
      const all = await direct(a, word);
      for (const limit of [1, 3, 5, 8, 13, 20]) {
        expect(await wordPage(companyScope(a), a, word, limit), `${word}, ${limit}`).toEqual(
          all.slice(0, limit),
        );
      }
    }
    expect(await wordPage(platformScope, b, 'weekend', 9)).toEqual((await direct(b, 'weekend')).slice(0, 9));
    for (const limit of [3, 4, 5])
      expect(await wordPage(companyScope(numbers), numbers, 'weekend', limit)).toEqual(
        (await direct(numbers, 'weekend')).slice(0, limit),
      );
  });

  it('answers nothing where it cannot prove its page, and the search reads it as before', async () => {
    expect(await wordPage(companyScope(longWords), longWords, 'weekend', 5)).toEqual([]);
    expect(await wordPage(companyScope(longDigits), longDigits, 'weekend', 5)).toEqual([]);
    expect(await wordPage(companyScope(numbers), numbers, '711000', 5)).toEqual([]);
    expect(await wordPage(companyScope(manyWords), manyWords, 'promo', 5)).toEqual([]);
    expect(await wordPage(companyScope(a), b, 'weekend', 5)).toEqual([]);
    for (const cap of [3, 4, 5]) {
      await expectDirect(companyScope(longWords), longWords, 'weekend', cap);
      await expectDirect(companyScope(longDigits), longDigits, 'weekend', cap);
      await expectDirect(companyScope(manyWords), manyWords, 'promo', cap);
      // A number search also finds the numbers: its page is not the word's.
      await expectDirect(companyScope(numbers), numbers, '711000', cap);
    }
  });
});

// Migration 0039: a text with a separator before two or more letters or digits is looked up by the
// word index's words beginning with them (when at most 256 entries do), its messages' text checked.
describe('a text with a word start, from the word index (migration 0039)', () => {
  let codes: number;
  let manyCodes: number;

  beforeAll(async () => {
    codes = (await createCompany(ctx.ownerDb)).id;
    manyCodes = (await createCompany(ctx.ownerDb)).id;
    await insertTexts(
      codes,
      [
        'Offer #1234 today',
        'Offer #12345 today',
        'OFFER #1234AB',
        'Ref a#1234',
        'x#1234y and #1234 twice',
        'Code 1234 without the sign',
        'Offer #123 only',
        'Offer #1235',
        'Key x1234',
        `Long #1234${'z'.repeat(50)}`,
        `Longer #${'9'.repeat(45)}`,
        `Not as long #${'9'.repeat(41)}`,
        'Spaced 12 34',
        'Tab\t1234 there',
        'From #1234 a reader',
      ],
      10,
    );
    // 300 entries of the word index begin with '777': more than the word start is looked up for.
    await insertTexts(
      manyCodes,
      Array.from({ length: 300 }, (_, i) => `Code #777${i}`),
      10,
    );
  });

  it('takes the longest run of letters and digits after a separator, never across a wildcard or an escape', async () => {
    const startOf = async (pattern: string) => {
      return (await readPattern(ctx.ownerDb, null, pattern)).word_start;
    };
    expect(await startOf('%#1234%')).toBe('1234');
    expect(await startOf('%a#12 b-345x%')).toBe('345x');
    expect(await startOf('%weekend%')).toBeNull();
    expect(await startOf('%#1%')).toBeNull();
    expect(await startOf(`%#${'9'.repeat(45)}%`)).toBe('9'.repeat(40));
    expect(await startOf('%\\_1234%')).toBeNull();
    expect(await startOf('%_1234%')).toBeNull();
    expect(await startOf('%#12%34%')).toBeNull();
  });

  it('counts and pages as a direct read', async () => {
    for (const text of [
      '#1234',
      '#12345',
      '#1234ab',
      'a#1234',
      ' 1234',
      '\t1234',
      '#123',
      '#1235',
      `#${'9'.repeat(45)}`,
      `#${'9'.repeat(41)}`,
      `#1234${'z'.repeat(45)}`,
      ' 12 34',
      '_1234',
      '#99999',
    ])
      for (const cap of [1, 2, 3, 5, 20]) await expectDirect(companyScope(codes), codes, text, cap);
  });

  it('with a direction or status filter, counts and pages as a direct read (migration 0041)', async () => {
    const filteredPage = (
      text: string,
      direction: string | null,
      statuses: string[] | null,
      offset: number,
      cap: number,
    ) =>
      inTenantTransaction(ctx.db, companyScope(codes), async (trx) =>
        pageOf(await readSearchPage(trx, codes, patternOf(text), direction, statuses, offset, 3, cap)),
      );
    const directFiltered = async (text: string, direction: string | null, statuses: string[] | null) => {
      const { rows } = await sql<{ id: number }>`
        select id from messages
         where company_id = ${codes} and lower(content) like ${patternOf(text)}
           and (${direction}::text is null or direction = ${direction})
           and (${statuses}::text[] is null or status = any(${statuses}::text[]))
         order by created_at desc, id desc`.execute(ctx.ownerDb);
      return rows.map((row) => row.id);
    };
    for (const text of ['#1234', '#12345', '#123', ' 1234', '_1234', '#99999'])
      for (const [direction, statuses] of [
        ['outbound', null],
        ['inbound', null],
        [null, ['sent']],
        ['outbound', ['received']],
      ] as [string | null, string[] | null][]) {
        const all = await directFiltered(text, direction, statuses);
        for (const cap of [2, 20])
          for (const offset of [0, 3, 6]) {
            const page = await filteredPage(text, direction, statuses, offset, cap);
            const label = `${text}, ${direction}, ${statuses}, cap ${cap}, offset ${offset}`;
            expect(page.searched, label).toEqual({ n: all.length, more: false });
            const expected = all.length <= cap && offset >= all.length ? [] : all.slice(offset, offset + 3);
            expect(
              page.messages.map((m) => m.id),
              label,
            ).toEqual(expected);
          }
      }
  });

  it('reads the trigram index when more than 256 words begin with the text', async () => {
    for (const cap of [5, 299, 300, 400]) await expectDirect(companyScope(manyCodes), manyCodes, '#777', cap);
    const filtered = await inTenantTransaction(ctx.db, companyScope(manyCodes), async (trx) =>
      pageOf(await readSearchPage(trx, manyCodes, '%#777%', 'outbound', null, 0, 3, 1000)),
    );
    expect(filtered.searched).toEqual({ n: 300, more: false });
    expect(filtered.messages.map((m) => m.id)).toEqual((await direct(manyCodes, '#777')).slice(0, 3));
  });

  it("bound to one company, finds none of another's", async () => {
    const asked = await searchPage(companyScope(a), codes, '#1234', 0, 20, 50);
    expect(asked).toMatchObject({ searched: { n: 0, more: false }, messages: [] });
  });
});
