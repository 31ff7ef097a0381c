import { ZLoginRequest, ZLoginResponse } from '@sms/contracts/auth/login';
import { ZLogoutRequest, ZLogoutResponse } from '@sms/contracts/auth/logout';
import { ZProfileResponse } from '@sms/contracts/auth/profile';
import { ZRefreshRequest, ZRefreshResponse } from '@sms/contracts/auth/refresh';
import type { ApiInstance } from '../../api-instance.ts';
import type { AppDeps } from '../../app-deps.ts';
import { bearerTokenOf, contextOf, resolveActor } from '../../plugins/authenticate.ts';
import { guard, publicRoute } from '../../plugins/guards.ts';
import { auditSourceOf } from '../audit/record-audit.ts';
import { sessionOfAccessToken } from './access-token.ts';
import { getProfile, login, logout, refresh } from './auth.service.ts';

export function authRoutes(app: ApiInstance, deps: AppDeps) {
  const clientOf = (request: { ip: string; headers: Record<string, unknown> }) => ({
    ip: request.ip,
    userAgent: (request.headers['user-agent'] as string | undefined) ?? null,
  });

  app.post(
    '/auth/login',
    {
      config: publicRoute('signing in is how a token is obtained'),
      schema: { tags: ['auth'], security: [], body: ZLoginRequest, response: { 200: ZLoginResponse } },
    },
    async (request) => {
      const data = await login(deps, request.body.email, request.body.password, clientOf(request));
      return { success: true as const, data };
    },
  );

  app.post(
    '/auth/refresh',
    {
      config: publicRoute('the refresh token in the body is the proof'),
      schema: { tags: ['auth'], security: [], body: ZRefreshRequest, response: { 200: ZRefreshResponse } },
    },
    async (request) => ({
      success: true as const,
      data: await refresh(deps, request.body.refreshToken, clientOf(request)),
    }),
  );

  // No payload needed: the bearer token names the sign-in to end, even when it has expired,
  // because the console logs out exactly when its tokens have stopped working. A refresh token
  // in the body ends its sign-in too.
  app.post(
    '/auth/logout',
    {
      config: publicRoute('ends the sign-in its token names, even an expired one'),
      schema: { tags: ['auth'], body: ZLogoutRequest, response: { 200: ZLogoutResponse } },
    },
    async (request) => {
      const token = bearerTokenOf(request);
      const actor = token ? await resolveActor(deps, token).catch(() => undefined) : undefined;
      const sessionId =
        actor?.sessionId ??
        (token ? await sessionOfAccessToken(token, deps.keys.jwt, deps.config.refreshTokenTtlSeconds) : null);
      const source = actor
        ? auditSourceOf({ actor, ip: request.ip, userAgent: request.headers['user-agent'] ?? null })
        : { user: null, ...clientOf(request) };
      await logout(
        deps,
        { sessionId: sessionId ?? undefined, refreshToken: request.body?.refreshToken },
        source,
      );
      return { success: true as const, data: { loggedOut: true as const } };
    },
  );

  app.get(
    '/auth/profile',
    { preHandler: guard(deps), schema: { tags: ['auth'], response: { 200: ZProfileResponse } } },
    async (request) => {
      return { success: true as const, data: await getProfile(deps, contextOf(request)) };
    },
  );
}
