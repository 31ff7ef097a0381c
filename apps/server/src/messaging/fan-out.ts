import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import { findCompanyLimits } from '../modules/plans/plan-limits.ts';
import { recordCountChanges } from './delivery-counts.ts';
import { refreshRecipientStatistics } from './index-plans.ts';
import { adjustUsage, lockUsage, usageMonthOf } from './monthly-usage.ts';
import { failSend, settleSends } from './send-progress.ts';

export type FanOutResult = 'busy' | 'progress' | 'finished';

/** Recipient counts at which the partition's statistics are refreshed if stale (refreshRecipientStatistics). */
const STATISTICS_AT = [1000, 10_000, 100_000, 1_000_000];

/**
 * Slices a send's fan-out is cut into (disjoint ranges of subscriber ids, migration 0026): an
 * INSERT ... SELECT runs on one core, and slices let as many connections write one send at once.
 * Two, for this machine's two cores; more only spreads the same cores thinner.
 */
export const FANOUT_SLICES = 2;

/** The last slice has no upper end: subscribers added during the fan-out are reached as before. */
const UNBOUNDED = '9223372036854775807';

/**
 * Advisory lock keys of fan-out slices: negative bigints, a space of their own (the hand-over's
 * block locks are pairs of ints, another key space altogether).
 */
export const sliceLockKey = (messageId: number, slice: number) => `-${messageId * 64 + slice + 1}`;

type SliceState = { ends: string[] | null; cursors: string[] | null };

/**
 * Cuts a send's remaining fan-out (after fanout_cursor) into `slices` equal ranges of its company's
 * subscriber ids (ids are shared by every company: the range is the company's own), once:
 * concurrent callers find the slices set and change nothing.
 */
async function sliceFanOut(trx: Executor, companyId: number, messageId: number, slices: number) {
  const { rows } = await sql<{ cursor: string; first: string | null; last: string | null }>`
    select s.fanout_cursor::text as cursor,
           (select min(id) - 1 from subscribers where company_id = ${companyId})::text as first,
           (select max(id) from subscribers where company_id = ${companyId})::text as last
      from message_sends s
     where s.company_id = ${companyId} and s.message_id = ${messageId}`.execute(trx);
  const cursor = BigInt(rows[0]?.cursor ?? '0');
  const first = BigInt(rows[0]?.first ?? '0');
  const start = first > cursor ? first : cursor;
  const last = BigInt(rows[0]?.last ?? '0');
  const count = last > start ? BigInt(slices) : 1n;
  const starts = Array.from(
    { length: Number(count) },
    (_, i) => start + ((last - start) * BigInt(i)) / count,
  );
  const ends = starts.map((_, i) => (i + 1 < starts.length ? String(starts[i + 1]) : UNBOUNDED));
  await sql`
    update message_sends
       set fanout_slice_ends = ${ends}::bigint[], fanout_slice_cursors = ${starts.map(String)}::bigint[]
     where company_id = ${companyId} and message_id = ${messageId} and state = 'fanout'
       and fanout_slice_ends is null`.execute(trx);
}

/** The send no longer fans out (cancelled, deleted) while a step wrote: the step rolls back. */
class SendMovedOn extends Error {}

/**
 * One checkpointed fan-out step of a send, in one of its slices: the next `batchSize` subscribers
 * after the slice's checkpoint (and within its range) that are actively subscribed to any of the
 * message's (still active) services, deduplicated across services (one recipient per subscriber,
 * hence per phone number), inserted as pending recipients in one INSERT ... SELECT DISTINCT ON ...;
 * the slice's checkpoint moves in the same transaction, so a step is written once (no unique index
 * needs to check it again). A step holds its slice with a transaction-scoped advisory lock (taken
 * before the checkpoint is read, so it reads the last holder's commit); concurrent steps take other
 * slices, and a crashed worker's lock is gone with its connection. The step that completes the
 * last slice moves the send on to its hand-over.
 */
export async function fanOutBatch(
  db: Database,
  companyId: number,
  messageId: number,
  batchSize: number,
  slices = FANOUT_SLICES,
): Promise<FanOutResult> {
  let step = await fanOutStep(db, companyId, messageId, batchSize);
  if (step.result === 'unsliced') {
    // In a transaction of its own: the send's row is not held through a whole step.
    await inTenantTransaction(db, companyScope(companyId), (trx) =>
      sliceFanOut(trx, companyId, messageId, slices),
    );
    step = await fanOutStep(db, companyId, messageId, batchSize);
  }
  if (step.result === 'busy' || step.result === 'unsliced') return 'busy';
  const crossed = STATISTICS_AT.some((mark) => step.before < mark && step.after >= mark);
  if (crossed) await refreshRecipientStatistics(db, step.recipientsAt, step.after);
  return step.result;
}

async function fanOutStep(db: Database, companyId: number, messageId: number, batchSize: number) {
  return inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const readSend = async () => {
      const { rows } = await sql<
        SliceState & { recipients_at: Date; service_ids: number[]; parts: number | null }
      >`
        select s.fanout_slice_ends::text[] as ends, s.fanout_slice_cursors::text[] as cursors,
               s.recipients_at, m.service_ids, m.parts
          from message_sends s
          join messages m on m.company_id = s.company_id and m.id = s.message_id
         where s.company_id = ${companyId} and s.message_id = ${messageId} and s.state = 'fanout'`.execute(
        trx,
      );
      return rows[0];
    };
    const send = await readSend();
    if (!send) return { result: 'busy' as const };
    if (!send.ends || !send.cursors) return { result: 'unsliced' as const };
    const parts = Math.max(1, send.parts ?? 1);

    const slice = await holdSlice(trx, companyId, messageId, send.ends, send.cursors);
    if (!slice) return { result: 'busy' as const };
    await STEP_SETTINGS.execute(trx);

    // The slice's checkpoint moves in the statement that writes its rows (a slice with fewer than a
    // batch left is done: its cursor goes to its end), and the rows written are the statement's own
    // count: counting a RETURNING read every row back, a tenth of the step's CPU (ADR 0011, 29 November).
    const written = await sql`
      with candidates as (
        select distinct on (x.subscriber_id) x.subscriber_id, x.service_id
          from (${subscriptionsInOrder(companyId, send.service_ids, slice, batchSize)}) x
         order by x.subscriber_id, x.service_id
         limit ${batchSize}
      ),
      batch as (select count(*) as size, max(subscriber_id) as last from candidates),
      checkpoint as (
        update message_sends
           set fanout_slice_cursors[${slice.index + 1}] =
                 case when (select size from batch) < ${batchSize} then ${slice.end}::bigint
                      else (select last from batch) end
         where company_id = ${companyId} and message_id = ${messageId} and state = 'fanout'
      )
      insert into delivery_reports (company_id, created_at, message_id, service_id, subscriber_id, recipient_phone, parts)
      select ${companyId}, ${send.recipients_at}::timestamptz, ${messageId}, c.service_id, sub.id, sub.msisdn, ${parts}
        from candidates c
        join subscribers sub on sub.id = c.subscriber_id
       -- The batch is a range of subscriber ids: read that range, never the whole table.
       where sub.id > ${slice.cursor}::bigint and sub.id <= (select last from batch)
         and sub.company_id = ${companyId} and sub.status = 'active'
       order by c.subscriber_id`.execute(trx);
    await RESET_JOIN_SETTINGS.execute(trx);
    const inserted = Number(written.numAffectedRows ?? 0);
    const { rows: moved } = await sql<{
      recipients: number;
      reserved_units: number;
      usage_month: string | null;
      all_done: boolean;
    }>`
      update message_sends
         set recipients = recipients + ${inserted}, updated_at = now()
       where company_id = ${companyId} and message_id = ${messageId} and state = 'fanout'
      returning recipients, reserved_units, to_char(usage_month, 'YYYY-MM-DD') as usage_month,
                (select bool_and(c >= e) from unnest(fanout_slice_cursors, fanout_slice_ends) as x(c, e)) as all_done`.execute(
      trx,
    );
    if (!moved[0]) throw new SendMovedOn();
    await recordCountChanges(trx, companyId, [{ messageId, from: null, to: 'pending', count: inserted }]);
    const { recipients, reserved_units: reservedUnits, all_done: finished } = moved[0];
    const done = { before: recipients - inserted, after: recipients, recipientsAt: send.recipients_at };
    if (!finished) return { result: 'progress' as const, ...done };
    // The last slice is done: the send's hand-over begins, and its numbers are final. This commit
    // waits for the disk, and with it every step before it (the WAL is flushed in order), so no
    // recipient is handed over before all of them are durable.
    await sql`select set_config('synchronous_commit', 'on', true)`.execute(trx);
    const month = moved[0].usage_month ?? usageMonthOf(send.recipients_at);
    const units = recipients * parts;
    await sql`
      update message_sends
         set state = 'dispatch', fanout_finished_at = now(), reserved_units = ${units},
             usage_month = ${month}::date
       where company_id = ${companyId} and message_id = ${messageId}`.execute(trx);
    await sql`update messages set recipient_count = ${recipients}, updated_at = now()
               where company_id = ${companyId} and id = ${messageId}`.execute(trx);
    // The send starts with its real count, which may have grown since it was accepted (numbers
    // imported after it was scheduled): it must fit what the month has left besides its own
    // reservation, or nobody is sent to. The usage row stays locked to the commit, so concurrent
    // sends of the company check one after the other.
    const usedBesides = Math.max(0, (await lockUsage(trx, companyId, month)) - reservedUnits);
    const { messagesLimit } = await findCompanyLimits(trx, companyId);
    // Sends accepted by the API reserved their month; others (seeded, adopted) count now.
    await adjustUsage(trx, companyId, month, units - reservedUnits);
    if (units > 0 && usedBesides + units > messagesLimit) {
      const reason = MESSAGE_MESSAGES.monthlyLimitReachedAtSend(usedBesides, messagesLimit);
      await failSend(trx, companyId, messageId, 'dispatch', reason);
    } else await settleSends(trx, companyId, [messageId]);
    return { result: 'finished' as const, ...done };
  }).catch((error) => {
    if (error instanceof SendMovedOn) return { result: 'busy' as const };
    throw error;
  });
}

/**
 * Settings of a step's transaction for its INSERT ... SELECT (restored after it by
 * RESET_JOIN_SETTINGS, the finishing step turns synchronous_commit back on):
 * - It commits without waiting for its WAL to reach the disk (13 ms a step). Nothing is
 *   accepted or handed over by such a step: if PostgreSQL crashed before the WAL writer flushed it
 *   (at most ~3 x wal_writer_delay later), the step's rows and its slice's checkpoint are lost
 *   together and the step is done again. The step that finishes the send commits as usual, which
 *   makes every step before it durable too (the WAL is flushed in order).
 * - It joins its candidates to their subscribers by merging the two in subscriber order. The
 *   planner cannot know how far into the subscriber ids a batch reaches (its last id is computed
 *   in the statement), and took a nested loop: 20,000 index lookups, 80,000 buffers, where the
 *   merge reads ~330 (a step's CPU 120 -> 98 ms; ADR 0011, 28 November, afternoon).
 */
const STEP_SETTINGS = sql`
  select set_config('synchronous_commit', 'off', true), set_config('enable_nestloop', 'off', true),
         set_config('enable_hashjoin', 'off', true)`;
const RESET_JOIN_SETTINGS = sql.raw(
  'set local enable_nestloop to default; set local enable_hashjoin to default',
);

/**
 * The slice's next active subscriptions of each of the send's services that is still active, in
 * subscriber order: one index scan per service, merged (Merge Append), so that the step's DISTINCT ON
 * reads only as far as its batch needs and sorts only the few rows a subscriber has, where a batch from
 * every service went into one sort (60,000 entries read and sorted for 20,000 recipients of the
 * bench's 3 services; 36,700 read now, a step 9% quicker in all: ADR 0011, 28 November).
 */
export function subscriptionsInOrder(
  companyId: number,
  serviceIds: number[],
  slice: { cursor: string; end: string },
  batchSize: number,
) {
  const services = [...new Set(serviceIds.map(Number))].sort((a, b) => a - b);
  if (services.length === 0)
    return sql`select null::bigint as subscriber_id, null::bigint as service_id where false`;
  return sql.join(
    services.map(
      (serviceId) => sql`(
        select s.subscriber_id, s.service_id
          from subscriptions s
         where s.service_id = ${serviceId} and s.company_id = ${companyId} and s.status = 'active'
           and s.subscriber_id > ${slice.cursor}::bigint and s.subscriber_id <= ${slice.end}::bigint
           and exists (select from services sv
                        where sv.company_id = ${companyId} and sv.id = ${serviceId} and sv.status = 'active')
         -- (service_id, subscriber_id): the order of the service's index of active subscriptions.
         order by s.subscriber_id
         limit ${batchSize})`,
    ),
    sql` union all `,
  );
}

/**
 * Takes a slice with work left that no other step holds (its advisory lock), and reads its
 * checkpoint after the lock: the last holder's commit is visible by then. Null when every slice
 * with work left is held elsewhere (or none is left).
 */
async function holdSlice(
  trx: Executor,
  companyId: number,
  messageId: number,
  ends: string[],
  cursors: string[],
) {
  for (let index = 0; index < ends.length; index++) {
    if (BigInt(cursors[index]) >= BigInt(ends[index])) continue;
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_xact_lock(${sliceLockKey(messageId, index)}::bigint) as locked`.execute(trx);
    if (!rows[0].locked) continue;
    const { rows: fresh } = await sql<{ cursor: string }>`
      select fanout_slice_cursors[${index + 1}]::text as cursor from message_sends
       where company_id = ${companyId} and message_id = ${messageId}`.execute(trx);
    const cursor = fresh[0]?.cursor;
    if (cursor === undefined || BigInt(cursor) >= BigInt(ends[index])) continue;
    return { index, cursor, end: ends[index] };
  }
  return null;
}
