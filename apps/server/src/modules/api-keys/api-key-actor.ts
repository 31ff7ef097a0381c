import { API_KEY_MESSAGES, apiKeyActorName, type TApiKeyScope } from '@sms/contracts/api-keys/api-key';
import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import type { FastifyReply } from 'fastify';
import type { AppDeps } from '../../app-deps.ts';
import type { Executor } from '../../db/database.ts';
import { inTenantTransaction, platformScope } from '../../db/tenant-scope.ts';
import { AppError } from '../../errors.ts';
import { hashesEqual } from '../../lib/crypto.ts';
import { onePerApp } from '../../lib/one-per-app.ts';
import { FixedWindows, limitAnswer } from '../../plugins/rate-limits.ts';
import type { Actor } from '../../request-context.ts';
import { hashApiKey, prefixOfApiKey } from './api-key-secret.ts';
import {
  type ApiKeyInUse,
  findApiKeyStanding,
  findApiKeysByPrefix,
  touchApiKey,
} from './api-keys.repository.ts';

const MINUTE = 60_000;
/** Keys whose windows a process keeps; past that the oldest are forgotten (FixedWindows). */
const KEYS_KEPT = 10_000;

const keyWindowsOf = onePerApp(
  (deps) => new FixedWindows(deps.config.rateLimits.apiKeyPerMinute, MINUTE, KEYS_KEPT),
);

/** Why a company's keys are refused: the words a signed-in user of that company would get. */
function companyRefusal(status: string) {
  if (status === 'active') return null;
  if (status === 'suspended') return AUTH_MESSAGES.companySuspended;
  if (status === 'pending') return AUTH_MESSAGES.companyPending;
  return AUTH_MESSAGES.companyInactive;
}

/**
 * The actor of a request made with an API key, looked up on every request (so a revoked key or a
 * suspended company is refused at once) and counted against the key's own limit. The lookup runs
 * in the platform scope, the one explicit way across tenants, as a sign-in's does: the key names no
 * company until it is found. The route's work then runs bound to the key's company.
 */
export async function resolveApiKeyActor(deps: AppDeps, token: string, reply: FastifyReply): Promise<Actor> {
  const prefix = prefixOfApiKey(token);
  if (!prefix) throw new AppError('unauthorized', API_KEY_MESSAGES.invalidKey);
  const presented = hashApiKey(token);
  const key = await inTenantTransaction(deps.db, platformScope, async (trx) => {
    const found = matchingKey(await findApiKeysByPrefix(trx, prefix), presented);
    if (found && !found.revoked_at && found.company_status === 'active' && isStale(found.last_used_at))
      await touchApiKey(trx, found.company_id, found.id);
    return found;
  });
  if (!key) throw new AppError('unauthorized', API_KEY_MESSAGES.invalidKey);
  if (key.revoked_at) throw new AppError('unauthorized', API_KEY_MESSAGES.revokedKey);
  const refusal = companyRefusal(key.company_status);
  if (refusal) throw new AppError('unauthorized', refusal);

  const limit = deps.config.rateLimits.apiKeyPerMinute;
  const overLimit = limitAnswer(reply, limit, keyWindowsOf(deps).charge(String(key.id)));
  if (overLimit) throw overLimit;

  return {
    userId: key.created_by,
    role: 'company_admin',
    companyId: key.company_id,
    name: apiKeyActorName(key.name),
    email: key.creator_email,
    sessionId: `api-key:${key.id}`,
    apiKey: { id: key.id, name: key.name, scopes: key.scopes as TApiKeyScope[] },
  };
}

/**
 * The refusal of a key's request's later work (a streamed export's next batch), by what the key is
 * now: gone or revoked, or its company no longer active. A key has no sign-in session to look up.
 */
export async function apiKeyRefusalNow(trx: Executor, actor: Actor) {
  if (!actor.apiKey || actor.companyId === null)
    return new AppError('unauthorized', API_KEY_MESSAGES.invalidKey);
  const key = await findApiKeyStanding(trx, actor.companyId, actor.apiKey.id);
  if (!key) return new AppError('unauthorized', API_KEY_MESSAGES.invalidKey);
  if (key.revoked_at) return new AppError('unauthorized', API_KEY_MESSAGES.revokedKey);
  const refusal = companyRefusal(key.company_status);
  return refusal ? new AppError('unauthorized', refusal) : null;
}

/** The row whose hash is the presented key's, compared in constant time. */
function matchingKey(rows: ApiKeyInUse[], presented: Buffer) {
  let match: ApiKeyInUse | undefined;
  for (const row of rows) if (hashesEqual(row.key_hash, presented)) match = row;
  return match;
}

const isStale = (lastUsedAt: Date | null) => !lastUsedAt || Date.now() - lastUsedAt.getTime() >= MINUTE;
