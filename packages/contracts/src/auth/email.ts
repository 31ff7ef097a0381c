import { z } from 'zod';
import { SIMPLE_EMAIL_PATTERN } from '../admin/company.ts';

export const EMAIL_MAX_LENGTH = 254;

export const EMAIL_MESSAGES = {
  invisible: 'Email must not contain invisible or control characters',
  mixedScripts:
    'Email must not mix letters of different alphabets (such as Latin and Cyrillic) in its name or in a part of its domain',
} as const;

/**
 * The alphabets whose letters pass for one another ('а' of Cyrillic, 'ο' of Greek, 'օ' of
 * Armenian look like Latin 'a' and 'o'). A name or domain label written wholly in one of them is
 * someone's real address; one that mixes them is built to look like another.
 */
const LOOK_ALIKE_SCRIPTS = [
  /\p{Script=Latin}/u,
  /\p{Script=Greek}/u,
  /\p{Script=Cyrillic}/u,
  /\p{Script=Armenian}/u,
  /\p{Script=Cherokee}/u,
];

function mixesScripts(part: string) {
  return LOOK_ALIKE_SCRIPTS.filter((script) => script.test(part)).length > 1;
}

/** True when the part before the @, or any dot-separated part of the domain, mixes look-alike alphabets. */
export function hasMixedScripts(address: string) {
  const at = address.lastIndexOf('@');
  const parts = at < 0 ? [address] : [address.slice(0, at), ...address.slice(at + 1).split('.')];
  return parts.some(mixesScripts);
}

/**
 * Control characters, format characters (zero-width spaces and joiners, soft hyphen, direction
 * marks, byte-order mark) and blank fillers: they render as nothing, so an address holding one
 * looks exactly like another user's.
 */
const INVISIBLE_CATEGORIES = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** Blank fillers and joiners outside those categories (Hangul fillers, Braille blank, grapheme joiner). */
const INVISIBLE_CODE_POINTS = new Set([0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x2800, 0x3164, 0xffa0]);
const isVariationSelector = (codePoint: number) =>
  (codePoint >= 0x180b && codePoint <= 0x180f) || (codePoint >= 0xfe00 && codePoint <= 0xfe0f);

export function hasInvisibleCharacters(text: string) {
  if (INVISIBLE_CATEGORIES.test(text)) return true;
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    if (INVISIBLE_CODE_POINTS.has(codePoint) || isVariationSelector(codePoint)) return true;
  }
  return false;
}

/** The one written form of an address: trimmed and NFKC-normalised (full-width letters become ASCII). */
export function normaliseEmail(text: string) {
  return text.trim().normalize('NFKC').trim();
}

/** What two addresses are compared by: their normal form, lower-cased. */
export function emailKey(text: string) {
  return normaliseEmail(text).toLowerCase();
}

/**
 * An address someone sets (user forms): normalised, visible characters only, the spec's simple
 * pattern, no part mixing look-alike alphabets.
 */
export function emailAddress(messages: { required: string; invalid: string }) {
  return z
    .string({ error: messages.required })
    .trim()
    .min(1, messages.required)
    .max(EMAIL_MAX_LENGTH, `Must be ${EMAIL_MAX_LENGTH} characters or less`)
    .refine((text) => !hasInvisibleCharacters(text), EMAIL_MESSAGES.invisible)
    .transform(normaliseEmail)
    .pipe(
      z
        .string()
        .regex(SIMPLE_EMAIL_PATTERN, messages.invalid)
        .refine((address) => !hasMixedScripts(address), EMAIL_MESSAGES.mixedScripts),
    );
}
