import { z } from 'zod';
import { containsNul, TEXT_MESSAGES, visibleCharactersOf } from '../common/text.ts';
import { COMMON_PASSWORDS } from './common-passwords.ts';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

export const PASSWORD_MESSAGES = {
  required: 'Password is required',
  tooShort: `Password must be at least ${PASSWORD_MIN_LENGTH} characters`,
  tooLong: `Password must be ${PASSWORD_MAX_LENGTH} characters or less`,
  blank: 'Password must not be blank or made only of spaces or invisible characters',
  tooCommon: 'This password is one of the most commonly used; choose a less predictable one',
} as const;

const ZERO_WIDTH = /\p{Default_Ignorable_Code_Point}/gu;

/** Why a new password is refused (the first reason), or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return PASSWORD_MESSAGES.tooShort;
  if (password.length > PASSWORD_MAX_LENGTH) return PASSWORD_MESSAGES.tooLong;
  if (visibleCharactersOf(password) === '') return PASSWORD_MESSAGES.blank;
  if (containsNul(password)) return TEXT_MESSAGES.nulCharacter;
  // A zero-width character slipped into a common password hides it from the list, not from a guesser.
  const seen = password.replace(ZERO_WIDTH, '').trim().toLowerCase();
  if (COMMON_PASSWORDS.has(seen)) return PASSWORD_MESSAGES.tooCommon;
  return null;
}

/**
 * A password someone sets (user forms, ADMIN_PASSWORD): long enough, not blank, not a commonly
 * used one. Signing in checks no rule but presence, so older passwords keep working.
 */
export function newPassword(requiredMessage: string = PASSWORD_MESSAGES.required) {
  return z
    .string({ error: requiredMessage })
    .min(1, requiredMessage)
    .superRefine((password, context) => {
      const problem = passwordProblem(password);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });
}
