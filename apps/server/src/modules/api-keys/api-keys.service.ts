import { API_KEY_MESSAGES } from '@sms/contracts/api-keys/api-key';
import type { TCreateApiKeyRequest } from '@sms/contracts/api-keys/create-api-key';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction } from '../../db/actor-transaction.ts';
import { AppError, badRequest, conflict } from '../../errors.ts';
import type { RequestContext } from '../../request-context.ts';
import { auditSourceOf, recordAudit } from '../audit/record-audit.ts';
import { generateApiKey } from './api-key-secret.ts';
import * as repo from './api-keys.repository.ts';
import { presentApiKey } from './present-api-key.ts';

/** Keys are a company admin's, for their own company (the route's guard admits no one else). */
function companyOf(ctx: RequestContext) {
  if (ctx.actor.companyId === null) throw badRequest('Your account does not belong to a company');
  return ctx.actor.companyId;
}

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

export async function listApiKeys(deps: AppDeps, ctx: RequestContext) {
  const companyId = companyOf(ctx);
  const rows = await inActorTransaction(deps.db, ctx, (trx) => repo.listApiKeys(trx, companyId));
  return rows.map(presentApiKey);
}

/** A new key; the answer is the only place its secret ever appears. */
export async function createApiKey(
  deps: AppDeps,
  ctx: RequestContext,
  form: { name: string; scopes: TCreateApiKeyRequest['scopes'] },
) {
  const companyId = companyOf(ctx);
  const { key, prefix, hash } = generateApiKey();
  try {
    const row = await inActorTransaction(deps.db, ctx, async (trx) => {
      const id = await repo.insertApiKey(trx, {
        companyId,
        name: form.name,
        prefix,
        hash,
        scopes: form.scopes,
        createdBy: ctx.actor.userId,
      });
      await recordAudit(trx, auditSourceOf(ctx), {
        action: 'CREATE',
        entity: 'API_KEY',
        entityId: id,
        companyId,
        details: { name: form.name, prefix, scopes: form.scopes },
      });
      return (await repo.findApiKey(trx, companyId, id))!;
    });
    return { apiKey: presentApiKey(row), key };
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(API_KEY_MESSAGES.nameTaken);
    throw error;
  }
}

/** Revoked keys are refused from the next request on: every request looks its key up. */
export async function revokeApiKey(deps: AppDeps, ctx: RequestContext, id: number) {
  const companyId = companyOf(ctx);
  const row = await inActorTransaction(deps.db, ctx, async (trx) => {
    const found = await repo.findApiKey(trx, companyId, id);
    if (!found) throw new AppError('not_found', API_KEY_MESSAGES.notFound);
    // Revoking twice changes nothing and is not audited again.
    if (found.revoked_at) return found;
    await repo.revokeApiKey(trx, companyId, id);
    await recordAudit(trx, auditSourceOf(ctx), {
      action: 'REVOKE',
      entity: 'API_KEY',
      entityId: id,
      companyId,
      details: { name: found.name, prefix: found.prefix },
    });
    return (await repo.findApiKey(trx, companyId, id))!;
  });
  return presentApiKey(row);
}
