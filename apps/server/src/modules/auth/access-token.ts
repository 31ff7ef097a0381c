import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { errors, jwtVerify, SignJWT } from 'jose';
import { AppError } from '../../errors.ts';
import { keepRecent } from '../../lib/keep-recent.ts';

export type AccessClaims = { userId: number; sessionId: string };

const ISSUER = 'sms-console';

export async function signAccessToken(claims: AccessClaims, key: Uint8Array, ttlSeconds: number) {
  return new SignJWT({ sid: claims.sessionId })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(claims.userId))
    .setIssuer(ISSUER)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key);
}

/**
 * Tokens whose signature was checked, per key, with their claims and expiry: every request of a
 * signed-in console presents the same token for its whole life, and checking its HMAC again
 * (WebCrypto, a job on the thread pool) was a tenth of the API's CPU for a cheap read. Only the
 * signature and claims are remembered: whether the sign-in is still live is asked of the database
 * on every request, and an expired token is checked afresh (and refused).
 */
const verifiedTokens = new WeakMap<Uint8Array, Map<string, AccessClaims & { expiresAtMs: number }>>();
export const VERIFIED_TOKENS_REMEMBERED = 10_000;

export async function verifyAccessToken(token: string, key: Uint8Array): Promise<AccessClaims> {
  let verified = verifiedTokens.get(key);
  if (!verified) {
    verified = new Map();
    verifiedTokens.set(key, verified);
  }
  const known = verified.get(token);
  if (known && Date.now() < known.expiresAtMs) return { userId: known.userId, sessionId: known.sessionId };
  if (known) verified.delete(token);
  try {
    const { payload } = await jwtVerify(token, key, { issuer: ISSUER, algorithms: ['HS256'] });
    const userId = Number(payload.sub);
    if (!Number.isSafeInteger(userId) || typeof payload.sid !== 'string' || typeof payload.exp !== 'number')
      throw new errors.JWTInvalid('bad claims');
    keepRecent(
      verified,
      token,
      { userId, sessionId: payload.sid, expiresAtMs: payload.exp * 1000 },
      VERIFIED_TOKENS_REMEMBERED,
    );
    return { userId, sessionId: payload.sid };
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new AppError('token_expired', AUTH_MESSAGES.tokenExpired);
    throw new AppError('unauthorized', AUTH_MESSAGES.invalidToken);
  }
}

/**
 * The sign-in an access token names even after it has expired (its signature still checked), so
 * logging out with a stale token still ends that sign-in; null for anything else.
 */
export async function sessionOfAccessToken(token: string, key: Uint8Array, maxAgeSeconds: number) {
  try {
    const { payload } = await jwtVerify(token, key, {
      issuer: ISSUER,
      algorithms: ['HS256'],
      clockTolerance: maxAgeSeconds,
    });
    return typeof payload.sid === 'string' ? payload.sid : null;
  } catch {
    return null;
  }
}
