import { MESSAGE_MESSAGES, type TDeliveryStatus } from '@sms/contracts/messages/message';
import { sql } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import { companyScope, inTenantTransaction } from '../db/tenant-scope.ts';
import { type CountChange, recordCountChanges } from './delivery-counts.ts';
import type { OutboundSms, SubmitOutcome } from './providers/provider.ts';
import type { CompanyProvider, ProviderRegistry } from './providers/registry.ts';
import { takeSendTokens } from './rate-window.ts';
import { failSend, settleSends } from './send-progress.ts';

export type BatchJob = { companyId: number; messageId: number; firstId: string; lastId: string };

export type HandOverSettings = {
  /** Hand-overs of one recipient the provider may answer "retry" to before it fails for good. */
  maxAttempts: number;
  /** A send hands nothing over this long after its due time: what is left fails. */
  sendValidityHours: number;
  /**
   * How long a run's claim on its batch lasts without news (extended with every outcome recorded).
   * A run whose worker died leaves its claim; the job's next run takes it once this has passed.
   */
  claimSeconds: number;
};

/** The batch is not finished: the queue runs it again later, with its backoff (jobs.ts). */
export class HandOverLater extends Error {}

type Claimed = { id: string; recipient_phone: string; service_id: number | null; attempts: number };

/** What the hand-over needs of a send, read once per batch job. */
type SendPlan = {
  recipientsAt: Date;
  text: string;
  encoding: 'GSM-7' | 'UCS-2';
  parts: number;
  /** The sender of each service's recipients: its short code. */
  senders: Map<number, string>;
};

/**
 * One hand-over batch (the send-batch job). The run claims the batch's range of recipient ids
 * (claimBatch, committed), then, per provider call:
 * 1. in a short transaction: check that the send still runs and its company may send, take
 *    hand-overs from the company's rate window, read the range's next pending recipients;
 * 2. hand them to the provider, with no transaction and no lock held;
 * 3. record every outcome with one UPDATE ... FROM unnest(...), and the counters, in a second
 *    transaction.
 * A worker that dies between 2 and 3 leaves its claim: the job's next run (the queue retries it)
 * offers those recipients again under the same recipient key once the claim has passed, which a
 * provider that deduplicates (the simulator) accepts once. Recipients the provider answered "retry"
 * stay pending, and the batch ends with HandOverLater: the queue runs it again after its backoff.
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
  await claimBatch(db, settings, job);
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
      await pause(claim.waitMs, signal);
      continue;
    }
    if (claim.rows.length === 0) break;
    after = BigInt(claim.rows[claim.rows.length - 1].id);
    const outcomes = await offer(companyProvider, plan, claim.rows);
    const outage = outcomes.find((outcome) => outcome.outcome === 'retry' && outcome.scope === 'account');
    await inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
      await recordOutcomes(trx, job, plan, settings, claim.rows, outcomes);
      await extendClaim(trx, settings, job);
      if (outage?.outcome === 'retry') await providerFailed(trx, job, outage.reason);
      else if (claim.providerFailing) await providerAnswered(trx, job.companyId);
    });
    if (outage) throw new HandOverLater('The provider is unavailable; the send is held');
    // Flow control (throttled, a 5xx, a time-out): those recipients are offered again after a
    // second, in this run, at the provider's pace; a provider that keeps at it ends the run.
    const heldBackFrom = firstHeldBack(claim.rows, outcomes);
    if (heldBackFrom !== null && heldBack++ < HELD_BACK_ROUNDS) {
      after = heldBackFrom - 1n;
      await pause(1000, signal);
      continue;
    }
    if (heldBackFrom === null) heldBack = 0;
    // Fewer than the rate allowed: nothing more of the range can be claimed in this run.
    if (claim.lastOfRange) break;
  }
  await finishBatch(db, settings, job, plan);
}

/** Rounds of flow control a run waits out before it leaves the batch to the queue's backoff. */
const HELD_BACK_ROUNDS = 30;

/** The lowest id the provider held back for flow control, or null. */
function firstHeldBack(rows: Claimed[], outcomes: SubmitOutcome[]) {
  const keys = new Set(
    outcomes
      .filter((outcome) => outcome.outcome === 'retry' && outcome.scope === 'request')
      .map((outcome) => outcome.recipientKey),
  );
  const first = rows.find((row) => keys.has(row.id));
  return first ? BigInt(first.id) : null;
}

/**
 * The provider refused or could not be reached for the whole account: the company's sends are
 * held with the reason (Message Details), the company's provider is marked failing since its
 * first such answer (the Admin Panel), and batches wait before they probe it again: as long as it
 * has been failing, between 1 s and 60 s.
 */
async function providerFailed(trx: Executor, job: BatchJob, reason: string) {
  await sql`
    insert into company_provider_health as h (company_id, reason, next_probe_at)
    values (${job.companyId}, ${reason}, now() + interval '1 second')
    on conflict (company_id) do update
      set reason = excluded.reason, updated_at = now(),
          next_probe_at = now() + least(interval '60 seconds', greatest(interval '1 second', now() - h.failing_since))`.execute(
    trx,
  );
  await holdSend(trx, job, MESSAGE_MESSAGES.providerUnavailable(reason));
}

/** The provider answered for a recipient again: it is no longer failing. */
async function providerAnswered(trx: Executor, companyId: number) {
  await sql`delete from company_provider_health where company_id = ${companyId}`.execute(trx);
}

/** Holds a running send; `reason` null: its company is not active. */
async function holdSend(trx: Executor, job: BatchJob, reason: string | null) {
  await sql`update message_sends set state = 'held', failed_reason = ${reason}, updated_at = now()
             where company_id = ${job.companyId} and message_id = ${job.messageId} and state in ('dispatch', 'held')`.execute(
    trx,
  );
}

/**
 * Claims the batch's range for this run: one row per batch, taken only when no other run holds it
 * (a job retried while its first run still worked) or that run's claim has passed (its worker
 * died). Held for claimSeconds, extended with every recorded outcome, released at the run's end.
 */
async function claimBatch(db: Database, settings: HandOverSettings, job: BatchJob) {
  const claimed = await inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
    const { rows } = await sql`
      insert into hand_over_claims as c (company_id, message_id, first_id, claimed_until)
      values (${job.companyId}, ${job.messageId}, ${job.firstId},
              now() + make_interval(secs => ${settings.claimSeconds}))
      on conflict (company_id, message_id, first_id) do update set claimed_until = excluded.claimed_until
       where c.claimed_until <= now()
      returning 1`.execute(trx);
    return rows.length > 0;
  });
  if (!claimed) throw new HandOverLater('Another run holds this batch');
}

async function extendClaim(trx: Executor, settings: HandOverSettings, job: BatchJob) {
  await sql`
    update hand_over_claims set claimed_until = now() + make_interval(secs => ${settings.claimSeconds})
     where company_id = ${job.companyId} and message_id = ${job.messageId} and first_id = ${job.firstId}`.execute(
    trx,
  );
}

function releaseBatch(db: Database, job: BatchJob) {
  return inTenantTransaction(db, companyScope(job.companyId), (trx) =>
    sql`delete from hand_over_claims
         where company_id = ${job.companyId} and message_id = ${job.messageId} and first_id = ${job.firstId}`.execute(
      trx,
    ),
  );
}

/** Ends the batch: done when none of its range is pending, else later (or failed past the validity). */
async function finishBatch(db: Database, settings: HandOverSettings, job: BatchJob, plan: SendPlan) {
  const left = await inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
    const { rows } = await sql<{ left: number; expired: boolean }>`
      select (select count(*)::int from delivery_reports
               where company_id = ${job.companyId} and message_id = ${job.messageId}
                 and created_at = ${plan.recipientsAt} and id between ${job.firstId} and ${job.lastId}
                 and status = 'pending') as left,
             ${expiredSql(job, settings)} as expired`.execute(trx);
    const { left, expired } = rows[0];
    if (left > 0 && expired)
      await failPending(trx, job, plan, MESSAGE_MESSAGES.notHandedOverInTime(settings.sendValidityHours));
    // After this batch's records were committed: of two batches finishing together, the one that
    // settles second sees both.
    await settleSends(trx, job.companyId, [job.messageId]);
    return expired ? 0 : left;
  });
  if (left > 0) throw new HandOverLater(`${left} recipients of the batch are left to hand over`);
}

/** Whether the send is past its validity: its due time (the schedule, else its start) plus SEND_VALIDITY_HOURS. */
const expiredSql = (job: BatchJob, settings: HandOverSettings) => sql<boolean>`(
  select coalesce(m.scheduled_at, s.started_at) < now() - make_interval(hours => ${settings.sendValidityHours})
    from message_sends s join messages m on m.company_id = s.company_id and m.id = s.message_id
   where s.company_id = ${job.companyId} and s.message_id = ${job.messageId})`;

async function failPending(trx: Executor, job: BatchJob, plan: SendPlan, reason: string) {
  const failed = await sql`
    update delivery_reports set status = 'failed', error_message = ${reason}, updated_at = now()
     where company_id = ${job.companyId} and message_id = ${job.messageId} and created_at = ${plan.recipientsAt}
       and id between ${job.firstId} and ${job.lastId} and status = 'pending'`.execute(trx);
  const count = Number(failed.numAffectedRows ?? 0);
  await recordCountChanges(trx, job.companyId, [
    { messageId: job.messageId, from: 'pending', to: 'failed', count },
  ]);
}

type Claim =
  | { kind: 'rows'; rows: Claimed[]; providerFailing: boolean; lastOfRange: boolean }
  | { kind: 'throttled'; waitMs: number }
  /** The send no longer hands anything over (cancelled, failed, done): this run ends. */
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
    const { rows } = await sql<{
      state: string;
      held_reason: string | null;
      active: boolean;
      expired: boolean;
      provider_failure: string | null;
      provider_resting: boolean | null;
    }>`
      select s.state, s.failed_reason as held_reason, c.status = 'active' as active,
             ${expiredSql(job, settings)} as expired,
             h.reason as provider_failure, h.next_probe_at > now() as provider_resting
        from message_sends s
        join companies c on c.id = s.company_id
        left join company_provider_health h on h.company_id = s.company_id
       where s.company_id = ${companyId} and s.message_id = ${messageId}`.execute(trx);
    const send = rows[0];
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
    // Asked where the hand-over acts, before every claim: a send under way stops at its next batch.
    if (!send.active) {
      await holdSend(trx, job, null);
      return { kind: 'held' as const };
    }
    // The provider failed for the account a moment ago: wait for its next probe, without asking it.
    if (send.provider_resting) {
      await holdSend(trx, job, MESSAGE_MESSAGES.providerUnavailable(send.provider_failure ?? ''));
      return { kind: 'held' as const };
    }
    if (send.state === 'held')
      await sql`update message_sends set state = 'dispatch', failed_reason = null, updated_at = now()
                 where company_id = ${companyId} and message_id = ${messageId} and state = 'held'`.execute(
        trx,
      );
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
  // The batch's range is this run's (claimBatch): its next pending recipients are read, not locked.
  const rows = await inTenantTransaction(db, companyScope(companyId), async (trx) => {
    const { rows } = await sql<Claimed>`
      select id::text as id, recipient_phone, service_id, attempts
        from delivery_reports
       where company_id = ${companyId} and message_id = ${messageId} and created_at = ${plan.recipientsAt}
         and id > ${String(after)} and id <= ${job.lastId} and status = 'pending'
       -- The table's id, not the text one selected: '10' sorts before '6'.
       order by delivery_reports.id
       limit ${granted}`.execute(trx);
    return rows;
  });
  return { kind: 'rows', rows, providerFailing: state.providerFailing, lastOfRange: rows.length < granted };
}

async function offer(companyProvider: CompanyProvider, plan: SendPlan, rows: Claimed[]) {
  const outbound: OutboundSms[] = rows.map((row) => ({
    recipientKey: row.id,
    to: row.recipient_phone,
    from: (row.service_id !== null ? plan.senders.get(row.service_id) : undefined) ?? '',
    text: plan.text,
    encoding: plan.encoding,
    parts: plan.parts,
  }));
  try {
    return await companyProvider.provider.sendBatch(outbound);
  } catch (error) {
    // The interface says providers turn faults into retries; one that throws gets the same.
    const reason = `Provider error: ${(error as Error).message}`;
    return outbound.map(
      (sms): SubmitOutcome => ({ recipientKey: sms.recipientKey, outcome: 'retry', reason }),
    );
  }
}

type Recorded = {
  id: string;
  status: TDeliveryStatus;
  gatewayId: string | null;
  providerStatus: string | null;
  error: string | null;
  /** Whether this offer counts as one of the recipient's attempts. */
  counted: boolean;
};

/** Maps each claimed recipient's outcome onto its new row state (no answer counts as a retry). */
function recordOf(row: Claimed, outcome: SubmitOutcome | undefined, maxAttempts: number): Recorded {
  if (outcome?.outcome === 'accepted')
    return {
      id: row.id,
      status: 'submitted',
      gatewayId: outcome.providerMessageId,
      providerStatus: outcome.providerStatus ?? null,
      error: null,
      counted: true,
    };
  if (outcome?.outcome === 'rejected')
    return {
      id: row.id,
      status: 'rejected',
      gatewayId: null,
      providerStatus: outcome.providerStatus ?? null,
      error: outcome.reason,
      counted: true,
    };
  const reason = outcome?.reason ?? 'The provider did not answer for this recipient';
  // Flow control and outages are not the recipient's: they wait within the send's validity.
  const counted = (outcome?.scope ?? 'recipient') === 'recipient';
  const status = counted && row.attempts + 1 >= maxAttempts ? 'failed' : 'pending';
  return { id: row.id, status, gatewayId: null, providerStatus: null, error: reason, counted };
}

/**
 * Every outcome of a batch in one statement, then the counters' moves. A recipient left pending
 * is offered again at the job's next run. The provider ids handed out go to recipient_gateway_ids in the same statement: delivery
 * reports find their recipient there.
 */
async function recordOutcomes(
  trx: Executor,
  job: BatchJob,
  plan: SendPlan,
  settings: HandOverSettings,
  rows: Claimed[],
  outcomes: SubmitOutcome[],
) {
  const byKey = new Map(outcomes.map((outcome) => [outcome.recipientKey, outcome]));
  const records = rows.map((row) => recordOf(row, byKey.get(row.id), settings.maxAttempts));
  const { rows: moved } = await sql<{ status: TDeliveryStatus; count: number }>`
    with handed_over as (
      update delivery_reports d
         set status = u.status,
             gateway_message_id = u.gateway_id,
             provider_status = u.provider_status,
             error_message = u.error,
             attempts = d.attempts + case when u.counted then 1 else 0 end,
             submitted_at = case when u.status = 'submitted' then now() else d.submitted_at end,
             updated_at = now()
        from unnest(${records.map((r) => r.id)}::bigint[], ${records.map((r) => r.status)}::text[],
                    ${records.map((r) => r.gatewayId)}::text[], ${records.map((r) => r.providerStatus)}::text[],
                    ${records.map((r) => r.error)}::text[], ${records.map((r) => r.counted)}::boolean[])
             as u(id, status, gateway_id, provider_status, error, counted)
       where d.company_id = ${job.companyId} and d.message_id = ${job.messageId}
         and d.created_at = ${plan.recipientsAt} and d.id = u.id
         and d.id between ${records[0].id} and ${records[records.length - 1].id}
         -- A final status is never overwritten.
         and d.status = 'pending'
      returning d.company_id, d.gateway_message_id, d.created_at, d.message_id, d.id, d.status),
    gateway_ids as (
      insert into recipient_gateway_ids (company_id, gateway_message_id, created_at, message_id, id)
      select company_id, gateway_message_id, created_at, message_id, id
        from handed_over
       where gateway_message_id is not null)
    select status, count(*)::int as count from handed_over group by status`.execute(trx);
  const changes: CountChange[] = moved.map((row) => ({
    messageId: job.messageId,
    from: 'pending',
    to: row.status,
    count: row.count,
  }));
  await recordCountChanges(trx, job.companyId, changes);
}

async function readSendPlan(db: Database, job: BatchJob): Promise<SendPlan | null> {
  return inTenantTransaction(db, companyScope(job.companyId), async (trx) => {
    const { rows } = await sql<{
      recipients_at: Date | null;
      content: string;
      encoding: 'GSM-7' | 'UCS-2' | null;
      parts: number | null;
      service_ids: number[];
    }>`
      select s.recipients_at, m.content, m.encoding, m.parts, m.service_ids
        from message_sends s join messages m on m.company_id = s.company_id and m.id = s.message_id
       where s.company_id = ${job.companyId} and s.message_id = ${job.messageId}`.execute(trx);
    const row = rows[0];
    if (!row?.recipients_at) return null;
    const services = await trx
      .selectFrom('services')
      .select(['id', 'shortcode'])
      .where('company_id', '=', job.companyId)
      .where('id', 'in', row.service_ids.length > 0 ? row.service_ids : [0])
      .execute();
    return {
      recipientsAt: row.recipients_at,
      text: row.content,
      encoding: row.encoding ?? 'GSM-7',
      parts: Math.max(1, row.parts ?? 1),
      senders: new Map(services.map((service) => [service.id, service.shortcode])),
    };
  });
}

function pause(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
