import { randomUUID } from 'node:crypto';
import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import type { Transaction } from 'kysely';
import type { AppDeps } from '../../app-deps.ts';
import { inActorTransaction, scopeOfUser } from '../../db/actor-transaction.ts';
import type { DB } from '../../db/schema.ts';
import { bindScope, inTenantTransaction, platformScope } from '../../db/tenant-scope.ts';
import { AppError, notFound } from '../../errors.ts';
import { decryptSecret, encryptSecret, generateToken, sha256 } from '../../lib/crypto.ts';
import type { RequestContext } from '../../request-context.ts';
import { recordAudit, scopeOfAuditUser } from '../audit/record-audit.ts';
import { signAccessToken } from './access-token.ts';
import * as repo from './auth.repository.ts';
import {
  clearLoginFailures,
  pruneStaleThrottles,
  reserveLoginAttempt,
  throttleKeysOf,
} from './login-throttle.repository.ts';
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
  const throttle = throttleKeysOf(client.ip, email);
  const blockMinutes = config.loginBlockMinutes;
  // Counted before the password is checked, in one statement: concurrent attempts cannot all pass.
  const reservation = await reserveLoginAttempt(
    db,
    [
      { key: throttle.client, maxFailures: config.loginMaxFailures },
      { key: throttle.account, maxFailures: config.loginAccountMaxFailures },
    ],
    blockMinutes,
  );
  if (!reservation.allowed) {
    throw new AppError('rate_limited', AUTH_MESSAGES.tooManyAttempts, {
      headers: { 'retry-after': String(reservation.waitSeconds) },
    });
  }
  // An e-mail names no company: the lookup crosses tenants explicitly, and only it does.
  const user = await inTenantTransaction(db, platformScope, (trx) => repo.findUserByEmail(trx, email));
  const passwordOk = user
    ? await verifyPassword(user.password_hash, password)
    : await verifyAgainstDummy(password);
  if (!user || !passwordOk) {
    // The failure was counted by the reservation.
    await pruneStaleThrottles(db, blockMinutes);
    throw new AppError('unauthorized', AUTH_MESSAGES.invalidCredentials);
  }
  // The right password of a user who may not sign in (suspended, ...) stays counted as an attempt.
  const refusal = accessRefusal(user);
  if (refusal) throw new AppError('forbidden', refusal);

  const tokens = await db.transaction().execute(async (trx) => {
    await bindScope(trx, scopeOfUser({ role: user.role, companyId: user.company_id }), user.id);
    await clearLoginFailures(trx, [throttle.client, throttle.account]);
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

/**
 * Rotates a refresh token. Presenting one that was already rotated ends that whole sign-in,
 * except within REFRESH_REUSE_GRACE of its rotation: then it is a second tab refreshing at the
 * same moment, and it gets the same successor (no new token, no revocation).
 */
export async function refresh(deps: AppDeps, refreshToken: string, client: ClientInfo) {
  const invalid = new AppError('unauthorized', AUTH_MESSAGES.invalidRefreshToken);
  const tokenHash = sha256(refreshToken);
  // Refresh tokens are not tenant-owned (no binding needed for them); the user one names is
  // found across tenants, explicitly and only for that lookup, then the rotation is bound to
  // that user's company.
  return deps.db
    .transaction()
    .execute(async (trx) => {
      const stored = await repo.findRefreshToken(trx, tokenHash);
      if (!stored || stored.revoked_at) throw invalid;
      // A concurrent rotation holds the row until it commits; then this claim finds it spent.
      const claimed = !stored.used_at && (await repo.markRefreshTokenUsed(trx, stored.id));
      const successor = claimed ? null : await successorWithinGrace(deps, trx, tokenHash);
      if (!claimed && !successor) {
        await repo.revokeFamily(trx, stored.family_id);
        return { reused: true as const };
      }
      if (claimed && stored.expires_at.getTime() <= Date.now()) throw invalid;
      const user = await userForRotation(trx, stored.user_id);
      if (!user) throw invalid;
      const refusal = accessRefusal(user);
      if (refusal) {
        await repo.revokeFamily(trx, stored.family_id);
        return { refusal };
      }
      if (successor) {
        const accessToken = await signAccessToken(
          { userId: user.id, sessionId: stored.family_id },
          deps.keys.jwt,
          deps.config.accessTokenTtlSeconds,
        );
        return { tokens: { accessToken, refreshToken: successor } };
      }
      const tokens = await issueTokens(deps, trx, user.id, stored.family_id, client);
      await repo.recordSuccessor(trx, stored.id, encryptSecret(tokens.refreshToken, deps.keys.encryption));
      return { tokens };
    })
    .then((outcome) => {
      // Thrown outside the transaction so the revocation above commits.
      if ('reused' in outcome) throw invalid;
      if ('refusal' in outcome)
        throw new AppError('unauthorized', outcome.refusal ?? AUTH_MESSAGES.invalidRefreshToken);
      return outcome.tokens;
    });
}

/** The user a refresh token belongs to (looked up across tenants), with the work then bound to them. */
async function userForRotation(trx: Transaction<DB>, userId: number) {
  await bindScope(trx, platformScope);
  const user = await repo.findUserById(trx, userId);
  if (user) await bindScope(trx, scopeOfUser({ role: user.role, companyId: user.company_id }), user.id);
  return user;
}

/** How far a reuse follows the chain when the other tab has rotated again in the meantime. */
const MAX_SUCCESSOR_HOPS = 3;

/**
 * The live token that replaced a spent one, when the rotation happened less than the grace
 * period ago; null otherwise (then the reuse is treated as theft).
 */
async function successorWithinGrace(deps: AppDeps, trx: Transaction<DB>, tokenHash: Buffer) {
  const graceMs = deps.config.refreshReuseGraceSeconds * 1000;
  let spent = await repo.findRefreshToken(trx, tokenHash);
  for (let hop = 0; hop < MAX_SUCCESSOR_HOPS; hop++) {
    if (!spent?.used_at || spent.revoked_at || !spent.successor_token) return null;
    if (Date.now() - spent.used_at.getTime() >= graceMs) return null;
    const successor = decryptedOrNull(spent.successor_token, deps.keys.encryption);
    if (!successor) return null;
    const next = await repo.findRefreshToken(trx, sha256(successor));
    if (!next || next.revoked_at || next.expires_at.getTime() <= Date.now()) return null;
    if (!next.used_at) return successor;
    spent = next;
  }
  return null;
}

function decryptedOrNull(stored: string, key: Buffer) {
  try {
    return decryptSecret(stored, key);
  } catch {
    // Written under another ENCRYPTION_KEY: no grace, the ordinary reuse rule applies.
    return null;
  }
}

export type LogoutTarget = { sessionId?: string; refreshToken?: string };

/** Ends the sign-in named by the access token's session and the one a refresh token belongs to; unknown ones are ignored. */
export async function logout(deps: AppDeps, target: LogoutTarget, audit: Parameters<typeof recordAudit>[1]) {
  await deps.db.transaction().execute(async (trx) => {
    // Without a known user only refresh tokens (not tenant-owned) are touched: no binding needed.
    if (audit.user) await bindScope(trx, scopeOfAuditUser(audit.user), audit.user.id);
    const families = new Set<string>();
    if (target.sessionId) families.add(target.sessionId);
    if (target.refreshToken) {
      const family = (await repo.findRefreshToken(trx, sha256(target.refreshToken)))?.family_id;
      if (family) families.add(family);
    }
    if (families.size === 0) return;
    for (const familyId of families) await repo.revokeFamily(trx, familyId);
    if (audit.user)
      await recordAudit(trx, audit, { action: 'LOGOUT', entity: 'USER', entityId: audit.user.id });
  });
}

/** The signed-in user, as the console shows them. */
export async function getProfile(deps: AppDeps, ctx: RequestContext) {
  const user = await inActorTransaction(deps.db, ctx, (trx) => repo.findUserById(trx, ctx.actor.userId));
  if (!user) throw notFound('User');
  return { user: presentUser(user) };
}
