import { z } from 'zod';

export const TEXT_MESSAGES = {
  nulCharacter: 'Text must not contain the NUL character (\\u0000)',
} as const;

/**
 * Characters that show nothing: Unicode's White_Space and Default_Ignorable_Code_Point sets
 * (zero-width spaces and joiners, Hangul fillers, variation selectors...), control characters, and
 * the Braille blank (U+2800), which is a symbol by category but prints as an empty cell.
 */
const BLANK_CHARACTERS = /[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cc}\u2800]/gu;

/** The text without its blank characters: what a reader actually sees of it. */
export function visibleCharactersOf(text: string) {
  return text.replace(BLANK_CHARACTERS, '');
}

/** PostgreSQL cannot store U+0000 in text, so no field may carry it. */
export function containsNul(text: string) {
  return text.includes('\u0000');
}

/** Parsed JSON, form or query data: arrays and plain objects (not streams or buffers). */
function isPlainData(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  // Query-string parsers build objects on a bare prototype of their own (no Object.prototype).
  return prototype === null || prototype === Object.prototype || Object.getPrototypeOf(prototype) === null;
}

/**
 * Where a NUL character hides in a parsed body, query string or path parameters: the dotted path
 * of the first string holding one ('' for the value itself), or null when there is none.
 */
export function findNul(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return containsNul(value) ? path : null;
  if (!isPlainData(value)) return null;
  for (const [key, inner] of Object.entries(value)) {
    const keyPath = path ? `${path}.${key}` : key;
    if (containsNul(key)) return keyPath;
    const found = findNul(inner, keyPath);
    if (found !== null) return found;
  }
  return null;
}

/** The same value with every NUL removed from its strings (for what a provider sends us). */
export function stripNul<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll('\u0000', '') as T;
  if (Array.isArray(value)) return value.map(stripNul) as T;
  if (!isPlainData(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key.replaceAll('\u0000', ''), stripNul(inner)]),
  ) as T;
}

/** A required text field whose absence and blankness both read as the spec's message. */
export function requiredText(message: string, max = 255) {
  return z
    .string({ error: message })
    .trim()
    .min(1, message)
    .max(max, `Must be ${max} characters or less`)
    .refine((value) => !containsNul(value), TEXT_MESSAGES.nulCharacter);
}
