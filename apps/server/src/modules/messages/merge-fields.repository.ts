import {
  GSM_BASIC_CHARACTERS,
  GSM_EXTENSION_CHARACTERS,
  type TFieldStats,
} from '@sms/contracts/templates/merge-fields';
import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

const GSM_CHARACTERS = GSM_BASIC_CHARACTERS + GSM_EXTENSION_CHARACTERS;
/** A character beyond the Basic Multilingual Plane: two UTF-16 units (PostgreSQL's length counts one). */
const ASTRAL = '[\\U00010000-\\U0010FFFF]';

/**
 * What the recipients of the services hold for each field, in one statement over them (nothing is
 * loaded into the application: one row per field comes back): the longest value in UTF-16 units
 * (characters beyond the BMP count two, as in the console), the most GSM-7 units among values that
 * stay GSM-7 (extension characters count two), whether any value needs Unicode (a character outside
 * the GSM lists, which translate() deletes), and whether some recipient has none. The recipients'
 * values are made distinct first: a million subscribers hold a few thousand first names, and the
 * character tests (translate over the GSM lists costs microseconds a value) run once per name.
 * Values are stored trimmed (the contracts and the import trim them); '' counts as none.
 */
export async function mergeFieldStats(
  db: Executor,
  companyId: number,
  serviceIds: number[],
  fields: string[],
): Promise<TFieldStats[]> {
  if (fields.length === 0) return [];
  const { rows } = await sql<{
    name: string;
    max_length: number;
    max_gsm_units: number;
    any_unicode: boolean;
    any_missing: boolean;
  }>`
    with recipient_values as (
      select distinct f.name, coalesce(sub.attributes ->> f.name, '') as v
        from subscribers sub
       cross join unnest(${fields}::text[]) as f(name)
       where sub.company_id = ${companyId} and sub.status = 'active'
         and exists (select 1 from subscriptions s
                      where s.company_id = ${companyId} and s.subscriber_id = sub.id
                        and s.service_id = any(${serviceIds}::bigint[]) and s.status = 'active')
    ),
    measured as (
      select name, v, translate(v, ${GSM_CHARACTERS}, '') = '' as gsm from recipient_values where v <> ''
    )
    select f.name,
           coalesce(max(case when octet_length(m.v) = length(m.v) then length(m.v)
                             else length(m.v) + regexp_count(m.v, ${ASTRAL}) end), 0)::int as max_length,
           coalesce(max(length(m.v) * 2 - length(translate(m.v, ${GSM_EXTENSION_CHARACTERS}, ''))) filter (where m.gsm), 0)::int
             as max_gsm_units,
           coalesce(bool_or(not m.gsm), false) as any_unicode,
           exists (select 1 from recipient_values r where r.name = f.name and r.v = '') as any_missing
      from unnest(${fields}::text[]) as f(name)
      left join measured m on m.name = f.name
     where exists (select 1 from recipient_values r where r.name = f.name)
     group by f.name
     order by f.name`.execute(db);
  return rows.map((row) => ({
    name: row.name,
    maxLength: row.max_length,
    maxGsmUnits: row.max_gsm_units,
    anyUnicode: row.any_unicode,
    anyMissing: row.any_missing,
  }));
}
