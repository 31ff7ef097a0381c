import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import {
  type CappedCount,
  cappedCount,
  countMessagesByStatus,
  MESSAGE_COLUMNS,
  type MessageFilter,
  type MessageRow,
  type StatusCount,
  statusesOf,
} from './message-logs.repository.ts';

/** A filtered search counts and pages among its newest this many matches (MESSAGE_COUNT_CAP + 1). */
const FILTERED_WINDOW = 10_001;
/** A common text's page is looked for among the newest this many messages first. */
const RECENT = 5_000;
/** Text without three letters or digits in a row is looked for among the newest this many only. */
const SHORT_TEXT_WINDOW = 10_000;

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
/** Three letters or digits in a row: the trigram index can look the text up. */
const hasTrigram = (pattern: string) => /[\p{L}\p{N}]{3}/u.test(pattern);
/** Digits, with or without a leading +: the number is searched too. */
const isNumber = (pattern: string) => /^%\+?[0-9]+%$/.test(pattern);

/**
 * The letters and digits (2 or more, the first 40) that follow a separator in a pattern '%<text>%'
 * (the longest such run), or null: a message holding the text has a word beginning with them
 * (search_words splits at spaces and ASCII punctuation). Text with a wildcard or an escape in it is
 * not read this way (a wildcard may stand for the separator).
 */
export function searchWordStart(pattern: string) {
  if (!/^%[^%_\\]+%$/.test(pattern)) return null;
  let longest: string | null = null;
  for (const [, run] of pattern.slice(1, -1).matchAll(/[\s!-/:-@[-`{-~]([a-z0-9]{2,})/g))
    if (longest === null || run.length > longest.length) longest = run;
  return longest?.slice(0, 40) ?? null;
}

type Match = { company_id: number; message_id: number; created_at: Date };

/**
 * message_search_text_matches (db/functions/21): the keys of the matches, read past row-level
 * security by the function, scoped by the binding. Text without a trigram is looked for among the
 * newest SHORT_TEXT_WINDOW; a company's text with a word start, among the messages with a word
 * beginning so (unless only the newest are read).
 */
function matches(
  companyId: number | null,
  pattern: string,
  limit: number,
  order: { newestFirst: boolean; amongNewest?: number },
) {
  const amongNewest = order.amongNewest ?? (hasTrigram(pattern) ? null : SHORT_TEXT_WINDOW);
  const wordStart =
    companyId !== null && amongNewest === null && !isNumber(pattern) ? searchWordStart(pattern) : null;
  return sql`message_search_text_matches(${companyId}::bigint, ${pattern}::text, ${limit}::int,
                                          ${order.newestFirst}, ${amongNewest}::int, ${wordStart}::text)`;
}

/**
 * A company's newest `limit` messages holding `word` (lower-case letters and digits), from the word
 * index with those of the longer words holding it, when message_search_vocabulary_words can prove
 * them every one (else none).
 */
export function newestWithWord(companyId: number, word: string, limit: number) {
  return sql`(select k.company_id, k.message_id, k.created_at
                from (select distinct w.company_id, w.message_id, w.created_at
                        from unnest(message_search_vocabulary_words(${companyId}::bigint, ${word}::text)) x(word)
                        cross join lateral (
                          select w.company_id, w.message_id, w.created_at from message_search_words w
                           where w.company_id = ${companyId} and w.word = x.word
                           order by w.created_at desc, w.message_id desc limit ${limit}) w) k
               order by k.created_at desc, k.message_id desc limit ${limit})`;
}

async function keysOf(db: Executor, from: RawBuilder<unknown>) {
  const { rows } = await sql<Match>`select s.company_id, s.message_id, s.created_at from ${from} s`.execute(
    db,
  );
  return rows;
}

/** The rows of a page named by their keys, in that order, with their company's and service's names. */
async function pageRows(db: Executor, keys: readonly Match[]) {
  if (keys.length === 0) return [];
  const { rows } = await sql<MessageRow>`
    select ${MESSAGE_COLUMNS}
      from unnest(${keys.map((key) => key.company_id)}::bigint[], ${keys.map((key) => key.message_id)}::bigint[])
           with ordinality k(company_id, id, n)
      join messages m on m.company_id = k.company_id and m.id = k.id
      join companies c on c.id = m.company_id
      left join services s on s.company_id = m.company_id and s.id = m.service_id
     order by k.n`.execute(db);
  return rows;
}

const newestFirst = (a: Match, b: Match) =>
  b.created_at.getTime() - a.created_at.getTime() || b.message_id - a.message_id;

/**
 * A searched list: the counters per direction and status, the search's total and one page. The
 * total is counted up to `cap` (see searchCountCap): without another filter over all matches, with
 * one over the newest FILTERED_WINDOW matches, so "not exact" past either. The matches come from
 * message_search_text (a LIKE on messages cannot use an index under row-level security) and are
 * joined to messages under row-level security.
 */
export async function searchMessagesWithCounts(
  db: Executor,
  filter: MessageFilter & { search: string },
  offset: number,
  limit: number,
  cap: number,
): Promise<{ byStatus: StatusCount[]; searched: CappedCount; rows: MessageRow[] }> {
  const { companyId } = filter;
  const statuses = statusesOf(filter);
  const filtered = !!filter.direction || statuses !== null;
  const pattern = likePattern(filter.search);
  const byStatus = await countMessagesByStatus(db, companyId);
  if (!filtered && hasTrigram(pattern)) {
    const { counted, more, keys } = await searchWithoutFilter(db, companyId, pattern, offset, limit, cap);
    return { byStatus, searched: cappedCount({ n: counted, more }, cap), rows: await pageRows(db, keys) };
  }
  const ofFilter = sql`${filter.direction ? sql`and m.direction = ${filter.direction}` : sql``}
                       ${statuses === null ? sql`` : sql`and m.status = any(${[...statuses]}::text[])`}`;
  let counted: number;
  let more: boolean;
  if (!filtered) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from ${matches(companyId, pattern, cap + 1, { newestFirst: false })} s`.execute(
      db,
    );
    counted = rows[0].n;
    more = counted > cap;
  } else {
    const window = Math.max(cap + 1, FILTERED_WINDOW);
    const { rows } = await sql<{ n: number; more: boolean }>`
      select count(m.id)::int as n, count(*) >= ${window} as more
        from ${matches(companyId, pattern, window, { newestFirst: true })} s
        left join messages m on m.company_id = s.company_id and m.id = s.message_id ${ofFilter}`.execute(db);
    ({ n: counted, more } = rows[0]);
  }
  const exact = counted <= cap && !more;
  if (exact && offset >= counted)
    return { byStatus, searched: cappedCount({ n: counted, more }, cap), rows: [] };
  // Known to be few: every match is read, then sorted (a walk of the newest for a rare text is long).
  const found = exact
    ? matches(companyId, pattern, cap + 1, { newestFirst: false })
    : matches(companyId, pattern, Math.max(offset + limit, filtered ? FILTERED_WINDOW : 0), {
        newestFirst: true,
      });
  const { rows } = await sql<MessageRow>`
    select ${MESSAGE_COLUMNS}
      from ${found} k
      join messages m on m.company_id = k.company_id and m.id = k.message_id ${ofFilter}
      join companies c on c.id = m.company_id
      left join services s on s.company_id = m.company_id and s.id = m.service_id
     order by k.created_at desc, k.message_id desc
    offset ${offset} limit ${limit}`.execute(db);
  return { byStatus, searched: cappedCount({ n: counted, more }, cap), rows };
}

/**
 * A search of text with a trigram and no other filter. A company's messages holding the text as a
 * whole word (the word index, read alone) hold it: more than `cap` of them is the answer without
 * the trigram index. Otherwise up to cap + 1 matches say whether there are more; when there are,
 * the page is a word's newest from the word index (when it can prove them every one), else the
 * newest matches among the RECENT newest messages, else the newest matches.
 */
async function searchWithoutFilter(
  db: Executor,
  companyId: number | null,
  pattern: string,
  offset: number,
  limit: number,
  cap: number,
) {
  const wholeWord = companyId !== null && /^%[a-z0-9]{2,40}%$/.test(pattern) ? pattern.slice(1, -1) : null;
  if (wholeWord === null || (await countWithWord(db, companyId as number, wholeWord, cap + 1)) <= cap) {
    const found = await keysOf(db, matches(companyId, pattern, cap + 1, { newestFirst: false }));
    if (found.length <= cap)
      return {
        counted: found.length,
        more: false,
        keys: found.sort(newestFirst).slice(offset, offset + limit),
      };
  }
  const wanted = offset + limit;
  let found =
    wholeWord === null ? [] : await keysOf(db, newestWithWord(companyId as number, wholeWord, wanted));
  if (found.length === 0)
    found = await keysOf(db, matches(companyId, pattern, wanted, { newestFirst: true, amongNewest: RECENT }));
  if (found.length < wanted)
    found = await keysOf(db, matches(companyId, pattern, wanted, { newestFirst: true }));
  return { counted: cap + 1, more: true, keys: found.slice(offset, wanted) };
}

async function countWithWord(db: Executor, companyId: number, word: string, limit: number) {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n
      from (select 1 from message_search_words w where w.company_id = ${companyId} and w.word = ${word}
             limit ${limit}) x`.execute(db);
  return rows[0].n;
}
