import { SERVICE_MESSAGES, type TServiceFormValues } from '@sms/contracts/services/service';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { Executor } from '../../db/database.ts';
import { badRequest, conflict, conflictOnDuplicate, forbidden, notFound } from '../../errors.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { ensureServiceRoom } from '../plans/plan-limits.ts';
import { presentService } from './present-service.ts';
import * as repo from './services.repository.ts';

type ListFilter = { companyId?: number; status?: string; search?: string };

export async function listServices(deps: AppDeps, ctx: RequestContext, filter: ListFilter) {
  const tenant = tenantOf(ctx.actor);
  // A company-scoped user's own company, whatever the query says.
  const companyId = tenant ?? filter.companyId ?? null;
  const rows = await inActorTransaction(deps.db, ctx, (trx) =>
    repo.listServices(trx, { companyId, status: filter.status, search: filter.search }),
  );
  return { services: rows.map(presentService), totalItems: rows.length };
}

export async function getService(deps: AppDeps, ctx: RequestContext, id: number) {
  const row = await inActorTransaction(deps.db, ctx, (trx) => repo.findService(trx, id, tenantOf(ctx.actor)));
  if (!row) throw notFound('Service');
  return presentService(row);
}

function refuseContentManager(ctx: RequestContext, message: string) {
  if (ctx.actor.role === 'content_manager') throw forbidden(message);
}

/** system_admin names the company; everyone else works in their own, whatever the payload says. */
async function targetCompany(db: Executor, ctx: RequestContext, requested: number | null | undefined) {
  const tenant = tenantOf(ctx.actor);
  if (tenant !== null) return tenant;
  if (!requested)
    throw badRequest(SERVICE_MESSAGES.companyRequired, [`companyId: ${SERVICE_MESSAGES.companyRequired}`]);
  if (!(await repo.companyExists(db, requested))) throw badRequest(SERVICE_MESSAGES.companyNotFound);
  return requested;
}

async function ensurePairIsFree(db: Executor, values: TServiceFormValues, exceptId?: number) {
  const taken = await repo.findServiceByPair(db, values.shortcode, values.keyword, exceptId);
  if (taken) throw conflict(SERVICE_MESSAGES.duplicate(values.shortcode, values.keyword.toUpperCase()));
}

export async function createService(deps: AppDeps, ctx: RequestContext, values: TServiceFormValues) {
  refuseContentManager(ctx, SERVICE_MESSAGES.contentManagerEdit);
  const id = await conflictOnDuplicate(
    inActorTransaction(deps.db, ctx, async (trx) => {
      const companyId = await targetCompany(trx, ctx, values.companyId);
      await ensurePairIsFree(trx, values);
      await ensureServiceRoom(trx, companyId);
      const serviceId = await repo.insertService(trx, { ...values, companyId });
      await recordAudit(trx, auditSourceOf(ctx), {
        action: 'CREATE',
        entity: 'SERVICE',
        entityId: serviceId,
        companyId,
        details: { name: values.name, shortcode: values.shortcode, keyword: values.keyword },
      });
      return serviceId;
    }),
    SERVICE_MESSAGES.duplicate(values.shortcode, values.keyword.toUpperCase()),
  );
  return getService(deps, ctx, id);
}

export async function updateService(
  deps: AppDeps,
  ctx: RequestContext,
  id: number,
  values: TServiceFormValues,
) {
  refuseContentManager(ctx, SERVICE_MESSAGES.contentManagerEdit);
  await conflictOnDuplicate(
    inActorTransaction(deps.db, ctx, async (trx) => {
      const current = await repo.lockService(trx, id, tenantOf(ctx.actor));
      if (!current) throw notFound('Service');
      const companyId =
        tenantOf(ctx.actor) ??
        (values.companyId ? await targetCompany(trx, ctx, values.companyId) : current.company_id);
      if (
        companyId !== current.company_id &&
        ((await repo.hasSubscriptions(trx, current.company_id, id)) ||
          (await repo.hasMessages(trx, current.company_id, id)))
      )
        throw conflict(SERVICE_MESSAGES.cannotMove);
      if (companyId !== current.company_id) await ensureServiceRoom(trx, companyId);
      await ensurePairIsFree(trx, values, id);
      await repo.updateService(trx, current.company_id, id, { ...values, companyId });
      const changes = Object.fromEntries(
        (
          [
            ['name', current.name, values.name],
            ['shortcode', current.shortcode, values.shortcode],
            ['keyword', current.keyword, values.keyword],
            ['description', current.description, values.description],
            ['billingType', current.billing_type, values.billingType],
            ['status', current.status, values.status],
            ['companyId', current.company_id, companyId],
          ] as const
        )
          .filter(([, before, after]) => before !== after)
          .map(([field, before, after]) => [field, { from: before, to: after }]),
      );
      await recordAudit(trx, auditSourceOf(ctx), {
        action: 'UPDATE',
        entity: 'SERVICE',
        entityId: id,
        companyId,
        details: { changes },
      });
    }),
    SERVICE_MESSAGES.duplicate(values.shortcode, values.keyword.toUpperCase()),
  );
  return getService(deps, ctx, id);
}

/**
 * Deleting is refused (409) while the service has active subscribers or message history, unless
 * force is set: then its subscriptions end and its messages stay in the history, unlinked.
 */
export async function deleteService(deps: AppDeps, ctx: RequestContext, id: number, force: boolean) {
  refuseContentManager(ctx, SERVICE_MESSAGES.contentManagerDelete);
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const current = await repo.lockService(trx, id, tenantOf(ctx.actor));
    if (!current) throw notFound('Service');
    const subscribers = current.subscriber_count;
    const messages = current.message_count;
    if (!force && (subscribers > 0 || messages > 0))
      throw conflict(SERVICE_MESSAGES.deleteNeedsForce(subscribers, messages));
    await repo.deleteService(trx, current.company_id, id);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'DELETE',
      entity: 'SERVICE',
      entityId: id,
      companyId: current.company_id,
      details: {
        name: current.name,
        shortcode: current.shortcode,
        keyword: current.keyword,
        subscriptionsEnded: subscribers,
        messagesKept: messages,
        force,
      },
    });
    return { id, deleted: true as const, subscriptionsEnded: subscribers, messagesKept: messages };
  });
}
