import type { TDeliveryStatus } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import { type CountChange, recordCountChanges } from './delivery-counts.ts';
import { companyMaySend, holdSend } from './held-sends.ts';
import { preferIndexLookups } from './index-plans.ts';
import type { OutboundSms, SubmitOutcome } from './providers/provider.ts';
import type { CompanyProvider } from './providers/registry.ts';

/** What the hand-over needs of a send, read once per send. */
export type SendPlan = {
  companyId: number;
  messageId: number;
  recipientsAt: Date;
  text: string;
  encoding: 'GSM-7' | 'UCS-2';
  parts: number;
  /** The sender of each service's recipients: its short code. */
  senders: Map<number, string>;
};

export type RetryPolicy = { maxAttempts: number; baseDelayMs: number; maxDelayMs: number };

/**
 * Where a lane is in a send: fresh recipients after `cursor` (keyset), retries by due time.
 * `revisitFrom`: just before the first block the lane stepped over because another lane held it
 * (null when none): those rows may still be pending if that lane's batch rolled back.
 */
export type LaneCursor = {
  cursor: number;
  revisitFrom?: number | null;
  /** Set while the lane goes back over rows behind it (up to where it was): no jump to the frontier. */
  revisitUntil?: number | null;
  shared?: SharedLanes;
};

/**
 * What the lanes of one process know together about one send. `frontier`: the furthest any of them
 * got; a lane going forward starts there instead of walking, row by row, the blocks its siblings
 * handed over meanwhile (each a heap check of two row versions). `held`: the blocks they hold now;
 * a lane steps over those without going back to them later (their holder does, should its batch
 * roll back). Blocks held elsewhere (another process) are still gone back to.
 */
export type SharedLanes = {
  frontier: number;
  held: Set<number>;
  rescannedAt: number;
};

export type DispatchResult = {
  /** Recipients claimed (locked) in this batch. */
  claimed: number;
  /** Handed to the provider (claimed and within the rate). */
  offered: number;
  /** The rate window was used up: try again after this many ms. */
  throttledForMs: number | null;
  /** The company may not send (suspended, pending): the send is held, nothing was handed over. */
  held?: boolean;
};

type ClaimedRow = { id: number; recipient_phone: string; service_id: number | null; attempts: number };

export async function readSendPlan(
  db: Database,
  companyId: number,
  messageId: number,
): Promise<SendPlan | null> {
  return inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows } = await sql<{
      recipients_at: Date | null;
      content: string;
      encoding: 'GSM-7' | 'UCS-2' | null;
      parts: number | null;
      service_ids: number[];
    }>`
      select s.recipients_at, m.content, m.encoding, m.parts, m.service_ids
        from message_sends s join messages m on m.company_id = s.company_id and m.id = s.message_id
       where s.company_id = ${companyId} and s.message_id = ${messageId}`.execute(trx);
    const row = rows[0];
    if (!row?.recipients_at) return null;
    const services = await trx
      .selectFrom('services')
      .select(['id', 'shortcode'])
      .where('company_id', '=', companyId)
      .where('id', 'in', row.service_ids.length > 0 ? row.service_ids : [0])
      .execute();
    return {
      companyId,
      messageId,
      recipientsAt: row.recipients_at,
      text: row.content,
      encoding: row.encoding ?? 'GSM-7',
      parts: Math.max(1, row.parts ?? 1),
      senders: new Map(services.map((service) => [service.id, service.shortcode])),
    };
  });
}

/**
 * Up to `limit` recipients due for a hand-over: retries whose time has come first (row locks, SKIP
 * LOCKED: they are few), then fresh ones after the lane's cursor, a block at a time.
 */
async function claimRecipients(
  trx: Executor,
  plan: SendPlan,
  lane: LaneCursor,
  limit: number,
  holding: number[],
) {
  const due = await sql<ClaimedRow>`
    select id, recipient_phone, service_id, attempts
      from delivery_reports
     where company_id = ${plan.companyId} and message_id = ${plan.messageId} and created_at = ${plan.recipientsAt}
       and next_attempt_at <= now() and status = 'pending'
     order by next_attempt_at, id
     limit ${limit}
       for update skip locked`.execute(trx);
  if (due.rows.length >= limit) return due.rows;
  return [...due.rows, ...(await claimFreshBlock(trx, plan, lane, limit - due.rows.length, limit, holding))];
}

/** Blocks another lane holds are stepped over; the next attempts look further on. */
const BLOCK_ATTEMPTS = 8;

/**
 * Fresh recipients are claimed a block of ids at a time (ids blockSize apart: id / blockSize), with a
 * transaction-scoped advisory lock on (message, block) instead of a lock on every row: a row lock
 * is a write to every recipient row (and its WAL) before the hand-over's own update, an advisory
 * lock costs nothing per row. A lane takes the block of the first pending id after its cursor and
 * steps over blocks other lanes or workers hold. The lock ends with the transaction, after its
 * commit is visible, so the next holder of a block reads the outcomes recorded by the last one;
 * a crashed worker's locks end with its connection, and its recipients are offered again.
 */
async function claimFreshBlock(
  trx: Executor,
  plan: SendPlan,
  lane: LaneCursor,
  limit: number,
  blockSize: number,
  holding: number[],
) {
  const shared = lane.shared;
  if (shared) {
    if (lane.revisitUntil != null && lane.cursor >= lane.revisitUntil) lane.revisitUntil = null;
    if (lane.revisitUntil == null && shared.frontier > lane.cursor) lane.cursor = shared.frontier;
  }
  for (let attempt = 0; attempt < BLOCK_ATTEMPTS; attempt++) {
    const { rows } = await sql<{ block: string; locked: boolean }>`
      select b.block, pg_try_advisory_xact_lock(${plan.messageId % 2_147_483_647}::int,
                                                (b.block % 2147483647)::int) as locked
        from (select id / ${blockSize} as block
                from delivery_reports
               where company_id = ${plan.companyId} and message_id = ${plan.messageId}
                 and created_at = ${plan.recipientsAt}
                 and id > ${lane.cursor} and status = 'pending' and next_attempt_at is null
               order by id
               limit 1) b`.execute(trx);
    const next = rows[0];
    if (!next) return [];
    const blockStart = Number(next.block) * blockSize;
    const blockEnd = blockStart + blockSize;
    if (!next.locked) {
      if (!shared?.held.has(Number(next.block)))
        lane.revisitFrom = Math.min(lane.revisitFrom ?? blockStart - 1, blockStart - 1);
      lane.cursor = blockEnd - 1;
      if (shared) shared.frontier = Math.max(shared.frontier, lane.cursor);
      continue;
    }
    if (shared) {
      shared.held.add(Number(next.block));
      holding.push(Number(next.block));
    }
    const fresh = await sql<ClaimedRow>`
      select id, recipient_phone, service_id, attempts
        from delivery_reports
       where company_id = ${plan.companyId} and message_id = ${plan.messageId} and created_at = ${plan.recipientsAt}
         and id > ${Math.max(lane.cursor, blockStart - 1)} and id < ${blockEnd}
         and status = 'pending' and next_attempt_at is null
       order by id
       limit ${limit}`.execute(trx);
    return fresh.rows;
  }
  return [];
}

export function retryDelayMs(policy: RetryPolicy, attempt: number) {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  // Jitter, so recipients failed together do not all come back in the same second.
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}

type Recorded = {
  id: number;
  status: TDeliveryStatus;
  gatewayId: string | null;
  providerStatus: string | null;
  error: string | null;
  nextAttemptAt: Date | null;
};

/** Maps each claimed recipient's outcome onto its new row state (no answer counts as a retry). */
function recordOf(row: ClaimedRow, outcome: SubmitOutcome | undefined, policy: RetryPolicy): Recorded {
  const attempt = row.attempts + 1;
  if (outcome?.outcome === 'accepted')
    return {
      id: row.id,
      status: 'submitted',
      gatewayId: outcome.providerMessageId,
      providerStatus: outcome.providerStatus ?? null,
      error: null,
      nextAttemptAt: null,
    };
  if (outcome?.outcome === 'rejected')
    return {
      id: row.id,
      status: 'rejected',
      gatewayId: null,
      providerStatus: outcome.providerStatus ?? null,
      error: outcome.reason,
      nextAttemptAt: null,
    };
  const reason = outcome?.reason ?? 'The provider did not answer for this recipient';
  if (attempt >= policy.maxAttempts)
    return {
      id: row.id,
      status: 'failed',
      gatewayId: null,
      providerStatus: null,
      error: reason,
      nextAttemptAt: null,
    };
  return {
    id: row.id,
    status: 'pending',
    gatewayId: null,
    providerStatus: null,
    error: reason,
    nextAttemptAt: new Date(Date.now() + retryDelayMs(policy, attempt)),
  };
}

const ESCAPED_IN_ARRAYS = /[\\"]/;

/**
 * A PostgreSQL array literal of text values (null as NULL): every element quoted, a backslash or a
 * double quote escaped. The driver's own conversion runs two regular-expression replaces and its
 * value preparation on every element of the outcome arrays: 6 % of the server's busy time in a
 * profile of the fan-out bench.
 */
export function arrayLiteral(values: readonly (string | null)[]) {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) literal += ',';
    if (value === null) literal += 'NULL';
    else if (ESCAPED_IN_ARRAYS.test(value)) literal += `"${value.replace(/[\\"]/g, '\\$&')}"`;
    else literal += `"${value}"`;
  }
  return `${literal}}`;
}

/** A batch whose ids lie this close together is updated through one range of the recipient key. */
const RANGE_SPREAD = 4;

/**
 * Every outcome of a batch, then the counters' moves. A fresh block's ids lie in a short range of
 * the recipient key, so the rows are read by that one range and matched to the outcomes by a hash:
 * about a third less CPU per row than a key lookup per outcome, and no join preference to set
 * first (a statement less per batch). Retries may lie anywhere in the send: a batch spread wide
 * looks each id up instead.
 */
async function recordOutcomes(trx: Executor, plan: SendPlan, records: Recorded[]) {
  let low = Number.POSITIVE_INFINITY;
  let high = 0;
  const moved = new Map<TDeliveryStatus, number>();
  for (const record of records) {
    low = Math.min(low, record.id);
    high = Math.max(high, record.id);
    moved.set(record.status, (moved.get(record.status) ?? 0) + 1);
  }
  const compact = high - low < RANGE_SPREAD * records.length;
  if (!compact) await preferIndexLookups(trx);
  // The provider ids handed out go to recipient_gateway_ids in the same statement (migration 0029):
  // delivery reports find their recipient there, and no index of the recipient rows covers a column
  // this update writes, so it is a HOT update where the page has room.
  await sql`
    with handed_over as (
      update delivery_reports d
         set status = u.status,
             gateway_message_id = u.gateway_id,
             provider_status = u.provider_status,
             error_message = u.error,
             next_attempt_at = u.next_attempt_at,
             attempts = d.attempts + 1,
             submitted_at = case when u.status = 'submitted' then now() else d.submitted_at end,
             updated_at = now()
        from unnest(${`{${records.map((r) => r.id).join(',')}}`}::bigint[],
                    ${arrayLiteral(records.map((r) => r.status))}::text[],
                    ${arrayLiteral(records.map((r) => r.gatewayId))}::text[],
                    ${arrayLiteral(records.map((r) => r.providerStatus))}::text[],
                    ${arrayLiteral(records.map((r) => r.error))}::text[],
                    ${arrayLiteral(records.map((r) => r.nextAttemptAt?.toISOString() ?? null))}::timestamptz[])
             as u(id, status, gateway_id, provider_status, error, next_attempt_at)
       where d.company_id = ${plan.companyId} and d.message_id = ${plan.messageId}
         and d.created_at = ${plan.recipientsAt} and d.id = u.id
         ${compact ? sql`and d.id between ${low} and ${high}` : sql``}
      returning d.company_id, d.gateway_message_id, d.created_at, d.message_id, d.id)
    insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
    select company_id, gateway_message_id, created_at, message_id, id
      from handed_over
     where gateway_message_id is not null`.execute(trx);
  const changes: CountChange[] = [...moved].map(([to, count]) => ({
    messageId: plan.messageId,
    from: 'pending',
    to,
    count,
  }));
  await recordCountChanges(trx, plan.companyId, changes);
}

/**
 * One hand-over batch of a send, in one transaction: claim due recipients (a block lock or row
 * locks, so concurrent lanes and workers take disjoint rows), hold the send instead if its company
 * may not send (held-sends.ts), take that many hand-overs from the
 * company's rate window, hand them to the provider while the rows stay locked, and record every
 * outcome with one UPDATE ... FROM unnest(...) and the counters with one upsert. Claimed rows the
 * rate does not allow are left untouched. A crash before the commit releases the whole batch,
 * which is then offered again with the same recipient keys.
 */
export async function dispatchBatch(
  db: Database,
  plan: SendPlan,
  companyProvider: CompanyProvider,
  lane: LaneCursor,
  policy: RetryPolicy,
  takeTokens: (wanted: number) => Promise<{ granted: number; nextWindowInMs: number }>,
): Promise<DispatchResult> {
  const startedAt = lane.cursor;
  const holding: number[] = [];
  return inTenantTransaction(db, companyScope(plan.companyId), async (trx) => {
    const claimed = await claimRecipients(trx, plan, lane, companyProvider.batchSize, holding);
    if (claimed.length === 0) return { claimed: 0, offered: 0, throttledForMs: null };
    // Asked where the hand-over acts, at every claim: a send under way stops at its next batch.
    if (!(await companyMaySend(trx, plan.companyId))) {
      await holdSend(trx, plan.companyId, plan.messageId);
      return { claimed: 0, offered: 0, throttledForMs: null, held: true };
    }
    const { granted, nextWindowInMs } = await takeTokens(claimed.length);
    if (granted === 0) return { claimed: claimed.length, offered: 0, throttledForMs: nextWindowInMs || 1 };
    const batch = claimed.slice(0, granted);

    const outbound: OutboundSms[] = batch.map((row) => ({
      recipientKey: String(row.id),
      to: row.recipient_phone,
      from: (row.service_id !== null ? plan.senders.get(row.service_id) : undefined) ?? '',
      text: plan.text,
      encoding: plan.encoding,
      parts: plan.parts,
    }));
    let outcomes: SubmitOutcome[];
    try {
      outcomes = await companyProvider.provider.sendBatch(outbound);
    } catch (error) {
      // The interface says providers turn faults into retries; one that throws gets the same.
      outcomes = outbound.map((sms) => ({
        recipientKey: sms.recipientKey,
        outcome: 'retry' as const,
        reason: `Provider error: ${(error as Error).message}`,
      }));
    }
    const byKey = new Map(outcomes.map((outcome) => [outcome.recipientKey, outcome]));
    const records = batch.map((row) => recordOf(row, byKey.get(String(row.id)), policy));

    await recordOutcomes(trx, plan, records);
    // Fresh recipients only move the cursor forward; retried ones come back through next_attempt_at.
    for (const row of batch) if (row.attempts === 0 && row.id > lane.cursor) lane.cursor = row.id;
    if (lane.shared) lane.shared.frontier = Math.max(lane.shared.frontier, lane.cursor);
    return { claimed: claimed.length, offered: batch.length, throttledForMs: null };
  })
    .catch((error) => {
      // The batch rolled back: its rows are pending again behind the cursor. The lane goes back to
      // its block at once (siblings stepped over it and will not), then on to where it was.
      lane.revisitFrom = Math.min(lane.revisitFrom ?? startedAt, startedAt);
      if (holding.length > 0) {
        lane.revisitUntil = Math.max(lane.revisitUntil ?? 0, lane.cursor, lane.shared?.frontier ?? 0);
        lane.cursor = Math.min(lane.cursor, Math.min(...holding) * companyProvider.batchSize - 1);
      }
      throw error;
    })
    .finally(() => {
      // After the commit (or rollback): the advisory locks are gone with the transaction.
      for (const block of holding) lane.shared?.held.delete(block);
    });
}
