import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';
import { requiredText } from '../common/text.ts';
import { normaliseEmail } from './email.ts';
import { ZUser } from './user.ts';

export const AUTH_MESSAGES = {
  invalidCredentials: 'Invalid email or password',
  loginFailed: 'Login failed',
  tokenExpired: 'Token has expired',
  invalidToken: 'Invalid token. Please log in again.',
  missingToken: 'Authentication required. Please log in.',
  invalidRefreshToken: 'Invalid or expired refresh token. Please log in again.',
  userInactive: 'Your account is inactive. Contact your administrator.',
  userSuspended: 'Your account has been suspended. Contact your administrator.',
  companySuspended: 'Your company account has been suspended. Contact support.',
  companyPending: 'Your company account is pending approval.',
  companyInactive: 'Your company account is inactive. Contact support.',
  tooManyAttempts: 'Too many sign-in attempts. Please wait a few minutes and try again.',
  forbidden: "You don't have permission to perform this action.",
  /** The sign-in page, after the console ended a session the server no longer accepts. */
  sessionExpired: 'Your session has expired. Please sign in again.',
} as const;

/** Spec section 5: these texts (case-insensitive) or a 401 mean the session is gone. */
export const SESSION_EXPIRED_MARKERS = [
  'Your token has expired. Please log in again.',
  'Token has expired',
  'jwt expired',
  'Invalid token. Please log in again.',
  'TokenExpiredError',
] as const;

export function isSessionExpiredError(status: number | undefined, message: string | undefined) {
  if (status === 401) return true;
  const text = (message ?? '').toLowerCase();
  return SESSION_EXPIRED_MARKERS.some((marker) => text.includes(marker.toLowerCase()));
}

export const ZLoginRequest = z.object({
  // Compared in its normal form, so a full-width or decomposed spelling finds the same account.
  email: requiredText('Email is required', 254).transform(normaliseEmail),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(1024),
});
export type TLoginRequest = z.infer<typeof ZLoginRequest>;

export const ZLoginData = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  user: ZUser,
});
export const ZLoginResponse = successEnvelope(ZLoginData);
export type TLoginResponse = z.infer<typeof ZLoginResponse>;
