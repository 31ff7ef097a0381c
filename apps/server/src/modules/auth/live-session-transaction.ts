import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { effectiveRole } from '@sms/contracts/auth/roles';
import type { Transaction } from 'kysely';
import { scopeOfUser } from '../../db/actor-transaction.ts';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { inTenantTransaction } from '../../db/tenant-scope.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../request-context.ts';
import { apiKeyRefusalNow } from '../api-keys/api-key-actor.ts';
import { findUserInLiveSession, type SessionUser } from './auth.repository.ts';
import { accessRefusal } from './auth.service.ts';

/** The refusal of work for `actor` by what its sign-in is now: ended, the user or company refused, or the user changed. */
function refusalOf(found: SessionUser | undefined, actor: Actor) {
  if (!found) return new AppError('unauthorized', AUTH_MESSAGES.invalidToken);
  const refusal = accessRefusal(found);
  if (refusal) return new AppError('unauthorized', refusal);
  if (effectiveRole(found.role) !== actor.role || found.company_id !== actor.companyId)
    return new AppError('token_expired', AUTH_MESSAGES.tokenExpired);
  return null;
}

/**
 * A read that goes on after its request's sign-in check (a streamed export's later batches): each
 * such transaction, bound to the actor's scope like any request's, looks the sign-in up again first
 * and does its work only while the same user is still admitted in the same scope. Signed out,
 * deactivated or suspended, a company no longer active, a changed role or company, an API key
 * revoked: it throws, having read nothing.
 */
export function inLiveSessionTransaction<T>(
  db: Database,
  actor: Actor,
  work: (trx: Transaction<DB>) => Promise<T>,
) {
  return inTenantTransaction(
    db,
    scopeOfUser(actor),
    async (trx) => {
      // A request made with an API key (no sign-in session) is re-checked by its key.
      const refusal = actor.apiKey
        ? await apiKeyRefusalNow(trx, actor)
        : refusalOf(await findUserInLiveSession(trx, actor.userId, actor.sessionId), actor);
      if (refusal) throw refusal;
      return work(trx);
    },
    actor.userId,
  );
}
