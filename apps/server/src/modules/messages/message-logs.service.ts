import { totalPages } from '@sms/contracts/common/pagination';
import { jobStateOfMessage, toJobState } from '@sms/contracts/messages/job-status';
import {
  chipStatuses,
  MESSAGE_CHIPS,
  searchCountCap,
  type TListMessagesData,
  type TMessageChip,
} from '@sms/contracts/messages/list-messages';
import {
  MESSAGE_MESSAGES,
  type TDeliveryReport,
  type TJobStatus,
  type TMessage,
  type TMessageDirection,
  type TMessageStatus,
} from '@sms/contracts/messages/message';
import { summariseDeliveries } from '@sms/contracts/messages/message-details';
import type { JobWithMetadata } from 'pg-boss';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { Executor } from '../../db/database.ts';
import { notFound } from '../../errors.ts';
import { isoString } from '../../lib/iso-time.ts';
import { ANCHORS_FROM } from '../../lib/page-anchors.ts';
import { SEND_START_JOB } from '../../messaging/queue/jobs.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { readMessageDetails } from './message-details.repository.ts';
import * as repo from './message-logs.repository.ts';
import { searchMessagesWithCounts } from './message-search.repository.ts';
import { knownRecipientStart, recipientPageStart } from './recipient-page-anchors.ts';

/** Send states in which every recipient row has been written (migration 0006). */
const FANNED_OUT = new Set(['dispatch', 'done']);

export function presentMessage(row: repo.MessageRow): TMessage {
  return {
    id: row.id,
    content: row.content,
    message: row.content,
    msisdn: row.msisdn,
    direction: row.direction as TMessageDirection,
    status: row.status as TMessageStatus,
    createdAt: isoString(row.created_at),
    sent_at: row.sent_at ? isoString(row.sent_at) : null,
    scheduledAt: row.scheduled_at ? isoString(row.scheduled_at) : null,
    recipient_count: row.recipient_count,
    queue_job_id: row.queue_job_id,
    service:
      row.service_id !== null && row.service_name !== null
        ? { id: row.service_id, name: row.service_name }
        : null,
    serviceIds: row.service_ids,
    companyId: row.company_id,
    company: { name: row.company_name },
    encoding: row.encoding as TMessage['encoding'],
    parts: row.parts,
    cancelled:
      row.status === 'cancelled' && row.cancelled_at
        ? { at: isoString(row.cancelled_at), by: row.cancelled_by_name }
        : null,
    handover: row.handover,
  };
}

function presentDeliveryReport(row: repo.DeliveryReportRow): TDeliveryReport {
  return {
    id: row.id,
    recipient_phone: row.recipient_phone,
    status: row.status as TDeliveryReport['status'],
    gateway_message_id: row.gateway_message_id,
    delivered_at: row.delivered_at ? isoString(row.delivered_at) : null,
    error_message: row.error_message,
    attempts: row.attempts,
    updatedAt: isoString(row.updated_at),
  };
}

type ListQuery = {
  page: number;
  limit: number;
  chip: TMessageChip;
  direction?: string;
  status?: string;
  search?: string;
  companyId?: number;
};

/** The statuses a chip and a status filter allow together; null when neither narrows. */
function allowedStatuses(chip: TMessageChip, status: string | undefined): readonly string[] | null {
  const group = chipStatuses(chip);
  if (!status) return group;
  return group === null || group.includes(status as TMessageStatus) ? [status] : [];
}

export async function listMessages(
  deps: AppDeps,
  ctx: RequestContext,
  query: ListQuery,
): Promise<TListMessagesData> {
  // A company-scoped user reads their own company, whatever the query says.
  const companyId = tenantOf(ctx.actor) ?? query.companyId ?? null;
  const filter: repo.MessageFilter = {
    companyId,
    direction: query.direction,
    statuses: allowedStatuses(query.chip, query.status),
    search: query.search?.toLowerCase(),
  };

  return inActorTransaction(deps.db, ctx, async (trx) => {
    const offset = (query.page - 1) * query.limit;
    const { byStatus, searched, rows } = repo.hasSearch(filter)
      ? await searchMessagesWithCounts(trx, filter, offset, query.limit, searchCountCap(offset, query.limit))
      : { ...(await repo.listMessagesWithCounts(trx, filter, offset, query.limit)), searched: null };
    const sumOf = (wanted: repo.MessageFilter): repo.CappedCount => ({
      total: byStatus
        .filter((count) => repo.filterCounts(wanted, count))
        .reduce((sum, count) => sum + count.messages, 0),
      exact: true,
    });
    const counts = Object.fromEntries(
      MESSAGE_CHIPS.map((chip) => [chip.id, sumOf({ companyId, statuses: chip.statuses })]),
    ) as TListMessagesData['counts'];
    const total = searched ?? sumOf(filter);
    return {
      messages: rows.map(presentMessage),
      currentPage: query.page,
      totalPages: totalPages(total.total, query.limit),
      totalItems: total.total,
      totalIsExact: total.exact,
      counts,
    };
  });
}

type ReportsQuery = { page: number; limit: number; status?: string };

/** How many recipients a page of the message's list counts: those of one status, or all. */
const recipientsTotal = (counts: repo.DeliveryCounts, status: string | undefined) =>
  status ? (counts[status as keyof repo.DeliveryCounts] ?? 0) : summariseDeliveries(counts).total;

async function readReports(
  deps: AppDeps,
  db: Executor,
  message: repo.MessageRow,
  send: repo.MessageSendRow | undefined,
  counts: repo.DeliveryCounts,
  query: ReportsQuery,
) {
  const total = recipientsTotal(counts, query.status);
  const offset = (query.page - 1) * query.limit;
  let rows: repo.DeliveryReportRow[] = [];
  if (send?.recipients_at && total > 0) {
    const where = { companyId: message.company_id, messageId: message.id, recipientsAt: send.recipients_at };
    // A finished fan-out's recipients are fixed: a deep page starts from a remembered id instead
    // of walking every key before it. Status pages change as reports arrive, so they walk.
    const start =
      !query.status && FANNED_OUT.has(send.state)
        ? await recipientPageStart(deps, db, where, offset)
        : { anchorId: null, skip: offset };
    rows = await repo.listDeliveryReports(
      db,
      { ...where, status: query.status, fromId: start.anchorId ?? 0 },
      start.skip,
      query.limit,
    );
  }
  return {
    deliveryReports: rows.map(presentDeliveryReport),
    currentPage: query.page,
    totalPages: totalPages(total, query.limit),
    totalItems: total,
  };
}

/** What the queue keeps of a send's job (pg-boss deletes finished jobs after a while). */
type QueueJob = Pick<
  JobWithMetadata,
  'state' | 'retryCount' | 'startAfter' | 'startedOn' | 'completedOn' | 'output'
>;

const isoOrNull = (date: Date | null | undefined) => (date ? new Date(date).toISOString() : null);

function failureOf(job: QueueJob) {
  const output = job.output as { message?: unknown } | null;
  return job.state === 'failed' && typeof output?.message === 'string' ? output.message : null;
}

/**
 * The send's queue job in the spec's state names. The queue's job only starts a send (at its
 * time, with retries); the engine's per-message send state then carries it until every recipient
 * is handed over. So: before the send starts, the queue's job speaks (mapped by toJobState);
 * once it runs, the send state does, with progress from the recipient counters.
 */
function describeJob(
  message: repo.MessageRow,
  send: repo.MessageSendRow | undefined,
  job: QueueJob | null,
  counts: repo.DeliveryCounts,
  now: Date,
): TJobStatus | null {
  if (!send && !job && message.queue_job_id === null) return null;
  const summary = summariseDeliveries(counts);
  const handedOverPercent =
    summary.total === 0 ? 0 : Math.floor(((summary.total - summary.pending) / summary.total) * 100);
  const ran = job !== null && job.state !== 'created';
  const base = {
    id: message.queue_job_id,
    attempts: job ? job.retryCount + (ran ? 1 : 0) : send?.started_at ? 1 : 0,
    processedOn: isoOrNull(send?.started_at ?? (ran ? job?.startedOn : null)),
    finishedOn: null as string | null,
    failedReason: null as string | null,
  };
  switch (send?.state) {
    case 'fanout':
    case 'dispatch':
      return {
        ...base,
        status: 'active',
        progress: handedOverPercent,
      };
    case 'done':
      return {
        ...base,
        status: message.status === 'failed' ? 'failed' : 'completed',
        progress: 100,
        finishedOn: isoOrNull(send.handed_over_at ?? send.updated_at),
      };
    case 'held':
      // Its company is not active, or its provider is unavailable: the send waits (hand-over.ts).
      return {
        ...base,
        status: 'delayed',
        progress: handedOverPercent,
        failedReason: send.failed_reason ?? MESSAGE_MESSAGES.heldCompanyNotActive,
      };
    case 'failed':
      return {
        ...base,
        status: 'failed',
        progress: handedOverPercent,
        finishedOn: isoOrNull(send.updated_at),
        failedReason: send.failed_reason,
      };
    case 'cancelled':
      return {
        ...base,
        status: 'failed',
        progress: 0,
        finishedOn: isoOrNull(send.updated_at),
        failedReason: 'Cancelled',
      };
  }
  if (job) {
    return {
      ...base,
      status: toJobState(job.state, job.startAfter ? new Date(job.startAfter) : null, now),
      progress: 0,
      finishedOn: isoOrNull(job.completedOn),
      failedReason: failureOf(job),
    };
  }
  // The queue no longer holds the job: the message's own status says where it got to.
  return { ...base, status: jobStateOfMessage(message.status as TMessageStatus), progress: 0 };
}

/** pg-boss job ids are UUIDs; anything else (a row from before the queue) has no job to ask about. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The message if the caller may see it (another tenant's id reads as missing: 404, not 403), with
 * its send state and delivery counts.
 */
async function messageWithStateInScope(db: Executor, ctx: RequestContext, id: number) {
  const found = await repo.findMessageWithState(db, id, tenantOf(ctx.actor));
  if (!found) throw notFound('Message');
  return found;
}

/** Only a send that has not started needs the queue's word on its job. */
function readQueueJob(
  deps: AppDeps,
  db: Executor,
  message: repo.MessageRow,
  send: repo.MessageSendRow | undefined,
) {
  const started = send !== undefined && send.state !== 'waiting';
  if (started || !message.queue_job_id || !UUID.test(message.queue_job_id)) return null;
  return deps.messaging.queue.find(SEND_START_JOB, message.queue_job_id, db);
}

/**
 * The message, its job and a page of its recipients in one call (readMessageDetails), the page of
 * a finished send's whole list from the anchors this process holds for it. A deep page of a send
 * whose anchors are not here yet is walked in that call, and its anchors are read for the next.
 */
export async function getMessageDetails(deps: AppDeps, ctx: RequestContext, id: number, query: ReportsQuery) {
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const offset = (query.page - 1) * query.limit;
    const known = query.status ? null : knownRecipientStart(deps, id, offset);
    const found = await readMessageDetails(
      trx,
      id,
      tenantOf(ctx.actor),
      query.status ?? null,
      offset,
      query.limit,
      known,
    );
    if (!found) throw notFound('Message');
    const { message, send, counts } = found;
    const total = recipientsTotal(counts, query.status);
    const recipientsAt = send?.recipients_at;
    if (
      recipientsAt &&
      total > 0 &&
      !query.status &&
      FANNED_OUT.has(send.state) &&
      offset >= ANCHORS_FROM &&
      known?.recipientsAt.getTime() !== recipientsAt.getTime()
    )
      await recipientPageStart(
        deps,
        trx,
        { companyId: message.company_id, messageId: message.id, recipientsAt },
        offset,
      );
    const job = await readQueueJob(deps, trx, message, send);
    const rows = recipientsAt && total > 0 ? found.reports : [];
    return {
      deliveryReports: rows.map(presentDeliveryReport),
      currentPage: query.page,
      totalPages: totalPages(total, query.limit),
      totalItems: total,
      message: presentMessage(message),
      jobStatus: describeJob(message, send, job, counts, new Date()),
      summary: summariseDeliveries(counts),
    };
  });
}

export async function listDeliveryReports(
  deps: AppDeps,
  ctx: RequestContext,
  id: number,
  query: ReportsQuery,
) {
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const { message, send, counts } = await messageWithStateInScope(trx, ctx, id);
    return readReports(deps, trx, message, send, counts, query);
  });
}

export async function getJobStatus(deps: AppDeps, ctx: RequestContext, id: number) {
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const { message, send, counts } = await messageWithStateInScope(trx, ctx, id);
    const job = await readQueueJob(deps, trx, message, send);
    return { jobStatus: describeJob(message, send, job, counts, new Date()) };
  });
}
