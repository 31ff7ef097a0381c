import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
import type { DeliveryUpdate } from './providers/provider.ts';

/**
 * What became of one delivery report: applied (the recipient moved on), unchanged (a repeat, or
 * older news than the recipient already has), unknown (no recipient has that provider id, yet:
 * kept for a while in case our own hand-over commit is still on its way).
 */
export type DeliveryOutcome = 'applied' | 'unchanged' | 'unknown';

/** Reports name recipients handed over at most this long ago (the partitions they may live in). */
export const REPORT_WINDOW = '62 days';

/** A batch's report whose URL token was not the company's current one (the callback's 404). */
export type BatchOutcome = DeliveryOutcome | 'refused';

/**
 * Everything one batch of one company's delivery reports does, as one statement (the database
 * function take_delivery_reports, migration 0021, planned once per session): the URL tokens checked
 * (`tokenHashes`: each report's SHA-256 of its URL token, or null for a report that did not come
 * through a URL), then apply_delivery_reports (migration 0014: each provider id takes its most
 * advanced report of the batch; a recipient's status only moves forward, pending < submitted <
 * sent < final, and a final status is never replaced, so repeats and late intermediate reports
 * change nothing; ids no recipient carries are kept in unmatched_delivery_reports when
 * `keepUnknown`, for the sweep), the counters (record_count_changes) and the sends (settle_sends).
 *
 * Run on the pool outside a transaction, the statement is its own transaction: it binds itself to
 * the company only once a report's token is that company's, and its answer comes after its commit.
 * Inside a bound transaction it keeps that binding. Returns one outcome per input, in order.
 * Callbacks no longer come this way (they go through the inbox: acceptDeliveryReports, and the
 * worker's apply_delivery_report_inbox); the sweep of kept reports and tests do.
 */
export async function takeDeliveryReports(
  executor: Executor,
  companyId: number,
  updates: readonly DeliveryUpdate[],
  tokenHashes: readonly (Buffer | null)[],
  options: { keepUnknown: boolean } = { keepUnknown: true },
): Promise<BatchOutcome[]> {
  if (updates.length === 0) return [];
  const ids: string[] = [];
  const statuses: string[] = [];
  const providerStatuses: string[] = [];
  const errors: (string | null)[] = [];
  const ats: string[] = [];
  const phones: (string | null)[] = [];
  for (const update of updates) {
    ids.push(update.providerMessageId);
    statuses.push(update.status);
    providerStatuses.push(update.providerStatus);
    errors.push(update.error);
    ats.push(update.at.toISOString());
    phones.push(update.phone ?? null);
  }
  const { rows } = await sql<{ outcomes: BatchOutcome[] }>`
    select take_delivery_reports(${companyId}::bigint, ${byteaArrayLiteral(tokenHashes)}::bytea[],
             ${ids}::text[], ${statuses}::text[], ${providerStatuses}::text[],
             ${errors}::text[], ${ats}::timestamptz[], ${phones}::text[], ${REPORT_WINDOW}::interval,
             ${options.keepUnknown}) as outcomes`.execute(executor);
  return rows[0].outcomes;
}

/**
 * Takes one batch of one company's reports into the delivery-report inbox (the database function
 * accept_delivery_reports, migration 0032), after their URL tokens are checked by the shared rule
 * (`tokenHashes` as for takeDeliveryReports). Run on the pool outside a transaction, the statement
 * is its own transaction: its answer comes after the reports are committed. Returns, per report in
 * order, whether it was accepted (a refused one is the callback's 404 and is not stored). The worker
 * applies the inbox later (delivery-report-applier.ts).
 */
export async function acceptDeliveryReports(
  executor: Executor,
  companyId: number,
  updates: readonly DeliveryUpdate[],
  tokenHashes: readonly (Buffer | null)[],
): Promise<boolean[]> {
  if (updates.length === 0) return [];
  const ids: string[] = [];
  const statuses: string[] = [];
  const providerStatuses: string[] = [];
  const errors: (string | null)[] = [];
  const ats: string[] = [];
  const phones: (string | null)[] = [];
  for (const update of updates) {
    ids.push(update.providerMessageId);
    statuses.push(update.status);
    providerStatuses.push(update.providerStatus);
    errors.push(update.error);
    ats.push(update.at.toISOString());
    phones.push(update.phone ?? null);
  }
  const { rows } = await sql<{ accepted: boolean[] }>`
    select accept_delivery_reports(${companyId}::bigint, ${byteaArrayLiteral(tokenHashes)}::bytea[],
             ${ids}::text[], ${statuses}::text[], ${providerStatuses}::text[],
             ${errors}::text[], ${ats}::timestamptz[], ${phones}::text[]) as accepted`.execute(executor);
  return rows[0].accepted;
}

/** A PostgreSQL bytea[] literal (null as NULL): each value in hex, its backslash escaped for the array. */
export function byteaArrayLiteral(values: readonly (Buffer | null)[]) {
  return `{${values.map((value) => (value === null ? 'NULL' : `"\\\\x${value.toString('hex')}"`)).join(',')}}`;
}

/**
 * Applies a batch of one company's delivery reports inside the caller's transaction, already bound
 * to the company (the sweep of kept reports, tests): takeDeliveryReports without URL tokens.
 * Returns one outcome per input, in order.
 */
export async function applyDeliveryUpdates(
  trx: Executor,
  companyId: number,
  updates: readonly DeliveryUpdate[],
  options: { keepUnknown: boolean } = { keepUnknown: true },
): Promise<DeliveryOutcome[]> {
  const outcomes = await takeDeliveryReports(
    trx,
    companyId,
    updates,
    updates.map(() => null),
    options,
  );
  if (outcomes.includes('refused'))
    throw new Error('Delivery reports without a URL token need a bound transaction');
  return outcomes as DeliveryOutcome[];
}
