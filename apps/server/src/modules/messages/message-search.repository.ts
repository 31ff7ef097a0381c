import { sql } from 'kysely';
import { type Executor, namedStatement } from '../../db/database.ts';
import { RESET_PLANS, resetPlans, runStatement } from '../../lib/planned-once.ts';
import {
  type CappedCount,
  type Json,
  MESSAGE_COLUMNS_TEXT,
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
/** How many matched (up to the limit asked for), and a page of them, newest first, by key. */
export type Counted = {
  n: number;
  company_ids: number[];
  message_ids: number[];
  /** The page's rows when every match was counted (n below the limit): generic plans are off then. */
  messages: Json<MessageRow>[] | null;
};

const TEXT_COLUMNS = 't.company_id, t.message_id, t.created_at';
const NEWEST_FIRST = 'order by t.created_at desc, t.message_id desc';

// The page's rows named by their keys, in that order, with their company's and service's names, as
// JSON.
const pageRowsJson = (companyIds: string, messageIds: string) => `
  (select coalesce(json_agg(r order by r.n), '[]')
     from (select k.n, ${MESSAGE_COLUMNS_TEXT}
             from unnest(${companyIds}, ${messageIds}) with ordinality k(company_id, id, n)
             join messages m on m.company_id = k.company_id and m.id = k.id
             join companies c on c.id = m.company_id
             left join services s on s.company_id = m.company_id and s.id = m.service_id) r)`;
// The page's rows; the statement ends the read's generic plans.
const PAGE_ROWS = namedStatement(
  'message_search_page_rows',
  `select ${RESET_PLANS} as reset, ${pageRowsJson('$1::bigint[]', '$2::bigint[]')} as messages`,
);

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

// The counters, and from the pattern's kind (p): the company's messages holding it as a whole word,
// counted up to $3, and the messages of the words its word start begins (up to 257 entries: more
// than 256 reads as "too many to be worth it"), the next string in byte order after them bounding
// the range (a letter or digit is one byte).
const searchCountsOf = (where: string) => `
  select set_config('plan_cache_mode', 'force_generic_plan', true) as generic,
         (select coalesce(json_agg(json_build_object('direction', c.direction, 'status', c.status, 'messages', c.n)), '[]')
            from (select direction, status, sum(messages) as n from message_status_counts ${where}
                   group by direction, status having sum(messages) <> 0) c) as counts,
         p.three, p.numbers, p.whole_word, p.word_start,
         case when p.whole_word is not null
              then (select count(*)::int
                      from (select 1 from message_search_words w
                             where w.company_id = $1::bigint and w.word = p.whole_word limit $3::int) x) end as word_count,
         case when $1::bigint is not null and p.word_start is not null and not p.numbers
              then (select json_build_object('entries', count(*), 'ids', coalesce(array_agg(distinct w.message_id), '{}'))
                      from (select w.message_id from message_search_words w
                             where w.company_id = $1::bigint and w.word >= p.word_start
                               and w.word < left(p.word_start, -1) || chr(ascii(right(p.word_start, 1)) + 1)
                             limit 257) w) end as word_start_entries
    from (select ${PATTERN_KIND}) p`;
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
  /** The word start's candidates when the counters' statement read them (null: none to use). */
  candidates?: number[] | null;
  text: string;
  three: boolean;
  numbers: boolean;
  whole_word: string | null;
  word_start: string | null;
};

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
  if (pattern.candidates !== undefined) return pattern.candidates;
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

// Up to $k matches in no order (the trigram index or the word start's candidates), counted, and the
// page $o, $l of them newest first.
const matchesOf = (where: string, k: number) => `
  select m.n, m.company_ids, m.message_ids,
         case when m.n < $${k}::int then ${RESET_PLANS} end as reset,
         case when m.n < $${k}::int then ${pageRowsJson('m.company_ids', 'm.message_ids')} end as messages
    from (
  select count(*)::int as n,
         coalesce((array_agg(t.company_id ${NEWEST_FIRST}))[$${k + 1}::int + 1 : $${k + 1}::int + $${k + 2}::int], '{}') as company_ids,
         coalesce((array_agg(t.message_id ${NEWEST_FIRST}))[$${k + 1}::int + 1 : $${k + 1}::int + $${k + 2}::int], '{}') as message_ids
    from (select ${TEXT_COLUMNS} from message_search_entries t where ${where} limit $${k}::int) t) m`;
const MATCHES = {
  platformNumbers: namedStatement(
    'message_search_matches_platform_numbers',
    matchesOf('(t.content like $1::text or t.msisdn like $1::text)', 2),
  ),
  platform: namedStatement('message_search_matches_platform', matchesOf('t.content like $1::text', 2)),
  numbers: namedStatement(
    'message_search_matches_numbers',
    matchesOf('t.company_id = $1::bigint and (t.content like $2::text or t.msisdn like $2::text)', 3),
  ),
  candidates: namedStatement(
    'message_search_matches_candidates',
    matchesOf(
      't.company_id = $1::bigint and t.message_id = any($2::bigint[]) and t.content like $3::text',
      4,
    ),
  ),
  company: namedStatement(
    'message_search_matches',
    matchesOf('t.company_id = $1::bigint and t.content like $2::text', 3),
  ),
};

/**
 * How many messages match, up to `limit` (in no order: the search's count when it is small), and
 * the page `offset`, `size` of them, newest first.
 */
export async function countedMatches(
  db: Executor,
  companyId: number | null,
  pattern: Pattern,
  limit: number,
  offset: number,
  size: number,
): Promise<Counted> {
  const run = async (statement: string, values: unknown[]) =>
    (await runStatement<Counted>(db, statement, [...values, limit, offset, size]))[0];
  if (companyId === null)
    return run(pattern.numbers ? MATCHES.platformNumbers : MATCHES.platform, [pattern.text]);
  if (pattern.numbers) return run(MATCHES.numbers, [companyId, pattern.text]);
  const candidates = await wordStartCandidates(db, companyId, pattern);
  return candidates === null
    ? run(MATCHES.company, [companyId, pattern.text])
    : run(MATCHES.candidates, [companyId, candidates, pattern.text]);
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
// at most 16 words holding it), else none.
const WORD_PAGE = namedStatement(
  'message_search_word_page',
  `select k.company_id, k.message_id, k.created_at
     from (select exists (select 1 from message_search_known_words v
                           where v.company_id = $1::bigint and length(v.word) >= 40) as long_words,
                  (select array_agg(v.word)
                     from (select v.word from message_search_known_words v
                            where v.company_id = $1::bigint and v.word like $2::text limit 17) v) as words) p
     cross join lateral (
       select distinct w.company_id, w.message_id, w.created_at
         from unnest(p.words) x(word)
         cross join lateral (select w.company_id, w.message_id, w.created_at from message_search_words w
                              where w.company_id = $1::bigint and w.word = x.word
                              order by w.created_at desc, w.message_id desc limit $3::int) w) k
    where not p.long_words and cardinality(p.words) <= 16
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
  return runStatement<Match>(db, WORD_PAGE, [companyId, `%${word}%`, limit]);
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

async function pageRows(db: Executor, keys: readonly { company_id: number; message_id: number }[]) {
  return pageRowsOf(
    db,
    keys.map((key) => key.company_id),
    keys.map((key) => key.message_id),
  );
}

async function pageRowsOf(db: Executor, companyIds: readonly number[], messageIds: readonly number[]) {
  const [{ messages }] = await runStatement<{ messages: Json<MessageRow>[] }>(db, PAGE_ROWS, [
    companyIds,
    messageIds,
  ]);
  return messages.map(messageRowOf);
}

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
  const [answer] = await runStatement<
    Omit<Pattern, 'text'> & {
      counts: StatusCount[];
      word_count: number | null;
      word_start_entries: { entries: number; ids: number[] } | null;
    }
  >(db, companyId === null ? SEARCH_COUNTS_PLATFORM : SEARCH_COUNTS, [companyId, text, cap + 1]);
  const { counts: raw, word_count, word_start_entries: entries, ...kind } = answer;
  const candidates = entries === null || entries.entries > 256 ? null : entries.ids;
  const pattern: Pattern = { ...kind, text, candidates };
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
    if (word_count === null || word_count <= cap) {
      const found = await countedMatches(db, companyId, pattern, cap + 1, offset, limit);
      if (found.n <= cap) {
        return {
          byStatus,
          searched: { n: found.n, more: false },
          rows: (found.messages ?? []).map(messageRowOf),
        };
      }
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
