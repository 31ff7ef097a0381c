import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/*
 * An import goes through two temporary tables of the importing transaction's own session (no
 * row-level security needed: nobody else can see them, and they are dropped at commit or
 * rollback): import_rows takes the file's valid rows as they are read, import_numbers holds each
 * number once with the first line it was on. Everything after the staging is a few set-based
 * statements, whatever the file's size.
 */

export async function createImportStaging(trx: Executor) {
  await sql`create temporary table import_rows (line integer not null, msisdn text not null, attributes jsonb) on commit drop`.execute(
    trx,
  );
}

/** One batch of valid rows, as arrays (a statement per batch, not per row); attributes as JSON text or null. */
export async function stageImportRows(
  trx: Executor,
  lines: number[],
  msisdns: string[],
  attributes: (string | null)[],
) {
  const withAttributes = attributes.some((value) => value !== null);
  await (withAttributes
    ? sql`
    insert into import_rows (line, msisdn, attributes)
    select * from unnest(${lines}::int[], ${msisdns}::text[], ${attributes}::jsonb[])`
    : sql`
    insert into import_rows (line, msisdn)
    select * from unnest(${lines}::int[], ${msisdns}::text[])`
  ).execute(trx);
}

/**
 * Each staged number once, at its first line (with that line's merge fields when the file has
 * some); answers how many distinct numbers the file held.
 */
export async function collapseStagedNumbers(trx: Executor, withAttributes: boolean) {
  await (withAttributes
    ? sql`
    create temporary table import_numbers on commit drop as
    select distinct on (msisdn) msisdn, line, attributes from import_rows order by msisdn, line`
    : sql`
    create temporary table import_numbers on commit drop as
    select msisdn, min(line) as line, null::jsonb as attributes from import_rows group by msisdn`
  ).execute(trx);
  await sql`alter table import_numbers add primary key (msisdn)`.execute(trx);
  // Fresh tables have no statistics: without them the joins below are planned for a few rows.
  await sql`analyze import_numbers`.execute(trx);
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from import_numbers`.execute(trx);
  return rows[0].n;
}

/**
 * Drops the staged numbers the subscriber limit refuses: the new ones past the first `room` in
 * file order. Numbers that take no room stay (already active subscribers of the company, and
 * numbers with any subscription to the service, since an import leaves that subscription as it
 * is). Answers how many were dropped.
 */
export async function dropNumbersPastRoom(trx: Executor, companyId: number, serviceId: number, room: number) {
  const result = await sql`
    with needing_room as (
      select n.msisdn, row_number() over (order by n.line) as rank
        from import_numbers n
       where not exists (
               select 1 from subscribers s
                where s.company_id = ${companyId} and s.msisdn = n.msisdn
                  and (s.status = 'active'
                       or exists (select 1 from subscriptions x
                                   where x.company_id = ${companyId} and x.service_id = ${serviceId}
                                     and x.subscriber_id = s.id)))
    )
    delete from import_numbers n using needing_room r
     where r.msisdn = n.msisdn and r.rank > ${room}
  `.execute(trx);
  return Number(result.numAffectedRows ?? 0);
}

export type StagedImportResult = {
  imported: number;
  alreadySubscribed: number;
  previouslyUnsubscribed: number;
};

/**
 * The staged numbers into the company and the service, in one statement: new numbers become
 * active subscribers (ids in file order) and get their subscription straight from the insert's
 * RETURNING; numbers the company already had get one when they have none to the service.
 * Existing subscriptions are left as they are, so an import never overrides an opt-out.
 *
 * One statement, one snapshot: `known` (the numbers already in the company) is read before the
 * insert adds any. That is exact because every path that creates a subscriber first locks the
 * company row (plans/plan-limits.ts), as the import has done before calling this: no other
 * transaction can add one of these numbers meanwhile.
 */
export async function importStagedNumbers(
  trx: Executor,
  companyId: number,
  serviceId: number,
): Promise<StagedImportResult> {
  const { rows } = await sql<{ imported: number; already: number; previous: number }>`
    with known as materialized (
      select s.id, s.status, n.msisdn from import_numbers n
        join subscribers s on s.company_id = ${companyId} and s.msisdn = n.msisdn
    ),
    added as (
      insert into subscribers (company_id, msisdn, status, attributes)
      select ${companyId}, n.msisdn, 'active', coalesce(n.attributes, '{}') from import_numbers n
       where not exists (select 1 from known k where k.msisdn = n.msisdn)
       order by n.line
      on conflict do nothing
      returning id
    ),
    existing as materialized (
      select x.subscriber_id, x.status from subscriptions x
        join known k on k.id = x.subscriber_id
       where x.company_id = ${companyId} and x.service_id = ${serviceId}
    ),
    unsubscribed_known as materialized (
      select k.id, k.status, k.msisdn from known k
       where not exists (select 1 from existing e where e.subscriber_id = k.id)
    ),
    inserted as (
      insert into subscriptions (company_id, service_id, subscriber_id, status, source)
      select ${companyId}, ${serviceId}, t.id, 'active', 'import'
        from (select id from added union all select id from unsubscribed_known) t
      on conflict do nothing
      returning subscriber_id
    ),
    activated as (
      update subscribers s set status = 'active', attributes = s.attributes || coalesce(n.attributes, '{}'),
                               updated_at = now()
        from unsubscribed_known k join import_numbers n on n.msisdn = k.msisdn
       where s.company_id = ${companyId} and s.id = k.id and k.status <> 'active'
      returning s.id
    ),
    -- A known number's merge fields: the file's values replace those of the same names. (A row
    -- activated above gets them there: one statement updates a row once.)
    relabelled as (
      update subscribers s set attributes = s.attributes || n.attributes, updated_at = now()
        from known k join import_numbers n on n.msisdn = k.msisdn
       where s.company_id = ${companyId} and s.id = k.id and n.attributes is not null
         and not exists (select 1 from unsubscribed_known u where u.id = k.id and u.status <> 'active')
      returning s.id
    )
    select (select count(*) from inserted)::int as imported,
           (select count(*) from existing where status = 'active')::int as already,
           (select count(*) from existing where status <> 'active')::int as previous,
           (select count(*) from activated)::int as activated,
           (select count(*) from relabelled)::int as relabelled
  `.execute(trx);
  const row = rows[0];
  return { imported: row.imported, alreadySubscribed: row.already, previouslyUnsubscribed: row.previous };
}

/**
 * Fresh statistics for the subscriber tables after a bulk import (migration 0013): without them
 * the planner misjudges a company that just grew by thousands, and a send's recipient count took
 * tens of seconds until autovacuum came by.
 */
export async function analyzeSubscriberTables(db: Executor) {
  await sql`select analyze_subscriber_tables()`.execute(db);
}
