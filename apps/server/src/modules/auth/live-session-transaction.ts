import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { effectiveRole } from '@sms/contracts/auth/roles';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../request-context.ts';
import { beginSessionTransaction, type SessionUser } from './auth.repository.ts';
import { accessRefusal } from './auth.service.ts';
import { endSessionTransaction } from './session.repository.ts';

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
 * such transaction looks the sign-in up again as it begins (app_begin_session: the lookup and the
 * binding in one statement) and does its work only while the same user is still admitted in the
 * same scope. Signed out, deactivated or suspended, a company no longer
 * active, a changed role or company: it throws, having read nothing.
 */
export function inLiveSessionTransaction<T>(
  db: Database,
  actor: Actor,
  work: (trx: Transaction<DB>) => Promise<T>,
) {
  return db.connection().execute(async (connection) => {
    const trx = connection as unknown as Transaction<DB>;
    let result: T;
    try {
      const refusal = refusalOf(
        await beginSessionTransaction(trx, actor.userId, actor.sessionId, true),
        actor,
      );
      if (refusal) throw refusal;
      result = await work(trx);
    } catch (error) {
      await endSessionTransaction(trx, 'rollback').catch(() => {});
      throw error;
    }
    await endSessionTransaction(trx, 'commit');
    return result;
  });
}
