import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { effectiveRole } from '@sms/contracts/auth/roles';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app-deps.ts';
import { scopeOfUser } from '../db/actor-transaction.ts';
import { withPreparedStatements } from '../db/database.ts';
import { LeadedRead } from '../db/leaded-read.ts';
import { RequestTransaction } from '../db/request-transaction.ts';
import { beginBoundText } from '../db/tenant-scope.ts';
import { AppError } from '../errors.ts';
import { type AccessClaims, verifyAccessToken } from '../modules/auth/access-token.ts';
import {
  beginSessionTransaction,
  findUserInLiveSession,
  type SessionUser,
  sessionBeginText,
} from '../modules/auth/auth.repository.ts';
import { accessRefusal } from '../modules/auth/auth.service.ts';
import { type KnownSessions, knownSessionsOf, sameSessionUser } from '../modules/auth/known-sessions.ts';
import { readNothing } from '../modules/auth/session.repository.ts';
import type { Actor, RequestContext } from '../request-context.ts';
import { errorEnvelope } from './error-handler.ts';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
    /** A read's one transaction (db/request-transaction.ts), or its leaded statements (db/leaded-read.ts): authenticate's. */
    readTransaction?: RequestTransaction | LeadedRead;
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
 * A sign-in this process has found before: leadedReadActor. Otherwise the read's sign-in check
 * opens the request's transaction: BEGIN, the session lookup and the binding
 * to the scope of the user it finds go as one message, and the route's reads then run in that
 * transaction (inActorTransaction), which ends once the answer is handed over. A read has no body
 * to wait for, so the connection is held only while the request is worked on; a write's body may
 * arrive slowly, so a write looks the user up on its own and opens its transactions later.
 */
async function resolveReadActor(deps: AppDeps, token: string, request: FastifyRequest, reply: FastifyReply) {
  const claims = await verifyAccessToken(token, deps.keys.jwt);
  const known = knownSessionsOf(deps.db);
  const remembered = known.get(claims.userId, claims.sessionId);
  if (remembered) return leadedReadActor(deps, known, claims, remembered, request);
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
  known.remember(claims.sessionId, user as SessionUser);
  transaction.owner = actor;
  request.readTransaction = transaction;
  // After the answer was sent, or the client went away (onSend ends it sooner: endReadTransaction).
  reply.raw.once('close', () => transaction.end());
  return actor;
}

/**
 * A read of a sign-in whose user was found before: worked on for that user at once, each statement
 * carrying the lookup that binds it (db/leaded-read.ts), so the read takes one round trip where the
 * lookup first took three. An answer leaves only once a lookup has found that same user (its
 * statements' own, or confirmUnconfirmedRead's); otherwise the answer is the lookup's: the 401 a
 * read that looked up first would have given (signed out, suspended), or, for a user changed
 * meanwhile (role, company, name), 401 token_expired, which the console answers by renewing its
 * token and asking again, this time looked up first.
 */
function leadedReadActor(
  deps: AppDeps,
  known: KnownSessions,
  claims: AccessClaims,
  remembered: SessionUser,
  request: FastifyRequest,
) {
  const actor = admittedActor(remembered, claims.sessionId);
  const lookup = sessionBeginText(claims.userId, claims.sessionId, true) as string;
  const bound = beginBoundText(scopeOfUser(actor), actor.userId, true);
  const read = new LeadedRead(deps.db, lookup, bound, (answer) =>
    confirmSessionUser(known, claims.sessionId, remembered, answer[0] as SessionUser | undefined),
  );
  read.owner = actor;
  request.readTransaction = read;
  return actor;
}

function confirmSessionUser(
  known: KnownSessions,
  sessionId: string,
  remembered: SessionUser,
  found: SessionUser | undefined,
) {
  if (found && sameSessionUser(found, remembered)) {
    // Confirmed: the most recently confirmed are the last to be forgotten.
    known.remember(sessionId, found);
    return;
  }
  known.forget(sessionId);
  // Signed out or refused: the same 401 as a lookup made first.
  admittedActor(found, sessionId);
  throw new AppError('token_expired', AUTH_MESSAGES.tokenExpired);
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
 * out while the answer is written). A streamed answer's later reads open their own transactions (a
 * leaded read's keep carrying their lookup). Callback-style (done): it waits for nothing, except a
 * leaded read none of whose statements has run, whose answer waits for its lookup.
 */
export function endReadTransaction(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload: unknown) => void,
) {
  const read = request.readTransaction;
  read?.end();
  if (read instanceof LeadedRead && read.state === 'pending') {
    confirmUnconfirmedRead(reply, read, payload).then(
      (answer) => done(null, answer),
      (error) => done(error, payload),
    );
    return;
  }
  done(null, payload);
}

/**
 * An answer of a leaded read none of whose statements has run (a 400, a 403 from the route's guard,
 * a route that reads nothing): its sign-in is looked up now, and a lookup that does not find the
 * user the answer was made for replaces it with its own 401.
 */
async function confirmUnconfirmedRead(reply: FastifyReply, read: LeadedRead, payload: unknown) {
  try {
    await read.run(readNothing);
    return payload;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    reply.code(error.status);
    return JSON.stringify(errorEnvelope(error.message, error.code));
  }
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
