import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { effectiveRole } from '@sms/contracts/auth/roles';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../app-deps.ts';
import { AppError } from '../errors.ts';
import { resolveApiKeyActor } from '../modules/api-keys/api-key-actor.ts';
import { looksLikeApiKey } from '../modules/api-keys/api-key-secret.ts';
import { verifyAccessToken } from '../modules/auth/access-token.ts';
import { findUserInLiveSession, type SessionUser } from '../modules/auth/auth.repository.ts';
import { accessRefusal } from '../modules/auth/auth.service.ts';
import type { Actor, RequestContext } from '../request-context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    actor?: Actor;
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
  const user = await findUserInLiveSession(deps.db, claims.userId, claims.sessionId);
  return admittedActor(user, claims.sessionId);
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

/** preHandler: 401 unless a valid bearer token (an access token or an API key) is present; sets request.actor. */
export function authenticate(deps: AppDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const token = bearerTokenOf(request);
    if (!token) throw new AppError('unauthorized', AUTH_MESSAGES.missingToken);
    // A company's API key: looked up on each request, its work bound to its company (modules/api-keys).
    if (looksLikeApiKey(token)) {
      request.actor = await resolveApiKeyActor(deps, token, reply);
      return;
    }
    request.actor = await resolveActor(deps, token);
  };
}

export function contextOf(request: FastifyRequest): RequestContext {
  if (!request.actor) throw new AppError('unauthorized', AUTH_MESSAGES.missingToken);
  return {
    actor: request.actor,
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
    readOnly: isRead(request),
  };
}
