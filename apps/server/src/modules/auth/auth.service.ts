import { randomUUID } from 'node:crypto';
import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import type { AppDeps } from '../../app-deps.ts';
import { scopeOfUser } from '../../db/actor-transaction.ts';
import { bindScope, inTenantTransaction, platformScope } from '../../db/tenant-scope.ts';
import { AppError } from '../../errors.ts';
import { generateToken, sha256 } from '../../lib/crypto.ts';
import { recordAudit, scopeOfAuditUser } from '../audit/record-audit.ts';
import { signAccessToken } from './access-token.ts';
import * as repo from './auth.repository.ts';
import { clearLoginFailures, recordLoginFailure, secondsUntilAllowed } from './login-throttle.ts';
import { verifyAgainstDummy, verifyPassword } from './passwords.ts';
import { presentUser } from './present-user.ts';

export type ClientInfo = { ip: string; userAgent: string | null };

/** Why a user who proved their password may still not sign in; null when they may. */
export function accessRefusal(user: { status: string; role: string; company_status: string | null }) {
  if (user.status === 'inactive') return AUTH_MESSAGES.userInactive;
  if (user.status === 'suspended') return AUTH_MESSAGES.userSuspended;
  if (user.role === 'system_admin') return null;
  if (user.company_status === 'suspended') return AUTH_MESSAGES.companySuspended;
  if (user.company_status === 'pending') return AUTH_MESSAGES.companyPending;
  if (user.company_status !== 'active') return AUTH_MESSAGES.companyInactive;
  return null;
}

export async function login(deps: AppDeps, email: string, password: string, client: ClientInfo) {
  const { db, config } = deps;
  const throttleKey = `${client.ip}|${email.toLowerCase()}`;
  const wait = await secondsUntilAllowed(db, throttleKey);
  if (wait > 0) {
    throw new AppError('rate_limited', AUTH_MESSAGES.tooManyAttempts, {
      headers: { 'retry-after': String(wait) },
    });
  }
  // An e-mail names no company: the lookup crosses tenants explicitly, and only it does.
  const user = await inTenantTransaction(db, platformScope, (trx) => repo.findUserByEmail(trx, email));
  const passwordOk = user
    ? await verifyPassword(user.password_hash, password)
    : await verifyAgainstDummy(password);
  if (!user || !passwordOk) {
    await recordLoginFailure(db, throttleKey, {
      maxFailures: config.loginMaxFailures,
      blockMinutes: config.loginBlockMinutes,
    });
    throw new AppError('unauthorized', AUTH_MESSAGES.invalidCredentials);
  }
  const refusal = accessRefusal(user);
  if (refusal) throw new AppError('forbidden', refusal);

  const tokens = await db.transaction().execute(async (trx) => {
    await bindScope(trx, scopeOfUser({ role: user.role, companyId: user.company_id }), user.id);
    await clearLoginFailures(trx, throttleKey);
    await repo.recordSuccessfulLogin(trx, user.id, user.company_id);
    const issued = await issueTokens(deps, trx, user.id, randomUUID(), client);
    await recordAudit(
      trx,
      {
        user: { id: user.id, name: user.name, email: user.email, companyId: user.company_id },
        ...client,
      },
      { action: 'LOGIN', entity: 'USER', entityId: user.id },
    );
    return issued;
  });
  return { ...tokens, user: presentUser(user) };
}

async function issueTokens(
  deps: AppDeps,
  db: Parameters<typeof repo.insertRefreshToken>[0],
  userId: number,
  familyId: string,
  client: ClientInfo,
) {
  const refreshToken = generateToken();
  await repo.insertRefreshToken(db, {
    userId,
    familyId,
    tokenHash: sha256(refreshToken),
    expiresAt: new Date(Date.now() + deps.config.refreshTokenTtlSeconds * 1000),
    ip: client.ip,
    userAgent: client.userAgent,
  });
  const accessToken = await signAccessToken(
    { userId, sessionId: familyId },
    deps.keys.jwt,
    deps.config.accessTokenTtlSeconds,
  );
  return { accessToken, refreshToken };
}

/** Rotates a refresh token. Presenting one that was already rotated ends that whole sign-in. */
export async function refresh(deps: AppDeps, refreshToken: string, client: ClientInfo) {
  const invalid = new AppError('unauthorized', AUTH_MESSAGES.invalidRefreshToken);
  // Refresh tokens are not tenant-owned (no binding needed for them); the user one names is
  // found across tenants, explicitly and only for that lookup, then the rotation is bound to
  // that user's company.
  return deps.db
    .transaction()
    .execute(async (trx) => {
      const stored = await repo.findRefreshToken(trx, sha256(refreshToken));
      if (!stored || stored.revoked_at) throw invalid;
      if (stored.used_at || !(await repo.markRefreshTokenUsed(trx, stored.id))) {
        await repo.revokeFamily(trx, stored.family_id);
        return { reused: true as const };
      }
      if (stored.expires_at.getTime() <= Date.now()) throw invalid;
      await bindScope(trx, platformScope);
      const user = await repo.findUserById(trx, stored.user_id);
      if (!user) throw invalid;
      await bindScope(trx, scopeOfUser({ role: user.role, companyId: user.company_id }), user.id);
      const refusal = accessRefusal(user);
      if (refusal) {
        await repo.revokeFamily(trx, stored.family_id);
        return { refusal };
      }
      return { tokens: await issueTokens(deps, trx, user.id, stored.family_id, client) };
    })
    .then((outcome) => {
      // Thrown outside the transaction so the revocation above commits.
      if ('reused' in outcome) throw invalid;
      if ('refusal' in outcome)
        throw new AppError('unauthorized', outcome.refusal ?? AUTH_MESSAGES.invalidRefreshToken);
      return outcome.tokens;
    });
}

export type LogoutTarget = { sessionId?: string; refreshToken?: string };

/** Ends the sign-in named by the access token's session or by a refresh token; unknown ones are ignored. */
export async function logout(deps: AppDeps, target: LogoutTarget, audit: Parameters<typeof recordAudit>[1]) {
  await deps.db.transaction().execute(async (trx) => {
    // Without a known user only refresh tokens (not tenant-owned) are touched: no binding needed.
    if (audit.user) await bindScope(trx, scopeOfAuditUser(audit.user), audit.user.id);
    let familyId = target.sessionId;
    if (!familyId && target.refreshToken) {
      familyId = (await repo.findRefreshToken(trx, sha256(target.refreshToken)))?.family_id;
    }
    if (!familyId) return;
    await repo.revokeFamily(trx, familyId);
    if (audit.user)
      await recordAudit(trx, audit, { action: 'LOGOUT', entity: 'USER', entityId: audit.user.id });
  });
}
