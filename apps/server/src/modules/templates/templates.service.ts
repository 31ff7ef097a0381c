import { mergeFieldsOf } from '@sms/contracts/templates/merge-fields';
import { TEMPLATE_MESSAGES, TEMPLATES_PER_COMPANY, type TTemplate } from '@sms/contracts/templates/template';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { Executor } from '../../db/database.ts';
import { badRequest, conflict, conflictOnDuplicate, forbidden, notFound } from '../../errors.ts';
import { isoString } from '../../lib/iso-time.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import * as repo from './templates.repository.ts';

export function presentTemplate(row: repo.TemplateRow): TTemplate {
  return {
    id: row.id,
    name: row.name,
    body: row.body,
    fields: mergeFieldsOf(row.body),
    companyId: row.company_id,
    company: { name: row.company_name },
    createdAt: isoString(row.created_at),
    updatedAt: isoString(row.updated_at),
  };
}

/** Content managers start messages from templates but do not change them, as they view messaging only. */
function refuseContentManager(ctx: RequestContext) {
  if (ctx.actor.role === 'content_manager') throw forbidden(TEMPLATE_MESSAGES.contentManagerEdit);
}

/** system_admin names the company; everyone else works in their own, whatever the payload says. */
async function targetCompany(db: Executor, ctx: RequestContext, requested: number | undefined) {
  const tenant = tenantOf(ctx.actor);
  if (tenant !== null) return tenant;
  if (!requested || !(await repo.companyExists(db, requested)))
    throw badRequest(TEMPLATE_MESSAGES.companyRequired, [`companyId: ${TEMPLATE_MESSAGES.companyRequired}`]);
  return requested;
}

async function ensureNameIsFree(db: Executor, companyId: number, name: string, exceptId?: number) {
  if (await repo.nameTaken(db, companyId, name, exceptId))
    throw conflict(TEMPLATE_MESSAGES.duplicateName(name));
}

export async function listTemplates(deps: AppDeps, ctx: RequestContext, companyId?: number) {
  const rows = await inActorTransaction(deps.db, ctx, (trx) =>
    repo.listTemplates(trx, tenantOf(ctx.actor) ?? companyId ?? null),
  );
  return rows.map(presentTemplate);
}

export async function createTemplate(
  deps: AppDeps,
  ctx: RequestContext,
  values: { name: string; body: string; companyId?: number },
) {
  refuseContentManager(ctx);
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const companyId = await targetCompany(trx, ctx, values.companyId);
    if ((await repo.countTemplates(trx, companyId)) >= TEMPLATES_PER_COMPANY)
      throw conflict(TEMPLATE_MESSAGES.tooMany);
    await ensureNameIsFree(trx, companyId, values.name);
    const id = await conflictOnDuplicate(
      repo.insertTemplate(trx, {
        companyId,
        name: values.name,
        body: values.body,
        createdBy: ctx.actor.userId,
      }),
      TEMPLATE_MESSAGES.duplicateName(values.name),
    );
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'CREATE',
      entity: 'TEMPLATE',
      entityId: id,
      companyId,
      details: { name: values.name, body: values.body },
    });
    const row = await repo.findTemplate(trx, companyId, id);
    return presentTemplate(row!);
  });
}

export async function updateTemplate(
  deps: AppDeps,
  ctx: RequestContext,
  id: number,
  values: { name: string; body: string },
) {
  refuseContentManager(ctx);
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const current = await repo.findTemplate(trx, tenantOf(ctx.actor), id);
    if (!current) throw notFound('Template');
    await ensureNameIsFree(trx, current.company_id, values.name, id);
    await conflictOnDuplicate(
      repo.updateTemplate(trx, current.company_id, id, values),
      TEMPLATE_MESSAGES.duplicateName(values.name),
    );
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'UPDATE',
      entity: 'TEMPLATE',
      entityId: id,
      companyId: current.company_id,
      details: {
        name: { from: current.name, to: values.name },
        body: { from: current.body, to: values.body },
      },
    });
    const row = await repo.findTemplate(trx, current.company_id, id);
    return presentTemplate(row!);
  });
}

export async function deleteTemplate(deps: AppDeps, ctx: RequestContext, id: number) {
  refuseContentManager(ctx);
  return inActorTransaction(deps.db, ctx, async (trx) => {
    const current = await repo.findTemplate(trx, tenantOf(ctx.actor), id);
    if (!current) throw notFound('Template');
    await repo.deleteTemplate(trx, current.company_id, id);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'DELETE',
      entity: 'TEMPLATE',
      entityId: id,
      companyId: current.company_id,
      details: { name: current.name, body: current.body },
    });
    return { id, deleted: true as const };
  });
}
