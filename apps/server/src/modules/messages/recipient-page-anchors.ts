import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';

/** Every ANCHOR_STEP-th recipient id of a send is remembered; a page then walks fewer than this many keys. */
export const ANCHOR_STEP = 1_000;
/** Sends whose anchors this process keeps (the most recently read). */
const MAX_SENDS = 200;

type Send = { companyId: number; messageId: number; recipientsAt: Date };

const anchorsBySend = new Map<string, Promise<number[]>>();

/**
 * Where a deep page of a send's recipients (in id order) starts: the nearest remembered id at or
 * before it, and how many rows to skip from there. OFFSET walks every key before the page (80,000
 * keys for page 3,200 of a 100,000-recipient send); from an anchor a page walks at most
 * ANCHOR_STEP. The anchors are read once per send and process, by one walk over the send's keys.
 *
 * Only for a send whose fan-out has finished: its recipients are then fixed (ids come from one
 * sequence and never change; rows leave only with their message, whose lookup fails first).
 */
export async function pageStart(db: Executor, send: Send, offset: number) {
  if (offset < ANCHOR_STEP) return { fromId: 0, skip: offset };
  const key = `${send.companyId}:${send.messageId}:${send.recipientsAt.getTime()}`;
  let anchors = anchorsBySend.get(key);
  if (anchors) {
    // Most recently used last, so the oldest goes first when the map is full.
    anchorsBySend.delete(key);
  } else {
    anchors = readAnchors(db, send);
    anchors.catch(() => anchorsBySend.delete(key));
  }
  anchorsBySend.set(key, anchors);
  if (anchorsBySend.size > MAX_SENDS) anchorsBySend.delete(anchorsBySend.keys().next().value as string);
  const ids = await anchors;
  const index = Math.floor(offset / ANCHOR_STEP);
  if (index >= ids.length) return { fromId: 0, skip: offset };
  return { fromId: ids[index], skip: offset - index * ANCHOR_STEP };
}

async function readAnchors(db: Executor, send: Send) {
  const { rows } = await sql<{ id: number }>`
    select id from (
      select d.id, row_number() over (order by d.id) as n
        from delivery_reports d
       where d.company_id = ${send.companyId} and d.message_id = ${send.messageId}
         and d.created_at = ${send.recipientsAt}) numbered
     where (n - 1) % ${ANCHOR_STEP} = 0
     order by id`.execute(db);
  return rows.map((row) => row.id);
}
