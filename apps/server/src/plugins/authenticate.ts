import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { effectiveRole } from '@sms/contracts/auth/roles';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app-deps.ts';
import { withPreparedStatements } from '../db/database.ts';
import { RequestTransaction } from '../db/request-transaction.ts';
import { AppError } from '../errors.ts';
import { verifyAccessToken } from '../modules/auth/access-token.ts';
import {
  beginSessionTransaction,
  findUserInLiveSession,
  type SessionUser,
} from '../modules/auth/auth.repository.ts';
import { accessRefusal } from '../modules/auth/auth.service.ts';
import type { Actor, RequestContext } from '../request-context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
    /** A read's one transaction, opened by authenticate (db/request-transaction.ts). */
    readTransaction?: RequestTransaction;
  }
}

export function bearerTokenOf(request: FastifyRequest) {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const [scheme, token] = header.split(' ');
  return scheme?.toLowerCase() === 'bearer' && token ? token : undefined;
}

/**
 * Resolves the actor from the bearer token and the current database row, so a suspended user,
 * a suspended company, a changed role or an ended sign-in takes effect on the next request.
 */
export async function resolveActor(deps: AppDeps, token: string): Promise<Actor> {
  const claims = await verifyAccessToken(token, deps.keys.jwt);
  // The token names a user, not a company: this one lookup crosses tenants (explicitly, and
  // only for it, inside app_session_user); the request's own work is then bound to the company it finds.
  const user = await withPreparedStatements(() =>
    findUserInLiveSession(deps.db, claims.userId, claims.sessionId),
  );
  return admittedActor(user, claims.sessionId);
}

/**
 * A read's sign-in check opens the request's transaction: BEGIN, the session lookup and the binding
 * to the scope of the user it finds go as one message, and the route's reads then run in that
 * transaction (inActorTransaction), which ends once the answer is handed over. A read has no body
 * to wait for, so the connection is held only while the request is worked on; a write's body may
 * arrive slowly, so a write looks the user up on its own and opens its transactions later.
 */
async function resolveReadActor(deps: AppDeps, token: string, request: FastifyRequest, reply: FastifyReply) {
  const claims = await verifyAccessToken(token, deps.keys.jwt);
  const { transaction, value: user } = await RequestTransaction.open(deps.db, (connection) =>
    beginSessionTransaction(connection, claims.userId, claims.sessionId, true),
  );
  let actor: Actor;
  try {
    actor = admittedActor(user, claims.sessionId);
  } catch (error) {
    transaction.end('rollback');
    throw error;
  }
  transaction.owner = actor;
  request.readTransaction = transaction;
  // After the answer was sent, or the client went away (onSend ends it sooner: endReadTransaction).
  reply.raw.once('close', () => transaction.end());
  return actor;
}

function admittedActor(user: SessionUser | undefined, sessionId: string): Actor {
  if (!user) throw new AppError('unauthorized', AUTH_MESSAGES.invalidToken);
  const refusal = accessRefusal(user);
  if (refusal) throw new AppError('unauthorized', refusal);
  return {
    userId: user.id,
    role: effectiveRole(user.role),
    companyId: user.company_id,
    name: user.name,
    email: user.email,
    sessionId,
  };
}

const isRead = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD';

/** preHandler: 401 unless a valid bearer token is present; sets request.actor. */
export function authenticate(deps: AppDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearerTokenOf(request);
    if (!token) throw new AppError('unauthorized', AUTH_MESSAGES.missingToken);
    request.actor = isRead(request)
      ? await resolveReadActor(deps, token, request, reply)
      : await resolveActor(deps, token);
  };
}

/**
 * onSend of a signed-in route: the answer is ready, so the read's transaction ends (its COMMIT goes
 * out while the answer is written). A streamed answer's later reads open their own transactions.
 * Callback-style (done), as it waits for nothing.
 */
export function endReadTransaction(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload: unknown) => void,
) {
  request.readTransaction?.end();
  done(null, payload);
}

export function contextOf(request: FastifyRequest): RequestContext {
  if (!request.actor) throw new AppError('unauthorized', AUTH_MESSAGES.missingToken);
  return {
    actor: request.actor,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    readOnly: isRead(request),
    transaction: request.readTransaction,
  };
}
