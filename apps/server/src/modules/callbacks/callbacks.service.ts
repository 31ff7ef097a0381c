import type { TCallbackType, TCallbackUrls } from '@sms/contracts/callbacks/callback-urls';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import type { Executor } from '../../db/database.ts';
import { companyScope, inTenantTransaction } from '../../db/tenant-scope.ts';
import { badRequest, notFound } from '../../errors.ts';
import { type RequestContext, tenantOf } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import {
  callbackUrl,
  isCallbackTokenValid,
  readCallbackTokens,
  regenerateCallbackTokens,
} from './callback-tokens.ts';
import { findCompanyName } from './callbacks.repository.ts';

/** The company whose URLs this actor may see: their own, or any for platform staff. Others' ids are 404. */
async function companyInScope(trx: Executor, ctx: RequestContext, companyId: number) {
  const tenant = tenantOf(ctx.actor);
  if (tenant !== null && tenant !== companyId) throw notFound('Company');
  const company = await findCompanyName(trx, companyId);
  if (!company) throw notFound('Company');
  return company;
}

export function ownCompanyId(ctx: RequestContext) {
  if (ctx.actor.companyId === null) throw badRequest('Your account does not belong to a company');
  return ctx.actor.companyId;
}

export async function getCallbackUrls(
  deps: AppDeps,
  ctx: RequestContext,
  companyId: number,
): Promise<TCallbackUrls> {
  const { company, tokens } = await inActorTransaction(deps.db, ctx, async (trx) => {
    const company = await companyInScope(trx, ctx, companyId);
    return { company, tokens: await readCallbackTokens(trx, company.id, deps.keys.encryption) };
  });
  const url = (type: TCallbackType) => {
    const token = tokens[type];
    return token ? callbackUrl(deps.config.publicUrl, type, company.id, token) : null;
  };
  return {
    companyId: company.id,
    companyName: company.name,
    subscriptionCallbackUrl: url('subscription'),
    dlrCallbackUrl: url('dlr'),
  };
}

/** New tokens for both URLs; the old URLs stop working when this commits. */
export async function regenerateCallbackUrls(deps: AppDeps, ctx: RequestContext, companyId: number) {
  await inActorTransaction(deps.db, ctx, async (trx) => {
    await companyInScope(trx, ctx, companyId);
    await regenerateCallbackTokens(trx, companyId, deps.keys.encryption);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'REGENERATE',
      entity: 'COMPANY',
      entityId: companyId,
      companyId,
      details: { callbackUrls: ['subscription', 'dlr'] },
    });
  });
  return getCallbackUrls(deps, ctx, companyId);
}

export async function validateCallbackUrl(
  deps: AppDeps,
  type: TCallbackType,
  companyId: string,
  token: string,
) {
  const id = /^\d{1,15}$/.test(companyId) ? Number(companyId) : Number.NaN;
  if (!Number.isSafeInteger(id)) return false;
  // Public: the company the URL names is the only one this check may see.
  return inTenantTransaction(deps.db, companyScope(id), (trx) => isCallbackTokenValid(trx, type, id, token));
}
