import { MERGE_PREVIEW_SAMPLE } from '@sms/contracts/messages/merge-preview';
import { MESSAGE_MAX_LENGTH, MESSAGE_MESSAGES } from '@sms/contracts/messages/message';
import type { TSendBulkMessageData } from '@sms/contracts/messages/send-bulk-message';
import { measureSms } from '@sms/contracts/messages/sms-encoding';
import { resolvePlanLimits } from '@sms/contracts/plans/plan-catalogue';
import { longestExpansion, MERGE_FIELD_MESSAGES, mergeFieldsOf } from '@sms/contracts/templates/merge-fields';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { Executor } from '../../db/database.ts';
import { setStatementTimeout } from '../../db/tenant-scope.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../errors.ts';
import { adjustUsage, lockUsage, usageMonthOf } from '../../messaging/monthly-usage.ts';
import { enqueueSend, removeSendJob } from '../../messaging/send-jobs.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { oncePerKey, replayAnswer, requestHashOf, type StoredAnswer } from './idempotency.ts';
import * as mergeRepo from './merge-fields.repository.ts';
import { findMessage } from './message-logs.repository.ts';
import { presentMessage } from './message-logs.service.ts';
import * as repo from './send-message.repository.ts';

/** The send form's fields, as the contracts parse them. */
export type MessageRequest = {
  serviceIds: number[];
  message: string;
  scheduleType: 'now' | 'scheduled';
  scheduledAt?: string;
};

export type Targets = { companyId: number; serviceIds: number[]; messagesLimit: number };

/** Content managers see messages but may not send or change them (spec section 6). */
function refuseReadOnly(ctx: RequestContext) {
  if (ctx.actor.role === 'content_manager') throw forbidden(MESSAGE_MESSAGES.contentManagerSend);
}

/** The services named, all found in the caller's scope (another company's read as not found) and of one company. */
async function findServicesOfOneCompany(trx: Executor, ctx: RequestContext, serviceIds: number[]) {
  const services = await repo.findServices(trx, serviceIds, tenantOf(ctx.actor));
  if (services.length !== serviceIds.length)
    throw new AppError('not_found', MESSAGE_MESSAGES.serviceNotFound);
  const companies = new Set(services.map((service) => service.company_id));
  if (companies.size !== 1)
    throw badRequest(MESSAGE_MESSAGES.servicesOfOneCompany, [
      `serviceIds: ${MESSAGE_MESSAGES.servicesOfOneCompany}`,
    ]);
  return services;
}

/** The services of a send: found and of one company, all active, and that company active. */
export async function resolveTargets(
  trx: Executor,
  ctx: RequestContext,
  serviceIds: number[],
): Promise<Targets> {
  // A draft may be saved without services (old rows carry none); it cannot be sent without them.
  if (serviceIds.length === 0)
    throw badRequest(MESSAGE_MESSAGES.servicesRequired, [`serviceIds: ${MESSAGE_MESSAGES.servicesRequired}`]);
  const services = await findServicesOfOneCompany(trx, ctx, serviceIds);
  const inactive = services.find((service) => service.status !== 'active');
  if (inactive) {
    const message = MESSAGE_MESSAGES.serviceInactive(inactive.name);
    throw badRequest(message, [`serviceIds: ${message}`]);
  }
  const companyId = services[0].company_id;
  const company = await repo.findCompanyLimits(trx, companyId);
  if (company?.status !== 'active') throw forbidden(MESSAGE_MESSAGES.companyNotActive);
  const { messagesLimit } = resolvePlanLimits(company.plan, {
    messagesLimit: company.messages_limit,
    subscribersLimit: null,
    servicesLimit: null,
  });
  return { companyId, serviceIds: services.map((service) => service.id), messagesLimit };
}

const scheduleOf = (request: MessageRequest) =>
  request.scheduleType === 'scheduled' && request.scheduledAt ? new Date(request.scheduledAt) : null;

export function measure(content: string) {
  const { encoding, parts } = measureSms(content);
  return { encoding, parts: Math.max(1, parts) };
}

/**
 * A bulk send's measure: a plain text's own; with merge fields, that of the longest text among the
 * services' recipients (longestExpansion over each field's stats, read set-based), refused over 160
 * characters. Its parts are what the send reserves per recipient; the engine renders and measures
 * each recipient's own text at hand-over.
 */
async function measureForRecipients(deps: AppDeps, trx: Executor, targets: Targets, content: string) {
  const mergeFields = mergeFieldsOf(content);
  if (mergeFields.length === 0) return { ...measure(content), mergeFields };
  // One pass over every recipient: a million take longer than a request's statement time-out.
  await setStatementTimeout(trx, deps.config.statementTimeouts.jobMs);
  const stats = await mergeRepo.mergeFieldStats(trx, targets.companyId, targets.serviceIds, mergeFields);
  await setStatementTimeout(trx, deps.config.statementTimeouts.requestMs);
  const longest = longestExpansion(content, stats);
  if (longest.length > MESSAGE_MAX_LENGTH) {
    const message = MERGE_FIELD_MESSAGES.longestTooLong(longest.length);
    throw badRequest(message, [`message: ${message}`]);
  }
  return { encoding: longest.encoding, parts: longest.parts, mergeFields };
}

/**
 * Queues (or schedules) a message in the caller's transaction: the monthly limit is checked and
 * the send's messages (recipients x parts) reserved in its month, then its job is enqueued, so a
 * send over the limit is refused before anything is queued, and an accepted one is never lost.
 */
async function queueMessage(
  trx: Executor,
  deps: AppDeps,
  targets: Targets,
  messageId: number,
  scheduledAt: Date | null,
  units: number,
) {
  const month = usageMonthOf(scheduledAt ?? new Date());
  const used = await lockUsage(trx, targets.companyId, month);
  if (used + units > targets.messagesLimit)
    throw forbidden(MESSAGE_MESSAGES.monthlyLimitReached(targets.messagesLimit, used, units));
  await adjustUsage(trx, targets.companyId, month, units);
  await repo.saveReservation(trx, targets.companyId, messageId, units, month);
  await repo.setMessageStatus(trx, targets.companyId, messageId, scheduledAt ? 'scheduled' : 'queued');
  await enqueueSend(trx, deps.messaging.queue, targets.companyId, messageId, scheduledAt);
}

/** Gives back what a waiting send reserved, and removes its job (before a move, a send-now or a cancel). */
async function unqueueMessage(trx: Executor, deps: AppDeps, message: repo.LockedMessage) {
  await removeSendJob(trx, deps.messaging.queue, message.queue_job_id);
  const reservation = await repo.findReservation(trx, message.company_id, message.id);
  if (reservation?.usage_month && reservation.reserved_units > 0) {
    await adjustUsage(trx, message.company_id, reservation.usage_month, -reservation.reserved_units);
    await repo.saveReservation(trx, message.company_id, message.id, 0, null);
  }
}

/** A change to one message: recorded in the audit trail, then answered with the message as it now stands. */
type MessageChange = {
  action: 'CREATE' | 'UPDATE';
  messageId: number;
  companyId: number;
  details: Record<string, unknown>;
  recipientCount: number;
  statusCode: number;
};

async function auditAndAnswer(
  trx: Executor,
  ctx: RequestContext,
  change: MessageChange,
): Promise<StoredAnswer> {
  const { action, messageId, companyId, details, recipientCount, statusCode } = change;
  await recordAudit(trx, auditSourceOf(ctx), {
    action,
    entity: 'MESSAGE',
    entityId: messageId,
    companyId,
    details,
  });
  const row = await findMessage(trx, messageId, tenantOf(ctx.actor));
  if (!row) throw notFound('Message');
  const data: TSendBulkMessageData = { message: presentMessage(row), recipientCount };
  return { statusCode, body: { success: true, data } };
}

/** Locks a message of the caller's scope that still waits (a draft or scheduled); 409 with `refusal` once its send began. */
async function lockWaitingMessage(trx: Executor, ctx: RequestContext, id: number, refusal: string) {
  const message = await repo.lockMessage(trx, id, tenantOf(ctx.actor));
  if (!message) throw notFound('Message');
  if (message.status !== 'pending' && message.status !== 'scheduled') throw conflict(refusal);
  return message;
}

/**
 * A write on the send path, in the caller's transaction and once per Idempotency-Key: a retry is
 * answered with the first answer before anything else is read; `prepare` makes the checks and names
 * the company the key is claimed in; `write` runs once under that claim.
 */
export async function writeOncePerKey<Prepared extends { companyId: number }>(
  deps: AppDeps,
  ctx: RequestContext,
  once: { key: string | null; hash: Buffer },
  prepare: (trx: Executor) => Promise<Prepared>,
  write: (trx: Executor, prepared: Prepared) => Promise<StoredAnswer>,
): Promise<StoredAnswer> {
  refuseReadOnly(ctx);
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const replayed = await replayAnswer(trx, ctx.actor.userId, once.key, once.hash);
    if (replayed) return replayed;
    const prepared = await prepare(trx);
    const claim = { companyId: prepared.companyId, userId: ctx.actor.userId, ...once };
    return oncePerKey(trx, claim, () => write(trx, prepared));
  });
}

async function recipientsOf(trx: Executor, targets: Targets, required: boolean) {
  const { count } = await repo.countRecipients(trx, targets.companyId, targets.serviceIds);
  if (required && count === 0)
    throw badRequest(MESSAGE_MESSAGES.noRecipients, [`serviceIds: ${MESSAGE_MESSAGES.noRecipients}`]);
  return count;
}

const auditDetails = (request: MessageRequest, recipientCount: number, parts: number) => ({
  serviceIds: request.serviceIds,
  scheduleType: request.scheduleType,
  scheduledAt: request.scheduledAt ?? null,
  recipientCount,
  parts,
  length: request.message.length,
});

/**
 * POST /messages/bulk/send, and POST /messages (draft: true): writes the message and, unless it
 * is a draft, enqueues its send in the same transaction. Runs once per Idempotency-Key.
 */
export async function createMessage(
  deps: AppDeps,
  ctx: RequestContext,
  request: MessageRequest,
  options: { draft: boolean; idempotencyKey: string | null },
): Promise<StoredAnswer> {
  const hash = requestHashOf(options.draft ? 'create-draft' : 'send-bulk', request);
  const answer = await writeOncePerKey(
    deps,
    ctx,
    { key: options.idempotencyKey, hash },
    (trx) => resolveTargets(trx, ctx, request.serviceIds),
    async (trx, targets) => {
      const recipientCount = await recipientsOf(trx, targets, !options.draft);
      const { encoding, parts, mergeFields } = await measureForRecipients(
        deps,
        trx,
        targets,
        request.message,
      );
      const scheduledAt = scheduleOf(request);
      // The month's usage row before the message: every send locks it first (a message's insert
      // locks its services' rows, and a transactional send holds the usage row while it inserts).
      if (!options.draft) await lockUsage(trx, targets.companyId, usageMonthOf(scheduledAt ?? new Date()));
      const messageId = await repo.insertMessage(trx, {
        companyId: targets.companyId,
        serviceIds: targets.serviceIds,
        content: request.message,
        status: 'pending',
        scheduledAt,
        encoding,
        parts,
        mergeFields,
        recipientCount,
        createdBy: ctx.actor.userId,
      });
      if (!options.draft)
        await queueMessage(trx, deps, targets, messageId, scheduledAt, recipientCount * parts);
      return auditAndAnswer(trx, ctx, {
        action: 'CREATE',
        messageId,
        companyId: targets.companyId,
        details: { ...auditDetails(request, recipientCount, parts), draft: options.draft },
        recipientCount,
        statusCode: 201,
      });
    },
  );
  return answer;
}

/**
 * PUT /messages/{id}: a draft's or a scheduled message's services, text and timing. A scheduled
 * message is moved (its job replaced) or, with scheduleType now, queued at once. Refused once the
 * send has started.
 */
export async function updateMessage(deps: AppDeps, ctx: RequestContext, id: number, request: MessageRequest) {
  refuseReadOnly(ctx);
  const answer = await inActorTransaction(deps.db, ctx, async (trx) => {
    const message = await lockWaitingMessage(trx, ctx, id, MESSAGE_MESSAGES.notEditable);
    const targets = await resolveTargets(trx, ctx, request.serviceIds);
    if (targets.companyId !== message.company_id)
      throw badRequest(MESSAGE_MESSAGES.servicesOfOneCompany, [
        `serviceIds: ${MESSAGE_MESSAGES.servicesOfOneCompany}`,
      ]);
    const wasScheduled = message.status === 'scheduled';
    const recipientCount = await recipientsOf(trx, targets, wasScheduled);
    const { encoding, parts, mergeFields } = await measureForRecipients(deps, trx, targets, request.message);
    const scheduledAt = scheduleOf(request);
    if (wasScheduled) await unqueueMessage(trx, deps, message);
    await repo.updateDraft(trx, message.company_id, id, {
      serviceIds: targets.serviceIds,
      content: request.message,
      status: 'pending',
      scheduledAt,
      encoding,
      parts,
      mergeFields,
      recipientCount,
    });
    if (wasScheduled) await queueMessage(trx, deps, targets, id, scheduledAt, recipientCount * parts);
    return auditAndAnswer(trx, ctx, {
      action: 'UPDATE',
      messageId: id,
      companyId: message.company_id,
      details: { ...auditDetails(request, recipientCount, parts), previousScheduledAt: message.scheduled_at },
      recipientCount,
      statusCode: 200,
    });
  });
  return answer;
}

/**
 * POST /messages/{id}/send: a draft is queued (or scheduled, if it carries a future time); a
 * scheduled message is sent now instead. Runs once per Idempotency-Key.
 */
export async function sendExistingMessage(
  deps: AppDeps,
  ctx: RequestContext,
  id: number,
  idempotencyKey: string | null,
) {
  const hash = requestHashOf('send-message', { id });
  const answer = await writeOncePerKey(
    deps,
    ctx,
    { key: idempotencyKey, hash },
    async (trx) => {
      const message = await lockWaitingMessage(trx, ctx, id, MESSAGE_MESSAGES.notSendable);
      const targets = await resolveTargets(trx, ctx, message.service_ids);
      return { companyId: targets.companyId, targets, message };
    },
    async (trx, { targets, message }) => {
      const recipientCount = await recipientsOf(trx, targets, true);
      // Measured again: the recipients, and their fields, may have changed since the draft was saved.
      const measured = await measureForRecipients(deps, trx, targets, message.content);
      const { parts } = measured;
      let scheduledAt: Date | null = null;
      if (message.status === 'scheduled') await unqueueMessage(trx, deps, message);
      else if (message.scheduled_at) {
        if (message.scheduled_at.getTime() <= Date.now())
          throw badRequest(MESSAGE_MESSAGES.scheduleInPast, [
            `scheduledAt: ${MESSAGE_MESSAGES.scheduleInPast}`,
          ]);
        scheduledAt = message.scheduled_at;
      }
      await repo.updateDraft(trx, message.company_id, id, {
        serviceIds: targets.serviceIds,
        content: message.content,
        status: 'pending',
        scheduledAt: message.status === 'scheduled' ? null : message.scheduled_at,
        ...measured,
        recipientCount,
      });
      await queueMessage(trx, deps, targets, id, scheduledAt, recipientCount * parts);
      return auditAndAnswer(trx, ctx, {
        action: 'UPDATE',
        messageId: id,
        companyId: message.company_id,
        details: { send: scheduledAt ? 'scheduled' : 'now', scheduledAt, recipientCount },
        recipientCount,
        statusCode: 200,
      });
    },
  );
  return answer;
}

/**
 * DELETE /messages/{id}: a scheduled message is cancelled (its job removed, its reservation given
 * back) and kept with status cancelled, who cancelled it and when, so the list still shows it; a
 * draft is deleted. The audit trail records both. A message that has started sending, or was
 * sent, stays as it is: it is history.
 */
export async function deleteMessage(deps: AppDeps, ctx: RequestContext, id: number) {
  refuseReadOnly(ctx);
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const message = await lockWaitingMessage(trx, ctx, id, MESSAGE_MESSAGES.notCancellable);
    const cancelled = message.status === 'scheduled';
    if (cancelled) {
      await unqueueMessage(trx, deps, message);
      await repo.markMessageCancelled(trx, message.company_id, id, {
        userId: ctx.actor.userId,
        name: ctx.actor.name,
      });
    } else await repo.deleteMessage(trx, message.company_id, id);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: cancelled ? 'UPDATE' : 'DELETE',
      entity: 'MESSAGE',
      entityId: id,
      companyId: message.company_id,
      details: {
        ...(cancelled ? { cancelled: true } : {}),
        status: message.status,
        scheduledAt: message.scheduled_at,
        serviceIds: message.service_ids,
        jobId: message.queue_job_id,
      },
    });
    return { id, deleted: !cancelled, cancelled };
  });
}

/**
 * GET /messages/merge-fields: what the services' recipients hold for the fields a text uses (set-based
 * stats, for the longest text) and a few of them with their attributes, for the form's preview.
 */
export async function previewMergeFields(
  deps: AppDeps,
  ctx: RequestContext,
  serviceIds: number[],
  fields: string[],
) {
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const services = await findServicesOfOneCompany(trx, ctx, serviceIds);
    const companyId = services[0].company_id;
    const ids = services.map((service) => service.id);
    const samples = await repo.sampleRecipients(trx, companyId, ids, MERGE_PREVIEW_SAMPLE);
    await setStatementTimeout(trx, deps.config.statementTimeouts.jobMs);
    return { fields: await mergeRepo.mergeFieldStats(trx, companyId, ids, fields), samples };
  });
}

/** GET /messages/subscribers: who a send to these services would reach. */
export async function previewRecipients(deps: AppDeps, ctx: RequestContext, serviceIds: number[]) {
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const services = await findServicesOfOneCompany(trx, ctx, serviceIds);
    const companyId = services[0].company_id;
    const ids = services.map((service) => service.id);
    const { count, exact } = await repo.countRecipients(trx, companyId, ids);
    const sample = await repo.sampleRecipients(trx, companyId, ids);
    return { recipientCount: count, exact, subscribers: sample.map(({ id, msisdn }) => ({ id, msisdn })) };
  });
}
