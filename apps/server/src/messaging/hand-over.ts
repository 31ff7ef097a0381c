import { setTimeout as pause } from 'node:timers/promises';
import { MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import type { MessagingConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import {
  type BatchJob,
  type Claimed,
  claimBatch,
  extendClaim,
  failPending,
  holdSend,
  providerAnswered,
  providerFailed,
  type Recorded,
  readBatchLeft,
  readPendingRecipients,
  readSendPlan,
  readSendState,
  recordOutcomes,
  releaseBatch,
  resumeSend,
  type SendPlan,
} from './hand-over.repository.ts';
import { type OutboundSms, retryEach, type SubmitOutcome } from './providers/provider.ts';
import type { CompanyProvider, ProviderRegistry } from './providers/registry.ts';
import { takeSendTokens } from './rate-window.ts';
import { personalise, type RecipientCopy } from './recipient-texts.ts';
import { failSend, settleSends } from './send-progress.ts';

export type { BatchJob } from './hand-over.repository.ts';

export type HandOverSettings = Pick<MessagingConfig, 'maxAttempts' | 'sendValidityHours' | 'claimSeconds'>;

/** The batch is not finished: the queue runs it again later, with its backoff (jobs.ts). */
export class HandOverLater extends Error {}

/**
 * One hand-over batch (the send-batch job). The run claims the batch's range of recipient ids,
 * then, per provider call:
 * 1. in a short transaction: check that the send still runs and its company may send, take
 *    hand-overs from the company's rate window, read the range's next pending recipients;
 * 2. hand them to the provider, with no transaction and no lock held;
 * 3. record every outcome, and the counters, in a second transaction.
 * A worker that dies between 2 and 3 leaves its claim: the job's retry offers those recipients
 * again under the same recipient key once the claim has passed. Recipients answered "retry" stay
 * pending, and the batch ends with HandOverLater: the queue runs it again after its backoff.
 */
export async function handOverBatch(
  db: Database,
  providers: ProviderRegistry,
  settings: HandOverSettings,
  job: BatchJob,
  signal: AbortSignal,
) {
  const plan = await readSendPlan(db, job);
  if (!plan) return;
  if (!(await claimBatch(db, settings, job))) throw new HandOverLater('Another run holds this batch');
  try {
    await handOverClaimed(db, providers, settings, job, plan, signal);
  } finally {
    await releaseBatch(db, job).catch(() => {});
  }
}

async function handOverClaimed(
  db: Database,
  providers: ProviderRegistry,
  settings: HandOverSettings,
  job: BatchJob,
  plan: SendPlan,
  signal: AbortSignal,
) {
  let after = BigInt(job.firstId) - 1n;
  let heldBack = 0;
  while (!signal.aborted) {
    const companyProvider = await providers.forCompany(job.companyId);
    const claim = await claimRecipients(db, settings, job, plan, after, companyProvider);
    if (claim.kind === 'over') return;
    if (claim.kind === 'throttled') {
      await pause(claim.waitMs, undefined, { signal }).catch(() => {});
      continue;
    }
    if (claim.rows.length === 0) break;
    after = BigInt(claim.rows[claim.rows.length - 1].id);
    const copies = plan.template ? personalise(plan.template, claim.rows) : null;
    const offered = copies ? claim.rows.filter((row) => copies.get(row.id)?.kind === 'send') : claim.rows;
    const outcomes = offered.length > 0 ? await offer(companyProvider, plan, offered, copies) : [];
    const outage = outcomes.find((outcome) => outcome.outcome === 'retry' && outcome.scope === 'account');
    await inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
      const byKey = new Map(outcomes.map((outcome) => [outcome.recipientKey, outcome]));
      const records = claim.rows.map((row) => {
        const copy = copies?.get(row.id);
        return copy?.kind === 'too-long'
          ? notSent(row, copy.reason)
          : recordOf(row, byKey.get(row.id), settings.maxAttempts);
      });
      await recordOutcomes(trx, job, plan, records);
      await extendClaim(trx, settings, job);
      if (outage?.outcome === 'retry') await providerFailed(trx, job, outage.reason);
      else if (claim.providerFailing) await providerAnswered(trx, job.companyId);
    });
    if (outage) throw new HandOverLater('The provider is unavailable; the send is held');
    // Flow control (throttled, a 5xx): offered again after a second, in this run, HELD_BACK_ROUNDS at most.
    const heldBackFrom = firstHeldBack(claim.rows, outcomes);
    if (heldBackFrom !== null && heldBack++ < HELD_BACK_ROUNDS) {
      after = heldBackFrom - 1n;
      await pause(1000, undefined, { signal }).catch(() => {});
      continue;
    }
    if (heldBackFrom === null) heldBack = 0;
    if (claim.lastOfRange) break;
  }
  await finishBatch(db, settings, job, plan);
}

/** Rounds of flow control a run waits out before it leaves the batch to the queue's backoff. */
const HELD_BACK_ROUNDS = 30;

function firstHeldBack(rows: Claimed[], outcomes: SubmitOutcome[]) {
  const keys = new Set(
    outcomes
      .filter((outcome) => outcome.outcome === 'retry' && outcome.scope === 'request')
      .map((outcome) => outcome.recipientKey),
  );
  const first = rows.find((row) => keys.has(row.id));
  return first ? BigInt(first.id) : null;
}

/** Ends the batch: done when none of its range is pending, else later (or failed past the validity). */
async function finishBatch(db: Database, settings: HandOverSettings, job: BatchJob, plan: SendPlan) {
  const left = await inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
    const { left, expired } = await readBatchLeft(trx, job, plan, settings);
    if (left > 0 && expired)
      await failPending(trx, job, plan, MESSAGE_MESSAGES.notHandedOverInTime(settings.sendValidityHours));
    // After this batch's records were committed: of two batches finishing together, the second sees both.
    await settleSends(trx, job.companyId, [job.messageId]);
    return expired ? 0 : left;
  });
  if (left > 0) throw new HandOverLater(`${left} recipients of the batch are left to hand over`);
}

type Claim =
  | { kind: 'rows'; rows: Claimed[]; providerFailing: boolean; lastOfRange: boolean }
  | { kind: 'throttled'; waitMs: number }
  /** The send no longer hands anything over (cancelled, failed, done). */
  | { kind: 'over' };

async function claimRecipients(
  db: Database,
  settings: HandOverSettings,
  job: BatchJob,
  plan: SendPlan,
  after: bigint,
  companyProvider: CompanyProvider,
): Promise<Claim> {
  const { companyId, messageId } = job;
  const state = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const send = await readSendState(trx, job, settings);
    if (!send || !['dispatch', 'held'].includes(send.state)) return { kind: 'over' as const };
    // A send held past its validity is not resumed: it ends failed, and what it reserved is given back.
    if (send.state === 'held' && send.expired) {
      await failSend(
        trx,
        companyId,
        messageId,
        'held',
        send.held_reason ?? MESSAGE_MESSAGES.companySuspended,
      );
      return { kind: 'over' as const };
    }
    // Asked before every claim: a send under way stops at its next batch when its company is not active.
    if (!send.active) {
      await holdSend(trx, job, null);
      return { kind: 'held' as const };
    }
    // The provider failed for the account a moment ago: wait for its next probe, without asking it.
    if (send.provider_resting) {
      await holdSend(trx, job, MESSAGE_MESSAGES.providerUnavailable(send.provider_failure ?? ''));
      return { kind: 'held' as const };
    }
    if (send.state === 'held') await resumeSend(trx, job);
    return { kind: 'dispatch' as const, providerFailing: send.provider_failure !== null };
  });
  if (state.kind === 'over') return state;
  if (state.kind === 'held') throw new HandOverLater('The send is held');

  const { granted, nextWindowInMs } = await takeSendTokens(
    db,
    companyId,
    companyProvider.batchSize,
    companyProvider.messagesPerSecond,
  );
  if (granted === 0) return { kind: 'throttled', waitMs: Math.max(1, nextWindowInMs) };
  const rows = await readPendingRecipients(db, job, plan, after, granted);
  return { kind: 'rows', rows, providerFailing: state.providerFailing, lastOfRange: rows.length < granted };
}

/**
 * Hands the recipients to the provider, each with the send's text or its own (a personalised send),
 * those that share a text side by side: Africa's Talking sends one text to many numbers per request.
 */
async function offer(
  companyProvider: CompanyProvider,
  plan: SendPlan,
  rows: Claimed[],
  copies: Map<string, RecipientCopy> | null,
) {
  const outbound: OutboundSms[] = rows.map((row) => {
    const copy = copies?.get(row.id);
    const own =
      copy?.kind === 'send' ? copy : { text: plan.text, encoding: plan.encoding, parts: plan.parts };
    return {
      recipientKey: row.id,
      to: row.recipient_phone,
      from: (row.service_id !== null ? plan.senders.get(row.service_id) : undefined) ?? '',
      ...own,
    };
  });
  if (copies) outbound.sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  try {
    return await companyProvider.provider.sendBatch(outbound);
  } catch (error) {
    // The interface says providers turn faults into retries; one that throws gets the same.
    return retryEach(outbound, `Provider error: ${(error as Error).message}`);
  }
}

/** A recipient whose own text is over the limit: failed with the reason, never offered (nor cut). */
function notSent(row: Claimed, reason: string): Recorded {
  return { ...unanswered(row), status: 'failed', error: reason, counted: false };
}

const unanswered = (row: Claimed) =>
  ({
    id: row.id,
    gatewayId: null,
    providerStatus: null,
    reportIds: [],
    reportParts: null,
    unknown: false,
  }) as const;

/** A recipient's new row state from its outcome (no answer counts as a retry). */
function recordOf(row: Claimed, outcome: SubmitOutcome | undefined, maxAttempts: number): Recorded {
  const recorded = unanswered(row);
  if (outcome?.outcome === 'accepted')
    return {
      ...recorded,
      status: 'submitted',
      gatewayId: outcome.providerMessageId,
      providerStatus: outcome.providerStatus ?? null,
      error: null,
      counted: true,
      reportIds: outcome.reportIds ?? [{ id: outcome.providerMessageId, part: 1 }],
      reportParts: outcome.reportParts && outcome.reportParts > 1 ? outcome.reportParts : null,
    };
  // Taken or not, nobody knows: submitted until a report settles it, and never offered again.
  if (outcome?.outcome === 'unknown')
    return {
      ...recorded,
      status: 'submitted',
      gatewayId: outcome.reportIds?.[0]?.id ?? null,
      error: MESSAGE_MESSAGES.outcomeUnknown(outcome.reason),
      counted: true,
      reportIds: outcome.reportIds ?? [],
      unknown: true,
    };
  if (outcome?.outcome === 'rejected')
    return {
      ...recorded,
      status: 'rejected',
      providerStatus: outcome.providerStatus ?? null,
      error: outcome.reason,
      counted: true,
    };
  const reason = outcome?.reason ?? 'The provider did not answer for this recipient';
  // Flow control and outages are not the recipient's: they wait within the send's validity.
  const counted = (outcome?.scope ?? 'recipient') === 'recipient';
  const status = counted && row.attempts + 1 >= maxAttempts ? 'failed' : 'pending';
  return { ...recorded, status, error: reason, counted };
}
