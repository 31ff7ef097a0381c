import { sql } from 'kysely';
import { type Executor, namedStatement } from '../../db/database.ts';
import { runStatement } from '../../lib/planned-once.ts';
import { messagesHoldingWord } from '../messages/message-search.repository.ts';

export type Scope = number | null;

const forCompany = (column: string, companyId: Scope) =>
  companyId === null ? sql`true` : sql`${sql.ref(column)} = ${companyId}`;

/** A LIKE pattern that matches the text anywhere, with LIKE's own characters taken literally. */
export function containsPattern(text: string) {
  return `%${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
}

function startsPattern(text: string) {
  return `${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * How many of the newest rows the first pass reads. A text found often is found among them (the
 * newest matches, at the price of a short index walk); a rare one falls through to the trigram
 * index, which is fast exactly when matches are few.
 */
const RECENT_WINDOW = 1_000;
/** Messages read per company for the driving word before the other words are checked. */
const CANDIDATES = 200;

type ServiceHitRow = {
  id: number;
  name: string;
  shortcode: string;
  keyword: string;
  status: string;
  company_name: string;
};

/**
 * The first pass: services (few per company: one pass over the company's, names or keywords that
 * start with the text first) whose name, short code or keyword holds the text, and messages that
 * hold it: for a company's search of one word, the newest from the word index when it can prove
 * them every one (`complete`: the search looks no further), else those among the newest
 * RECENT_WINDOW. A kind asked for as false is left out.
 */
export async function searchFirstPass(
  db: Executor,
  companyId: Scope,
  text: string,
  kinds: { services: boolean; messages: boolean },
  limit: number,
) {
  const services = kinds.services ? await searchServices(db, companyId, text, limit) : [];
  if (!kinds.messages) return { services, messages: [], messagesComplete: false };
  const byWord = companyId === null ? [] : await newestHoldingWord(db, companyId, text.toLowerCase(), limit);
  if (byWord.length > 0) return { services, messages: byWord, messagesComplete: true };
  return { services, messages: await newestHolding(db, companyId, text, limit), messagesComplete: false };
}

// Named statements (db/database.ts): parsed once per connection, and planned once when PostgreSQL
// finds their plan for any value as good (plan_cache_mode auto). $1 the company (or none), $2 what
// the text is in, $3 what it starts with, $4 the limit.
const servicesMatching = (company: string) => `
  select s.id, s.name, s.shortcode, s.keyword, s.status, c.name as company_name
    from services s join companies c on c.id = s.company_id
   where ${company}
     and (lower(s.name) like $2::text or lower(s.shortcode) like $2::text or lower(s.keyword) like $2::text)
   order by (lower(s.name) like $3::text or lower(s.keyword) like $3::text) desc, s.name, s.id
   limit $4::int`;
const COMPANY_SERVICES_MATCHING = namedStatement(
  'search_services',
  servicesMatching('s.company_id = $1::bigint'),
);
const SERVICES_MATCHING = namedStatement('search_services_platform', servicesMatching('$1::bigint is null'));

function searchServices(db: Executor, companyId: Scope, text: string, limit: number) {
  return runStatement<ServiceHitRow>(db, companyId === null ? SERVICES_MATCHING : COMPANY_SERVICES_MATCHING, [
    companyId,
    containsPattern(text),
    startsPattern(text),
    limit,
  ]);
}

// The messages named by their keys, newest first. $1 their companies, $2 their ids.
const MESSAGE_HITS = namedStatement(
  'search_message_hits',
  `select m.id, m.content, m.direction, m.status, m.created_at, c.name as company_name
     from unnest($1::bigint[], $2::bigint[]) k(company_id, id)
     join messages m on m.company_id = k.company_id and m.id = k.id
     join companies c on c.id = m.company_id
    order by m.created_at desc, m.id desc`,
);

/**
 * A company's newest messages holding the word, from the word index with those of the longer words
 * holding it, when the word index can prove them every such message (else none).
 */
async function newestHoldingWord(db: Executor, companyId: number, word: string, limit: number) {
  const keys = await messagesHoldingWord(db, companyId, word, limit);
  if (keys.length === 0) return [];
  return runStatement<MessageHitRow>(db, MESSAGE_HITS, [
    keys.map((key) => key.company_id),
    keys.map((key) => key.message_id),
  ]);
}

/** Messages holding the text among the newest RECENT_WINDOW (a common text is found there). */
async function newestHolding(db: Executor, companyId: Scope, text: string, limit: number) {
  const { rows } = await sql<MessageHitRow>`
    select r.id, r.content, r.direction, r.status, r.created_at, c.name as company_name
      from (select m.id, m.company_id, m.content, m.direction, m.status, m.created_at from messages m
             where ${forCompany('m.company_id', companyId)}
             order by m.created_at desc, m.id desc limit ${RECENT_WINDOW}) r
      join companies c on c.id = r.company_id
     where lower(r.content) like ${containsPattern(text)}
     order by r.created_at desc, r.id desc
     limit ${limit}`.execute(db);
  return rows;
}

export async function searchSubscribers(
  db: Executor,
  companyId: Scope,
  digits: string,
  prefixes: string[],
  limit: number,
) {
  const pattern = `%${digits}%`;
  // Across every company, each one's newest from its own (company_id, id) key, merged: ordering
  // all companies' rows by id alone read and sorted the whole table (the key leads with company_id).
  const newest =
    companyId === null
      ? sql`select k.* from companies e
              cross join lateral (select id, company_id, msisdn, status from subscribers
                                   where company_id = e.id order by id desc limit ${RECENT_WINDOW}) k
             order by k.id desc limit ${RECENT_WINDOW}`
      : sql`select id, company_id, msisdn, status from subscribers
             where company_id = ${companyId} order by company_id, id desc limit ${RECENT_WINDOW}`;
  const recent = await sql<SubscriberHitRow>`
    select r.id, r.msisdn, r.status, c.name as company_name
      from (${newest}) r
      join companies c on c.id = r.company_id
     where r.msisdn like ${pattern}
     order by r.id desc
     limit ${limit}`.execute(db);
  if (recent.rows.length >= limit) return recent.rows;
  // Then the numbers that start with the digits as typed (national or international), through a
  // byte-order range, which row-level security lets the index serve (a LIKE it would not).
  const found = new Map(recent.rows.map((row) => [row.id, row]));
  for (const prefix of prefixes) {
    const { rows } = await sql<SubscriberHitRow>`
      select s.id, s.msisdn, s.status, c.name as company_name
        from companies c
        cross join lateral (
          select id, msisdn, status from subscribers
           where company_id = c.id
             and (msisdn collate "C") >= ${prefix} and (msisdn collate "C") < ${`${prefix}\u{10FFFF}`}
           order by (msisdn collate "C")
           limit ${limit}) s
       where ${forCompany('c.id', companyId)}
       order by s.msisdn collate "C"
       limit ${limit}`.execute(db);
    for (const row of rows) if (found.size < limit) found.set(row.id, row);
  }
  if (found.size >= limit) return [...found.values()];
  // Then the numbers that end with the digits (the last digits people read off a screen), through
  // the same kind of range on 0012's reversed copy of the number, as the Subscribers search does.
  const reversed = [...digits].reverse().join('');
  const { rows } = await sql<SubscriberHitRow>`
    select s.id, s.msisdn, s.status, c.name as company_name
      from companies c
      cross join lateral (
        select id, msisdn, status from subscribers
         where company_id = c.id
           and (msisdn_reversed collate "C") >= ${reversed}
           and (msisdn_reversed collate "C") < ${`${reversed}\u{10FFFF}`}
         order by (msisdn_reversed collate "C")
         limit ${limit}) s
     where ${forCompany('c.id', companyId)}
     order by s.id desc
     limit ${limit}`.execute(db);
  for (const row of rows) if (found.size < limit) found.set(row.id, row);
  return [...found.values()];
}

type CompanyHitRow = { id: number; name: string; status: string };

/** Companies whose name holds the text, names that start with it first (system_admin only: the service asks). */
export async function searchCompanies(db: Executor, text: string, limit: number) {
  const { rows } = await sql<CompanyHitRow>`
    select id, name, status from companies
     where lower(name) like ${containsPattern(text)}
     order by lower(name) like ${startsPattern(text)} desc, name, id
     limit ${limit}`.execute(db);
  return rows;
}

type UserHitRow = { id: number; name: string; email: string; role: string; company_name: string | null };

/** Users whose name or e-mail holds the text (system_admin only: the service asks). */
export async function searchUsers(db: Executor, text: string, limit: number) {
  const pattern = containsPattern(text);
  const { rows } = await sql<UserHitRow>`
    select u.id, u.name, u.email, u.role, c.name as company_name
      from users u
      left join companies c on c.id = u.company_id
     where lower(u.name) like ${pattern} or lower(u.email) like ${pattern}
     order by (lower(u.name) like ${startsPattern(text)} or lower(u.email) like ${startsPattern(text)}) desc,
              u.name, u.id
     limit ${limit}`.execute(db);
  return rows;
}

type SubscriberHitRow = { id: number; msisdn: string; status: string; company_name: string };

type MessageHitRow = {
  id: number;
  content: string;
  direction: string;
  status: string;
  created_at: Date;
  company_name: string;
};

/**
 * Messages whose content holds the text: those the first pass found (`first`), then, while fewer
 * than `limit` and the first pass could not say they are all, older ones by their words.
 */
export async function searchMessages(
  db: Executor,
  companyId: Scope,
  text: string,
  limit: number,
  first: { messages: MessageHitRow[]; messagesComplete: boolean },
) {
  if (first.messages.length >= limit || first.messagesComplete) return first.messages;
  // Then older messages by their words (message_search_words): the query's longest word as a
  // leading part drives a byte-order range on the index; the other words must appear too.
  const words = await sql<{
    word: string;
  }>`select word from search_words(${text}) as w(word) order by length(word) desc`.execute(db);
  if (words.rows.length === 0) return first.messages;
  const [driving, ...others] = words.rows.map((row) => row.word);
  const { rows } = await sql<MessageHitRow>`
    select m.id, m.content, m.direction, m.status, m.created_at, c.name as company_name
      from companies c
      cross join lateral (
        select x.message_id, x.created_at from message_search_words x
         where x.company_id = c.id and x.word >= ${driving} and x.word < ${`${driving}\u{10FFFF}`}
         order by x.created_at desc, x.message_id desc
         limit ${CANDIDATES}) hit
      join messages m on m.company_id = c.id and m.id = hit.message_id
     where ${forCompany('c.id', companyId)}
       and lower(m.content) like all(${others.map(containsPattern)}::text[])
     order by hit.created_at desc, m.id desc
     limit ${limit}`.execute(db);
  const found = new Map(first.messages.map((row) => [row.id, row]));
  for (const row of rows) if (found.size < limit) found.set(row.id, row);
  return [...found.values()].sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || b.id - a.id);
}
