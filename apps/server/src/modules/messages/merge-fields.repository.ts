import type { TMergePreviewRecipient } from '@sms/contracts/messages/merge-preview';
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
 * What the recipients of the services hold for each field, in one pass over their subscriptions
 * (a number on several of the services is seen more than once, which a maximum does not mind):
 * the longest value in UTF-16 units (characters beyond the BMP count two, as in the console), the
 * most GSM-7 units among values that stay GSM-7 (extension characters count two), whether any
 * value needs Unicode (a character outside the GSM lists, which translate() deletes), and whether
 * some recipient has none. Nothing is loaded into the application: one row per field comes back.
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
    select f.name,
           coalesce(max(case when octet_length(x.v) = length(x.v) then length(x.v)
                             else length(x.v) + regexp_count(x.v, ${ASTRAL}) end), 0)::int as max_length,
           coalesce(max(length(x.v) * 2 - length(translate(x.v, ${GSM_EXTENSION_CHARACTERS}, '')))
                      filter (where translate(x.v, ${GSM_CHARACTERS}, '') = ''), 0)::int as max_gsm_units,
           coalesce(bool_or(translate(x.v, ${GSM_CHARACTERS}, '') <> ''), false) as any_unicode,
           coalesce(bool_or(x.v is null), false) as any_missing
      from subscriptions s
      join subscribers sub on sub.company_id = s.company_id and sub.id = s.subscriber_id and sub.status = 'active'
     cross join unnest(${fields}::text[]) as f(name)
     cross join lateral (select nullif(btrim(sub.attributes ->> f.name), '') as v) x
     where s.company_id = ${companyId} and s.service_id = any(${serviceIds}::bigint[]) and s.status = 'active'
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

/** The first few recipients by subscriber id, with their attributes: a personalised send's preview. */
export async function sampleRecipientsWithAttributes(
  db: Executor,
  companyId: number,
  serviceIds: number[],
  limit: number,
): Promise<TMergePreviewRecipient[]> {
  const { rows } = await sql<TMergePreviewRecipient>`
    select sub.id, sub.msisdn, sub.attributes
      from subscribers sub
     where sub.id in (
       select s.subscriber_id from subscriptions s
        where s.company_id = ${companyId} and s.service_id = any(${serviceIds}::bigint[]) and s.status = 'active'
        order by s.subscriber_id limit ${limit * 4})
       and sub.company_id = ${companyId} and sub.status = 'active'
     order by sub.id
     limit ${limit}`.execute(db);
  return rows;
}
