import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { type Executor, namedStatement } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { RESET_PLANS, runPlannedOnce } from '../../lib/planned-once.ts';

/** Who to list: companyId null means every company (system_admin). */
export type SubscriberFilter = {
  companyId: number | null;
  status?: string;
  /** The number searched for (see NumberSearch); null or absent: no search. */
  number?: NumberSearch | null;
  /** Only active subscribers of this service. */
  serviceId?: number;
};

const activeServiceIds = (eb: ExpressionBuilder<DB & { s: DB['subscribers'] }, 's'>) =>
  eb
    .selectFrom('subscriptions as x')
    .select(sql<number[]>`coalesce(array_agg(x.service_id order by x.service_id), '{}')::int[]`.as('ids'))
    .whereRef('x.company_id', '=', 's.company_id')
    .whereRef('x.subscriber_id', '=', 's.id')
    .where('x.status', '=', 'active');

/**
 * A phone-number search: numbers that start with one of `prefixes` (the digits as typed, read as an
 * international number and as a national one of the company's country, in E.164) or end with
 * `digits`. Both are byte-order ranges on indexes (0009's number index and 0012's reversed one),
 * which row-level security lets the planner use; a LIKE it would not (LIKE is not leakproof), and
 * the list scanned every number of the company. Fewer than three digits, or digits that no number
 * can hold ('#'), match anywhere: such a search is broad, its first page is found at once.
 */
export type NumberSearch = { digits: string; prefixes: string[] };

const RANGE_END = '\u{10FFFF}';

function numberMatches(column: 's.msisdn' | 's.msisdn_reversed', start: string) {
  return sql<boolean>`(${sql.ref(column)} collate "C") >= ${start} and (${sql.ref(column)} collate "C") < ${`${start}${RANGE_END}`}`;
}

export function matchesNumber(search: NumberSearch) {
  if (search.prefixes.length === 0) return sql<boolean>`s.msisdn like ${`%${search.digits}%`}`;
  const ranges = [
    ...search.prefixes.map((prefix) => numberMatches('s.msisdn', prefix)),
    numberMatches('s.msisdn_reversed', [...search.digits].reverse().join('')),
  ];
  return sql<boolean>`(${sql.join(ranges, sql` or `)})`;
}

function filtered(db: Executor, filter: SubscriberFilter) {
  let query = db.selectFrom('subscribers as s');
  if (filter.companyId !== null) query = query.where('s.company_id', '=', filter.companyId);
  if (filter.status) query = query.where('s.status', '=', filter.status);
  if (filter.number) query = query.where(matchesNumber(filter.number));
  if (filter.serviceId !== undefined) {
    const serviceId = filter.serviceId;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('subscriptions as f')
          .select(sql`1`.as('one'))
          .whereRef('f.company_id', '=', 's.company_id')
          .whereRef('f.subscriber_id', '=', 's.id')
          .where('f.service_id', '=', serviceId)
          .where('f.status', '=', 'active'),
      ),
    );
  }
  return query;
}

/**
 * Across every company (a system admin), newest first: each company's newest `take` come from its
 * own (company_id, ...) index and are merged. Subscribers are keyed by (company_id, id) since
 * migration 0010, so ordering all companies' rows by id alone read and sorted the whole table.
 */
function everyCompanysNewest<O extends { id: number }>(
  db: Executor,
  perCompany: SelectQueryBuilder<DB & { s: DB['subscribers'] }, 's', O>,
  take: number,
) {
  const newest = perCompany.where(sql<boolean>`s.company_id = c.id`).orderBy('s.id', 'desc').limit(take);
  return db
    .selectFrom('companies as c')
    .crossJoinLateral(newest.as('k'))
    .selectAll('k')
    .orderBy(sql`k.id`, 'desc');
}

/**
 * A page, newest first, with the list's total (see countOf): the page's keys and the count in one
 * statement planned for its values (a phone search's ranges differ in how much they match), the
 * offset walked over ids alone (an index-only scan); then the page's rows with their services
 * (subscriberPageRows). A company's whole list: wholeListPage.
 */
export async function listSubscribersWithCount(
  db: Executor,
  filter: SubscriberFilter,
  offset: number,
  limit: number,
  cap: number,
): Promise<{ rows: SubscriberPageRow[]; count: { total: number; exact: boolean } }> {
  const keys = filtered(db, filter).select(['s.company_id', 's.id']);
  const page =
    filter.companyId === null
      ? everyCompanysNewest(db, keys, offset + limit)
          .offset(offset)
          .limit(limit)
      : keys.orderBy('s.id', 'desc').offset(offset).limit(limit);
  const counters = !filter.number && filter.serviceId === undefined;
  const { rows } = await sql<{ company_ids: number[]; ids: number[]; n: number }>`
    select k.company_ids, k.ids, ${countOf(db, filter, cap)}::bigint as n
      from (select coalesce(array_agg(p.company_id order by p.id desc), '{}') as company_ids,
                   coalesce(array_agg(p.id order by p.id desc), '{}') as ids
              from ${page} p) k`.execute(db);
  const { company_ids, ids, n } = rows[0];
  const count = counters
    ? { total: Number(n), exact: true }
    : Number(n) > cap
      ? { total: cap, exact: false }
      : { total: Number(n), exact: true };
  return { rows: ids.length === 0 ? [] : await subscriberPageRows(db, company_ids, ids), count };
}

/**
 * The total for a filter. Without a phone search or service it is read from the per-status
 * counters (exact, one row per company); otherwise counting stops after `cap` matches (cap + 1
 * counted says "more").
 */
function countOf(db: Executor, filter: SubscriberFilter, cap: number) {
  if (!filter.number && filter.serviceId === undefined) {
    let query = db
      .selectFrom('company_subscriber_counts')
      .select(sql<number>`coalesce(sum(subscriber_count), 0)::bigint`.as('total'));
    if (filter.companyId !== null) query = query.where('company_id', '=', filter.companyId);
    if (filter.status) query = query.where('status', '=', filter.status);
    return query;
  }
  return db
    .selectFrom(
      filtered(db, filter)
        .select(sql`1`.as('one'))
        .limit(cap + 1)
        .as('m'),
    )
    .select(sql<number>`count(*)::int`.as('n'));
}

/** A subscriber row as the lists show it: its company's name, its merge fields and its active services, ascending. */
const PAGE_COLUMNS =
  's.id, s.msisdn, s.status, s.company_id, c.name as company_name, s.created_at, s.attributes';
const PAGE_ROW = `${PAGE_COLUMNS},
  coalesce((select array_agg(x.service_id order by x.service_id) from subscriptions x
             where x.company_id = s.company_id and x.subscriber_id = s.id and x.status = 'active'),
           '{}')::int[] as active_services`;

/** The rows of a page of subscribers named by their keys, in that order. */
async function subscriberPageRows(db: Executor, companyIds: number[], ids: number[]) {
  const { rows } = await sql<SubscriberPageRow>`
    select ${sql.raw(PAGE_ROW)}
      from unnest(${companyIds}::bigint[], ${ids}::bigint[]) with ordinality k(company_id, id, n)
      join subscribers s on s.company_id = k.company_id and s.id = k.id
      join companies c on c.id = s.company_id
     order by k.n`.execute(db);
  return rows;
}

export type SubscriberPageRow = {
  id: number;
  msisdn: string;
  status: string;
  company_id: number;
  company_name: string;
  created_at: Date;
  attributes: Record<string, string>;
  active_services: number[];
};

/** A page of a company's whole list with the list's state: its exact total and its newest id. */
export type SubscriberPage = { total: number; newest: number | null; rows: SubscriberPageRow[] };

/**
 * A page of a company's whole list (no filter), newest first, from the top or from a remembered
 * id (at or below it), with the list's exact total (the per-status counters) and newest id, in one
 * statement: the page is read in the snapshot of the state it is returned with. The offset is
 * walked over the company's (company_id, id) key alone (an index-only scan) into an array. The
 * page's rows are then the company's rows from its top id down to its bottom one (the walk is that
 * key in order: one range of it, a few heap pages), and their active services one set for the
 * page, joined by hash: a lookup by id and a services subquery per row took twice the database's
 * time of the whole read. Each `offset 0` keeps its subquery whole: the walk runs once, and the
 * bounds are plain values, which row-level security lets into the index's condition (an
 * expression such as cardinality(...) or coalesce(...) it keeps out, and the range became a filter
 * over the company's rows). A named statement planned once per connection for any company
 * (lib/planned-once.ts): each step is read once whatever the plan. The company's row unseen: no rows.
 */
const WHOLE_LIST_PAGE = namedStatement(
  'subscriber_whole_list_page',
  `select ${RESET_PLANS} as reset, h.total, h.newest, r.*
     from (select w.total, w.newest, w.ids, w.ids[1] as top_id, w.ids[cardinality(w.ids)] as bottom_id
             from (select (select coalesce(sum(subscriber_count), 0)::bigint from company_subscriber_counts
                            where company_id = $1::bigint) as total,
                          (select max(id) from subscribers where company_id = $1::bigint) as newest,
                          array(select k.id from subscribers k
                                 where k.company_id = $1::bigint and k.id <= $2::bigint
                                 order by k.id desc offset $3::int limit $4::int) as ids
                   offset 0) w
           offset 0) h
     left join lateral (
       select ${PAGE_COLUMNS}, coalesce(a.services, '{}')::int[] as active_services
         from subscribers s
         join companies c on c.id = s.company_id
         left join (select x.subscriber_id, array_agg(x.service_id order by x.service_id) as services
                      from subscriptions x
                     where x.company_id = $1::bigint and x.subscriber_id = any(h.ids) and x.status = 'active'
                     group by x.subscriber_id) a on a.subscriber_id = s.id
        where s.company_id = $1::bigint and s.id <= h.top_id and s.id >= h.bottom_id) r on true
    order by r.id desc`,
);

export async function wholeListPage(
  db: Executor,
  companyId: number,
  offset: number,
  limit: number,
  atOrBelowId: number | null,
): Promise<SubscriberPage> {
  const rows = await runPlannedOnce<
    { reset: unknown; total: number; newest: number | null } & Nullable<SubscriberPageRow>
  >(
    db,
    WHOLE_LIST_PAGE,
    // Ids stay below 2^53 (db/database.ts): the top of the list is at or below the largest.
    [companyId, atOrBelowId ?? Number.MAX_SAFE_INTEGER, offset, limit],
  );
  const { total, newest } = rows[0];
  // The rows keep the statement's other columns, which presentSubscriber leaves out.
  const subscribers = rows.filter((row): row is (typeof rows)[number] & SubscriberPageRow => row.id !== null);
  return { total, newest, rows: subscribers };
}

type Nullable<T> = { [K in keyof T]: T[K] | null };

const firstInRange = (column: string, from: number) => `
  (select s.id from subscribers s
    where s.company_id = $1::bigint and (${column} collate "C") >= $${from}::text
      and (${column} collate "C") < $${from + 1}::text
    limit $8::int)`;
// $1 the company; $2-$7 the three ranges (start, end); $8 few + 1; $9 offset; $10 limit. One row
// at least, which ends the generic plans: the company's country (null: unseen) and the matches.
const NUMBER_SEARCH_PAGE = namedStatement(
  'subscriber_number_search_page',
  `select ${RESET_PLANS} as reset, f.country, cardinality(f.found) as total, r.*
     from (select c.default_country as country,
                  array(select distinct x.id
                          from (${firstInRange('s.msisdn', 2)} union all ${firstInRange('s.msisdn', 4)}
                                union all ${firstInRange('s.msisdn_reversed', 6)}) x
                         order by x.id desc) as found
             from (select) one left join companies c on c.id = $1::bigint) f
     left join lateral (
       select ${PAGE_ROW}
         from unnest(f.found[$9::int + 1 : $9::int + $10::int]) p(id)
         join subscribers s on s.company_id = $1::bigint and s.id = p.id
         join companies c on c.id = s.company_id
        where cardinality(f.found) < $8::int) r on true
    order by r.id desc`,
);

/**
 * A company's phone search (no other filter) when it has at most `few` matches: its numbers that
 * start with either prefix or end with the digits, newest first, with the search's exact total.
 * Each range's first few + 1 are read by its index (a bitmap of the three would read every match
 * of a broad beginning before the limit): when none is cut short, these are every match.
 * `country` is the company's default country the prefixes were made for: when the company's is
 * another, the answer is that country and nothing else (make the prefixes again). A search with
 * more than `few` matches is broad: read it with listSubscribersWithCount.
 */
export async function searchCompanyNumbers(
  db: Executor,
  companyId: number,
  country: string | null,
  search: NumberSearch,
  offset: number,
  limit: number,
  few: number,
): Promise<
  | { kind: 'page'; total: number; rows: SubscriberPageRow[] }
  | { kind: 'country'; country: string | null }
  | { kind: 'broad' }
> {
  const [first, second = first] = search.prefixes;
  const reversed = [...search.digits].reverse().join('');
  const range = (start: string) => [start, `${start}${RANGE_END}`];
  const rows = await runPlannedOnce<
    { reset: unknown; country: string | null; total: number } & Nullable<SubscriberPageRow>
  >(db, NUMBER_SEARCH_PAGE, [
    companyId,
    ...range(first),
    ...range(second),
    ...range(reversed),
    few + 1,
    offset,
    limit,
  ]);
  const { country: companys, total } = rows[0];
  if (companys !== country) return { kind: 'country', country: companys };
  // A range cut short holds few + 1 of them: more than few in all.
  if (total > few) return { kind: 'broad' };
  const page = rows.filter((row): row is (typeof rows)[number] & SubscriberPageRow => row.id !== null);
  return { kind: 'page', total, rows: page };
}

/** What the API shows of a subscriber, for the ids a query picks (a page, or one number). */
function subscriberDetails<TDatabase, TTables extends keyof TDatabase>(
  db: Executor,
  ids: SelectQueryBuilder<TDatabase, TTables, { company_id: number; id: number }>,
) {
  // Subscribers are keyed by (company_id, id) since migration 0010: both, so the key serves.
  return db
    .selectFrom(ids.as('p'))
    .innerJoin('subscribers as s', (join) =>
      join.onRef('s.company_id', '=', 'p.company_id').onRef('s.id', '=', 'p.id'),
    )
    .innerJoin('companies as c', 'c.id', 's.company_id')
    .select((eb) => [
      's.id',
      's.msisdn',
      's.status',
      's.company_id',
      'c.name as company_name',
      's.created_at',
      's.attributes',
      activeServiceIds(eb).as('active_services'),
    ]);
}

/** Keyset batches for the export: every matching row, newest first, `size` at a time. */
/**
 * The merge fields the filter's subscribers hold, by name: the export's columns after its own. One
 * pass over the filtered rows, in the same shape as the export's own read of them.
 */
export async function exportFieldNames(db: Executor, filter: SubscriberFilter) {
  const rows = await db
    .selectFrom(
      filtered(db, filter)
        .where('s.attributes', '<>', sql<Record<string, string>>`'{}'::jsonb`)
        .select(sql<string>`jsonb_object_keys(s.attributes)`.as('name'))
        .as('f'),
    )
    .select('f.name')
    .distinct()
    .orderBy('f.name')
    .execute();
  return rows.map((row) => row.name);
}

export function exportBatch(db: Executor, filter: SubscriberFilter, beforeId: number | null, size: number) {
  let rows = filtered(db, filter).select([
    's.id',
    's.msisdn',
    's.status',
    's.company_id',
    's.created_at',
    's.attributes',
  ]);
  if (beforeId !== null) rows = rows.where('s.id', '<', beforeId);
  const page =
    filter.companyId === null
      ? everyCompanysNewest(db, rows, size).limit(size)
      : rows.orderBy('s.id', 'desc').limit(size);
  // Names joined once per batch, not looked up row by row; by the tables' keys, company first.
  return db
    .selectFrom(page.as('p'))
    .innerJoin('companies as c', 'c.id', 'p.company_id')
    .leftJoin('subscriptions as x', (join) =>
      join
        .onRef('x.company_id', '=', 'p.company_id')
        .onRef('x.subscriber_id', '=', 'p.id')
        .on('x.status', '=', 'active'),
    )
    .leftJoin('services as sv', (join) =>
      join.onRef('sv.company_id', '=', 'x.company_id').onRef('sv.id', '=', 'x.service_id'),
    )
    .select([
      'p.id',
      'p.msisdn',
      'p.status',
      'p.created_at',
      'p.attributes',
      'c.name as company_name',
      sql<string>`coalesce(string_agg(sv.name, '; ' order by sv.name), '')`.as('active_service_names'),
    ])
    .groupBy(['p.id', 'p.msisdn', 'p.status', 'p.created_at', 'p.attributes', 'c.name'])
    .orderBy('p.id', 'desc')
    .execute();
}

/** A service's subscribers; companyId is the service's own (its subscriptions and subscribers are keyed by it). */
export type ServiceSubscriberFilter = {
  companyId: number;
  serviceId: number;
  status: string;
  number?: NumberSearch | null;
};

function serviceSubscribers(db: Executor, filter: ServiceSubscriberFilter) {
  let query = db
    .selectFrom('subscriptions as x')
    .innerJoin('subscribers as s', (join) =>
      join.onRef('s.company_id', '=', 'x.company_id').onRef('s.id', '=', 'x.subscriber_id'),
    )
    .where('x.company_id', '=', filter.companyId)
    .where('x.service_id', '=', filter.serviceId)
    .where('x.status', '=', filter.status);
  if (filter.number) query = query.where(matchesNumber(filter.number));
  return query;
}

export function listServiceSubscribers(
  db: Executor,
  filter: ServiceSubscriberFilter,
  offset: number,
  limit: number,
) {
  const page = serviceSubscribers(db, filter)
    .select(['x.company_id', 'x.subscriber_id as id'])
    .orderBy('x.subscriber_id', 'desc')
    .offset(offset)
    .limit(limit);
  return db
    .selectFrom(page.as('p'))
    .innerJoin('subscribers as s', (join) =>
      join.onRef('s.company_id', '=', 'p.company_id').onRef('s.id', '=', 'p.id'),
    )
    .innerJoin('companies as c', 'c.id', 's.company_id')
    .innerJoin('subscriptions as x', (join) =>
      join
        .onRef('x.company_id', '=', 'p.company_id')
        .on('x.service_id', '=', filter.serviceId)
        .onRef('x.subscriber_id', '=', 'p.id'),
    )
    .select((eb) => [
      's.id',
      's.msisdn',
      's.status',
      's.company_id',
      'c.name as company_name',
      's.created_at',
      's.attributes',
      'x.status as subscription_status',
      'x.source',
      'x.subscribed_at',
      'x.unsubscribed_at',
      activeServiceIds(eb).as('active_services'),
    ])
    .orderBy('s.id', 'desc')
    .execute();
}

export async function countServiceSubscribers(
  db: Executor,
  filter: ServiceSubscriberFilter & { activeCount: number },
  cap: number,
) {
  if (!filter.number && filter.status === 'active') return { total: filter.activeCount, exact: true };
  return countUpTo(db, serviceSubscribers(db, filter), cap);
}

/** Counts a query's rows but stops after `cap`: a broad search must not count millions per page view. */
async function countUpTo<TDatabase, TTables extends keyof TDatabase>(
  db: Executor,
  query: SelectQueryBuilder<TDatabase, TTables, object>,
  cap: number,
) {
  const row = await db
    .selectFrom(
      query
        .select(sql`1`.as('one'))
        .limit(cap + 1)
        .as('m'),
    )
    .select(sql<number>`count(*)::int`.as('n'))
    .executeTakeFirstOrThrow();
  return row.n > cap ? { total: cap, exact: false } : { total: row.n, exact: true };
}

export function findCompanyCountry(db: Executor, companyId: number) {
  return db
    .selectFrom('companies')
    .select('default_country')
    .where('id', '=', companyId)
    .executeTakeFirst()
    .then((row) => row?.default_country ?? null);
}

/** One subscriber by id, in the scope (companyId null: any company's, a system_admin's). */
export function findSubscriberById(db: Executor, companyId: number | null, id: number) {
  let ids = db.selectFrom('subscribers').select(['company_id', 'id']).where('id', '=', id);
  if (companyId !== null) ids = ids.where('company_id', '=', companyId);
  return subscriberDetails(db, ids).executeTakeFirst();
}

/** Replaces a subscriber's attributes (checked by the contracts' ZSubscriberAttributes). */
export async function updateAttributes(
  db: Executor,
  companyId: number,
  id: number,
  attributes: Record<string, string>,
) {
  await db
    .updateTable('subscribers')
    .set({ attributes: JSON.stringify(attributes), updated_at: new Date() })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .execute();
}

export function findSubscriber(db: Executor, companyId: number, msisdn: string) {
  const ids = db
    .selectFrom('subscribers')
    .select(['company_id', 'id'])
    .where('company_id', '=', companyId)
    .where('msisdn', '=', msisdn);
  return subscriberDetails(db, ids).executeTakeFirst();
}

/** The subscriber's id, creating an active one when the number is new to the company. */
export async function ensureSubscriber(db: Executor, companyId: number, msisdn: string) {
  const inserted = await db
    .insertInto('subscribers')
    .values({ company_id: companyId, msisdn, status: 'active' })
    .onConflict((conflict) => conflict.columns(['company_id', 'msisdn']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return inserted.id;
  const existing = await db
    .selectFrom('subscribers')
    .select('id')
    .where('company_id', '=', companyId)
    .where('msisdn', '=', msisdn)
    .executeTakeFirstOrThrow();
  return existing.id;
}

/** Makes the subscription active; false when it already was (nothing changes then). */
export async function activateSubscription(
  db: Executor,
  companyId: number,
  serviceId: number,
  subscriberId: number,
  source: string,
) {
  const row = await db
    .insertInto('subscriptions')
    .values({
      company_id: companyId,
      service_id: serviceId,
      subscriber_id: subscriberId,
      status: 'active',
      source,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['company_id', 'service_id', 'subscriber_id'])
        .doUpdateSet({ status: 'active', source, subscribed_at: new Date(), unsubscribed_at: null })
        .where('subscriptions.status', '<>', 'active'),
    )
    .returning('service_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Ends the subscriber's active subscriptions to these services (all of the company's when null). */
export async function endSubscriptions(
  db: Executor,
  companyId: number,
  subscriberId: number,
  serviceIds: number[] | null,
) {
  let query = db
    .updateTable('subscriptions')
    .set({ status: 'unsubscribed', unsubscribed_at: new Date() })
    .where('company_id', '=', companyId)
    .where('subscriber_id', '=', subscriberId)
    .where('status', '=', 'active');
  if (serviceIds !== null) {
    if (serviceIds.length === 0) return [];
    query = query.where('service_id', 'in', serviceIds);
  }
  const rows = await query.returning('service_id').execute();
  return rows.map((row) => row.service_id);
}

/** A subscriber's status follows their subscriptions: active with at least one, else unsubscribed. */
export async function refreshSubscriberStatus(db: Executor, companyId: number, subscriberId: number) {
  await sql`
    update subscribers s
       set status = d.next, updated_at = now()
      from (select case when exists (
                     select 1 from subscriptions x
                      where x.company_id = ${companyId} and x.subscriber_id = ${subscriberId} and x.status = 'active')
                   then 'active' else 'unsubscribed' end as next) d
     where s.company_id = ${companyId} and s.id = ${subscriberId} and s.status <> d.next
  `.execute(db);
}
