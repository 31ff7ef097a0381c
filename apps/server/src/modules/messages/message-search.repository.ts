import { sql } from 'kysely';
import { type Executor, namedStatement } from '../../db/database.ts';
import { RESET_PLANS, resetPlans, runStatement } from '../../lib/planned-once.ts';
import {
  type CappedCount,
  type Json,
  type MessageFilter,
  type MessageRow,
  messageRowOf,
  type StatusCount,
  statusesOf,
} from './message-logs.repository.ts';

// The message list's search, and the top bar's message matches. The searchable text is read
// through message_search_entries and message_search_known_words (db/functions/21-message-search.sql):
// views that hold the tenant wall in their own condition, so that a LIKE may use the trigram index
// (under row-level security it could not: a LIKE is not leakproof). The words of
// message_search_words are read under row-level security (a range or an equality on a word is).
//
// The statements that the search functions planned once per connection are named prepared
// statements planned without their values (lib/planned-once.ts): the counters' statement turns
// generic plans on for them. Those the functions planned for their values (EXECUTE: walk the newest
// or use the trigram index, by how common the text is) run once generic plans are off again.

/** A match: a message's key and time. */
export type Match = { company_id: number; message_id: number; created_at: Date };
type Unordered = Match & { at_us: number };

const TEXT_COLUMNS = 't.company_id, t.message_id, t.created_at';
// The time in microseconds, to order matches found in no order as PostgreSQL would (a Date keeps
// milliseconds).
const MICROSECONDS = '(extract(epoch from t.created_at) * 1000000)::bigint as at_us';
const NEWEST_FIRST = 'order by t.created_at desc, t.message_id desc';

// The counters per direction and status (as the list's), generic plans on for what follows, and
// what the text is: three letters or digits in a row (`three`), numbers only (`numbers`, which also
// match the msisdn), one whole word of the word index (`whole_word`), and the longest run of letters
// and digits after a separator (`word_start`: a word that must start there; none for a pattern with
// a wildcard or an escape, which may stand for the separator). $1 the company, $2 the pattern.
const PATTERN_KIND = String.raw`
         $2::text ~ '[[:alnum:]]{3}' as three,
         $2::text ~ '^%\+?[0-9]+%$' as numbers,
         case when $1::bigint is not null and $2::text ~ '^%[a-z0-9]{2,40}%$' then substr($2::text, 2, length($2::text) - 2) end as whole_word,
         (select left(m[1], 40)
            from regexp_matches(substr($2::text, 2, length($2::text) - 2), '[[:space:][:punct:]]([a-z0-9]{2,})', 'g') m
           where $2::text ~ '^%[^%_\\]+%$'
           order by length(m[1]) desc
           limit 1) as word_start`;
const searchCountsOf = (where: string) => `
  select set_config('plan_cache_mode', 'force_generic_plan', true) as generic,
         (select coalesce(json_agg(json_build_object('direction', c.direction, 'status', c.status, 'messages', c.n)), '[]')
            from (select direction, status, sum(messages) as n from message_status_counts ${where}
                   group by direction, status having sum(messages) <> 0) c) as counts,
         ${PATTERN_KIND}`;
const SEARCH_COUNTS = namedStatement(
  'message_search_counts',
  searchCountsOf('where company_id = $1::bigint'),
);
const SEARCH_COUNTS_PLATFORM = namedStatement(
  'message_search_counts_platform',
  searchCountsOf('where $1::bigint is null'),
);
const PATTERN = namedStatement('message_search_pattern', `select ${PATTERN_KIND}`);

/** What a LIKE pattern is (as the counters' statement reads it), for the company (null: every one). */
export async function readPattern(db: Executor, companyId: number | null, text: string): Promise<Pattern> {
  const [kind] = await runStatement<Omit<Pattern, 'text'>>(db, PATTERN, [companyId, text]);
  return { ...kind, text };
}

export type Pattern = {
  text: string;
  three: boolean;
  numbers: boolean;
  whole_word: string | null;
  word_start: string | null;
};

// A company's messages holding a whole word, counted up to $3.
const WORD_COUNT = namedStatement(
  'message_search_word_count',
  `select count(*)::int as n
     from (select 1 from message_search_words w where w.company_id = $1::bigint and w.word = $2::text limit $3::int) x`,
);

// The messages of a company's words that start with $2 (up to $3, the next string in byte order):
// 257 entries at most, so that more than 256 reads as "too many to be worth it".
const WORD_START_ENTRIES = namedStatement(
  'message_search_word_start',
  `select count(*)::int as entries, coalesce(array_agg(distinct w.message_id), '{}') as ids
     from (select w.message_id from message_search_words w
            where w.company_id = $1::bigint and w.word >= $2::text and w.word < $3::text
            limit 257) w`,
);

/**
 * The ids of the company's messages that have a word starting with the pattern's word start (all
 * those that may hold the text), or null when that says nothing: no company, no word start, numbers
 * (they match the msisdn too), or more than 256 entries.
 */
export async function wordStartCandidates(db: Executor, companyId: number | null, pattern: Pattern) {
  const start = pattern.word_start;
  if (companyId === null || start === null || pattern.numbers) return null;
  // A letter or digit is one byte: the next string after every word that starts with `start`.
  const after = start.slice(0, -1) + String.fromCharCode(start.charCodeAt(start.length - 1) + 1);
  const [row] = await runStatement<{ entries: number; ids: number[] }>(db, WORD_START_ENTRIES, [
    companyId,
    start,
    after,
  ]);
  return row.entries > 256 ? null : row.ids;
}

const matchesOf = (where: string, limit: string) =>
  `select ${TEXT_COLUMNS}, ${MICROSECONDS} from message_search_entries t where ${where} limit ${limit}`;
const MATCHES = {
  platformNumbers: namedStatement(
    'message_search_matches_platform_numbers',
    matchesOf('(t.content like $1::text or t.msisdn like $1::text)', '$2::int'),
  ),
  platform: namedStatement(
    'message_search_matches_platform',
    matchesOf('t.content like $1::text', '$2::int'),
  ),
  numbers: namedStatement(
    'message_search_matches_numbers',
    matchesOf('t.company_id = $1::bigint and (t.content like $2::text or t.msisdn like $2::text)', '$3::int'),
  ),
  candidates: namedStatement(
    'message_search_matches_candidates',
    matchesOf(
      't.company_id = $1::bigint and t.message_id = any($2::bigint[]) and t.content like $3::text',
      '$4::int',
    ),
  ),
  company: namedStatement(
    'message_search_matches',
    matchesOf('t.company_id = $1::bigint and t.content like $2::text', '$3::int'),
  ),
};

/** Up to `limit` matches of the pattern, in no order: the search's count when it is small. */
export async function anyMatches(db: Executor, companyId: number | null, pattern: Pattern, limit: number) {
  if (companyId === null) {
    return runStatement<Unordered>(db, pattern.numbers ? MATCHES.platformNumbers : MATCHES.platform, [
      pattern.text,
      limit,
    ]);
  }
  if (pattern.numbers) return runStatement<Unordered>(db, MATCHES.numbers, [companyId, pattern.text, limit]);
  const candidates = await wordStartCandidates(db, companyId, pattern);
  return candidates === null
    ? runStatement<Unordered>(db, MATCHES.company, [companyId, pattern.text, limit])
    : runStatement<Unordered>(db, MATCHES.candidates, [companyId, candidates, pattern.text, limit]);
}

// The newest $limit matches among the newest $recent messages, newest first: a common text's page
// is found there (an index walk from the newest, for any pattern).
const recentOf = (where: string, n: number) => `
  select ${TEXT_COLUMNS}
    from (select t.company_id, t.message_id, t.created_at, t.content, t.msisdn from message_search_entries t
           ${where} ${NEWEST_FIRST} limit $${n + 3}::int) t
   where t.content like $${n}::text or ($${n + 1}::boolean and t.msisdn like $${n}::text)
   ${NEWEST_FIRST} limit $${n + 2}::int`;
const RECENT = namedStatement('message_search_recent', recentOf('where t.company_id = $1::bigint', 2));
const RECENT_PLATFORM = namedStatement('message_search_recent_platform', recentOf('', 1));

// A word's messages from the word index, with those of the longer words holding it: every message
// holding its text when the vocabulary proves it (no word of 40 characters, which may be cut, and
// at most 16 words holding it).
const WORD_VOCABULARY = namedStatement(
  'message_search_word_vocabulary',
  `select exists (select 1 from message_search_known_words v
                   where v.company_id = $1::bigint and length(v.word) >= 40) as long_words,
          (select array_agg(v.word)
             from (select v.word from message_search_known_words v
                    where v.company_id = $1::bigint and v.word like $2::text limit 17) v) as words`,
);
const WORDS_NEWEST = namedStatement(
  'message_search_words_newest',
  `select k.company_id, k.message_id, k.created_at
     from (select distinct w.company_id, w.message_id, w.created_at
             from unnest($2::text[]) x(word)
             cross join lateral (select w.company_id, w.message_id, w.created_at from message_search_words w
                                  where w.company_id = $1::bigint and w.word = x.word
                                  order by w.created_at desc, w.message_id desc limit $3::int) w) k
    order by k.created_at desc, k.message_id desc limit $3::int`,
);

/** The newest `limit` matches among the newest `recent` messages, newest first. */
export function recentMatches(
  db: Executor,
  companyId: number | null,
  pattern: Pattern,
  limit: number,
  recent: number,
) {
  return runStatement<Match>(
    db,
    companyId === null ? RECENT_PLATFORM : RECENT,
    companyId === null
      ? [pattern.text, pattern.numbers, limit, recent]
      : [companyId, pattern.text, pattern.numbers, limit, recent],
  );
}

/**
 * The company's newest `limit` messages holding the word (lower-case letters and digits, with a
 * letter), newest first, when the word index can prove them every such message; else none.
 */
export async function messagesHoldingWord(
  db: Executor,
  companyId: number,
  word: string,
  limit: number,
): Promise<Match[]> {
  if (!/^[a-z0-9]{2,40}$/.test(word) || !/[a-z]/.test(word) || limit < 1) return [];
  const [{ long_words, words }] = await runStatement<{ long_words: boolean; words: string[] | null }>(
    db,
    WORD_VOCABULARY,
    [companyId, `%${word}%`],
  );
  if (long_words || words === null || words.length > 16) return [];
  return runStatement<Match>(db, WORDS_NEWEST, [companyId, words, limit]);
}

/**
 * The newest `limit` matches of the pattern, newest first, planned for the pattern (a walk of the
 * newest or the trigram index, by how common the text is): run with generic plans off. `few`: the
 * count says the matches are few, so every match by trigram, then sorted.
 */
async function newestMatchesQuery(
  db: Executor,
  companyId: number | null,
  pattern: Pattern,
  limit: number,
  few = false,
) {
  if (companyId !== null && pattern.three) {
    const candidates = await wordStartCandidates(db, companyId, pattern);
    if (candidates !== null) {
      return sql<Match>`
        select ${sql.raw(TEXT_COLUMNS)} from message_search_entries t
         where t.company_id = ${companyId} and t.message_id = any(${candidates}::bigint[]) and t.content like ${pattern.text}
         ${sql.raw(NEWEST_FIRST)} limit ${limit}`;
    }
  }
  const ofCompany = companyId === null ? sql`true` : sql`t.company_id = ${companyId}`;
  const matches = pattern.numbers
    ? sql`(t.content like ${pattern.text} or t.msisdn like ${pattern.text})`
    : sql`t.content like ${pattern.text}`;
  if (pattern.three && few) {
    // offset 0 keeps the order out of the inner query: every match by trigram, then sorted.
    return sql<Match>`
      select ${sql.raw(TEXT_COLUMNS)}
        from (select ${sql.raw(TEXT_COLUMNS)} from message_search_entries t where ${ofCompany} and ${matches} offset 0) t
       ${sql.raw(NEWEST_FIRST)} limit ${limit}`;
  }
  if (pattern.three) {
    return sql<Match>`
      select ${sql.raw(TEXT_COLUMNS)} from message_search_entries t where ${ofCompany} and ${matches}
       ${sql.raw(NEWEST_FIRST)} limit ${limit}`;
  }
  return sql<Match>`
    select ${sql.raw(TEXT_COLUMNS)}
      from (select * from message_search_entries t where ${ofCompany} ${sql.raw(NEWEST_FIRST)} limit 10000) t
     where ${matches}
     ${sql.raw(NEWEST_FIRST)} limit ${limit}`;
}

export async function newestMatches(
  db: Executor,
  companyId: number | null,
  pattern: Pattern,
  limit: number,
  few = false,
): Promise<Match[]> {
  if (limit < 1) return [];
  return (await (await newestMatchesQuery(db, companyId, pattern, limit, few)).execute(db)).rows;
}

/** How many messages match, up to `limit` (planned for the pattern: generic plans off). */
export async function countMatches(db: Executor, companyId: number | null, pattern: Pattern, limit: number) {
  if (!pattern.three) return (await newestMatches(db, companyId, pattern, limit)).length;
  const ofCompany = companyId === null ? sql`true` : sql`t.company_id = ${companyId}`;
  const matches = pattern.numbers
    ? sql`(t.content like ${pattern.text} or t.msisdn like ${pattern.text})`
    : sql`t.content like ${pattern.text}`;
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n
      from (select 1 from message_search_entries t where ${ofCompany} and ${matches} limit ${limit}) x`.execute(
    db,
  );
  return rows[0].n;
}

// The page's rows named by their keys, in that order, with their company's and service's names, as
// JSON; the statement ends the read's generic plans.
const PAGE_ROWS = namedStatement(
  'message_search_page_rows',
  `select ${RESET_PLANS} as reset,
          (select coalesce(json_agg(r order by r.n), '[]')
             from (select k.n, m.id, m.company_id, c.name as company_name, m.service_id, s.name as service_name,
                          m.service_ids::int[] as service_ids, m.direction, m.content, m.msisdn, m.status,
                          m.scheduled_at, m.sent_at, m.created_at, m.recipient_count, m.queue_job_id, m.encoding, m.parts
                     from unnest($1::bigint[], $2::bigint[]) with ordinality k(company_id, id, n)
                     join messages m on m.company_id = k.company_id and m.id = k.id
                     join companies c on c.id = m.company_id
                     left join services s on s.company_id = m.company_id and s.id = m.service_id) r) as messages`,
);

async function pageRows(db: Executor, keys: readonly { company_id: number; message_id: number }[]) {
  const [{ messages }] = await runStatement<{ messages: Json<MessageRow>[] }>(db, PAGE_ROWS, [
    keys.map((key) => key.company_id),
    keys.map((key) => key.message_id),
  ]);
  return messages.map(messageRowOf);
}

const newestFirst = (a: Unordered, b: Unordered) => b.at_us - a.at_us || b.message_id - a.message_id;

/** A LIKE pattern that matches the text anywhere, with LIKE's own characters taken literally. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** How many matches a filtered search counts at most: the newest 10,001 (MESSAGE_COUNT_CAP + 1). */
const WINDOW = 10_001;
/** The newest messages a common text's page is looked for among first. */
const RECENT_MESSAGES = 5_000;

/**
 * A searched list: the counters per direction and status, the search's total and one page. The
 * total is counted up to `cap` (see searchCountCap): without another filter over all matches, with
 * one over the newest 10,001 matches, so "not exact" past either. The matches are joined to messages
 * under row-level security.
 */
export async function searchMessagesWithCounts(
  db: Executor,
  filter: MessageFilter & { search: string },
  offset: number,
  limit: number,
  cap: number,
): Promise<{ byStatus: StatusCount[]; searched: CappedCount; rows: MessageRow[] }> {
  const { companyId, direction = null } = filter;
  const page = await readSearchPage(
    db,
    companyId,
    likePattern(filter.search),
    direction,
    statusesOf(filter),
    offset,
    limit,
    cap,
  );
  return { ...page, searched: cappedCount(page.searched.n, page.searched.more, cap) };
}

/**
 * The searched list's counters, matches counted (`n` up to cap + 1; `more`: the count stopped
 * short) and page, for a LIKE pattern and the statuses as the list reads them (statusesOf).
 */
export async function readSearchPage(
  db: Executor,
  companyId: number | null,
  text: string,
  direction: string | null,
  statuses: readonly string[] | null,
  offset: number,
  limit: number,
  cap: number,
) {
  const [answer] = await runStatement<Omit<Pattern, 'text'> & { counts: StatusCount[] }>(
    db,
    companyId === null ? SEARCH_COUNTS_PLATFORM : SEARCH_COUNTS,
    [companyId, text],
  );
  const { counts: raw, ...kind } = answer;
  const pattern: Pattern = { ...kind, text };
  const byStatus = raw.map((count) => ({ ...count, messages: Number(count.messages) }));
  const done = async (n: number, more: boolean, keys: readonly Match[]) => ({
    byStatus,
    searched: { n, more },
    rows: await pageRows(db, keys),
  });
  const filtered = direction !== null || statuses !== null;

  if (!filtered && pattern.three) {
    // A company's messages holding the text as a whole word (the word index, read alone) hold it:
    // more than `cap` of them is the answer without the trigram index.
    let more = false;
    if (pattern.whole_word !== null) {
      const [{ n }] = await runStatement<{ n: number }>(db, WORD_COUNT, [
        companyId,
        pattern.whole_word,
        cap + 1,
      ]);
      more = n > cap;
    }
    if (!more) {
      const found = await anyMatches(db, companyId, pattern, cap + 1);
      if (found.length <= cap)
        return done(found.length, false, found.sort(newestFirst).slice(offset, offset + limit));
    }
    // More than `cap`: the page from the word index when it can prove it, else among the newest
    // messages, else planned for the pattern.
    const wanted = offset + limit;
    let keys: Match[] =
      pattern.whole_word !== null && companyId !== null
        ? await messagesHoldingWord(db, companyId, pattern.whole_word, wanted)
        : [];
    if (keys.length === 0) keys = await recentMatches(db, companyId, pattern, wanted, RECENT_MESSAGES);
    if (keys.length < wanted) {
      await resetPlans(db);
      keys = await newestMatches(db, companyId, pattern, wanted);
    }
    return done(cap + 1, true, keys.slice(offset, wanted));
  }

  await resetPlans(db);
  const of = { direction, statuses: statuses === null ? null : [...statuses] };
  let counted: number;
  let more: boolean;
  if (!filtered) {
    counted = await countMatches(db, companyId, pattern, cap + 1);
    more = counted > cap;
  } else {
    const window = Math.max(cap + 1, WINDOW);
    const { rows } = await sql<{ n: number; more: boolean }>`
      select count(m.id)::int as n, count(*) >= ${window} as more
        from (${await newestMatchesQuery(db, companyId, pattern, window)}) s
        left join messages m on m.company_id = s.company_id and m.id = s.message_id
         and (${of.direction}::text is null or m.direction = ${of.direction}::text)
         and (${of.statuses}::text[] is null or m.status = any(${of.statuses}::text[]))`.execute(db);
    counted = rows[0].n;
    more = rows[0].more;
  }
  const exact = counted <= cap && !more;
  if (exact && offset >= counted) return done(counted, more, []);
  const matches = await newestMatchesQuery(
    db,
    companyId,
    pattern,
    Math.max(offset + limit, filtered ? WINDOW : 0),
    exact,
  );
  const { rows: page } = await sql<Match>`
    select s.company_id, s.message_id, s.created_at
      from (${matches}) s
      join messages m on m.company_id = s.company_id and m.id = s.message_id
     where (${of.direction}::text is null or m.direction = ${of.direction}::text)
       and (${of.statuses}::text[] is null or m.status = any(${of.statuses}::text[]))
     order by s.created_at desc, s.message_id desc
    offset ${offset} limit ${limit}`.execute(db);
  return done(counted, more, page);
}

function cappedCount(n: number, more: boolean, cap: number): CappedCount {
  return n > cap ? { total: cap, exact: false } : { total: n, exact: !more };
}
