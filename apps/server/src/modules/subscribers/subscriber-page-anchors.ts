import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** Every ANCHOR_STEP-th subscriber id of a company (newest first) is remembered. */
const ANCHOR_STEP = 1_000;
/** Companies whose anchors this process keeps (the most recently read). */
const MAX_COMPANIES = 100;

type Anchors = { version: string; ids: number[] };
const anchorsByCompany = new Map<number, Promise<Anchors>>();

/**
 * Where a deep page of a company's whole subscriber list (newest first) starts: the nearest
 * remembered id at or above it, and how many rows to skip from there. OFFSET walked every key
 * before the page (560,000 for page 5,600 of 100); from an anchor a page walks fewer than
 * ANCHOR_STEP. The anchors belong to one state of the list, named by its exact total (the
 * per-status counters) and its newest id: ids come from one sequence and are never reused, so any
 * insert or delete changes one of the two, and the anchors are then read again (one walk over the
 * company's keys).
 */
export async function subscriberPageStart(db: Executor, companyId: number, offset: number) {
  if (offset < ANCHOR_STEP) return { atOrBelowId: null, skip: offset };
  const { rows } = await sql<{ total: number; newest: number | null }>`
    select (select coalesce(sum(subscriber_count), 0)::bigint from company_subscriber_counts
             where company_id = ${companyId}) as total,
           (select max(id) from subscribers where company_id = ${companyId}) as newest`.execute(db);
  const version = `${rows[0].total}:${rows[0].newest}`;
  let anchors = anchorsByCompany.get(companyId);
  if (!anchors || (await anchors.catch(() => null))?.version !== version) {
    anchors = readAnchors(db, companyId, version);
    anchors.catch(() => anchorsByCompany.delete(companyId));
  }
  // Most recently used last, so the oldest goes first when the map is full.
  anchorsByCompany.delete(companyId);
  anchorsByCompany.set(companyId, anchors);
  if (anchorsByCompany.size > MAX_COMPANIES)
    anchorsByCompany.delete(anchorsByCompany.keys().next().value as number);
  const { ids } = await anchors;
  const index = Math.floor(offset / ANCHOR_STEP);
  if (index >= ids.length) return { atOrBelowId: null, skip: offset };
  return { atOrBelowId: ids[index], skip: offset - index * ANCHOR_STEP };
}

async function readAnchors(db: Executor, companyId: number, version: string): Promise<Anchors> {
  const { rows } = await sql<{ id: number }>`
    select id from (
      select id, row_number() over (order by id desc) as n from subscribers where company_id = ${companyId}) numbered
     where (n - 1) % ${ANCHOR_STEP} = 0
     order by id desc`.execute(db);
  return { version, ids: rows.map((row) => row.id) };
}
