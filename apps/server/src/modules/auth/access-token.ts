import { AUTH_MESSAGES } from '@sms/contracts/auth/login';
import { errors, jwtVerify, SignJWT } from 'jose';
import { AppError } from '../../errors.ts';

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

export async function verifyAccessToken(token: string, key: Uint8Array): Promise<AccessClaims> {
  try {
    const { payload } = await jwtVerify(token, key, { issuer: ISSUER, algorithms: ['HS256'] });
    const userId = Number(payload.sub);
    if (!Number.isSafeInteger(userId) || typeof payload.sid !== 'string')
      throw new errors.JWTInvalid('bad claims');
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
