import { z } from 'zod';
import { MESSAGE_MAX_LENGTH } from '../messages/message.ts';
import { measureSms, type TSmsEncoding } from '../messages/sms-encoding.ts';
import { EXPORT_CSV_HEADER_WITH_COMPANY } from '../subscribers/export-subscribers.ts';

/**
 * Merge fields: a subscriber's attributes (first_name, language, ...) and the placeholders of a
 * text that name them, `{{first_name}}` or with a fallback for subscribers without one,
 * `{{first_name|friend}}`. One grammar, one renderer and one bound, used by the console (counter,
 * preview), the API (checks at send) and the engine (each recipient's text at hand-over).
 */

/** A name: lower-case letter first, then letters, digits or _, at most 32 (first_name, language). */
export const ATTRIBUTE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
export const ATTRIBUTE_MAX_COUNT = 10;
export const ATTRIBUTE_VALUE_MAX_LENGTH = 100;
export const PLACEHOLDER_FALLBACK_MAX_LENGTH = 50;
/** Offered first in the console; any valid name can be used. */
export const SUGGESTED_ATTRIBUTES = ['first_name', 'last_name', 'language'] as const;

export const MERGE_FIELD_MESSAGES = {
  nameInvalid: (name: string) =>
    `${name} is not a field name: use a lower-case letter, then letters, digits or _ (at most 32), as in first_name`,
  nameReserved: (name: string) => `${name} is a column of the subscriber export: choose another field name`,
  tooMany: `A subscriber has at most ${ATTRIBUTE_MAX_COUNT} fields`,
  valueTooLong: (name: string) => `${name} is longer than ${ATTRIBUTE_VALUE_MAX_LENGTH} characters`,
  valueLeftOut: (name: string) =>
    `${name} is longer than ${ATTRIBUTE_VALUE_MAX_LENGTH} characters: the number is imported without it`,
  placeholderInvalid: (placeholder: string) =>
    `${placeholder} is not a merge field: write {{first_name}} or {{first_name|fallback}}`,
  fallbackTooLong: (name: string) =>
    `The fallback of {{${name}}} is longer than ${PLACEHOLDER_FALLBACK_MAX_LENGTH} characters`,
  unclosed: 'A merge field is not closed: write {{first_name}}',
  longestTooLong: (length: number) =>
    `With its merge fields filled in, the message reaches ${length.toLocaleString('en-US')} characters for some recipients: at most ${MESSAGE_MAX_LENGTH}`,
  /** A recipient's text over the limit at hand-over (a field changed after the send was accepted). */
  renderedTooLong: (length: number) =>
    `Not sent: with this subscriber's fields the text is ${length.toLocaleString('en-US')} characters, over ${MESSAGE_MAX_LENGTH}`,
} as const;

/** The subscriber export's own columns: an export imported again does not read them as fields. */
export const RESERVED_ATTRIBUTE_NAMES: readonly string[] = EXPORT_CSV_HEADER_WITH_COMPANY;

/** Why a name cannot be a field's, or null when it can. */
export function attributeNameProblem(name: string): string | null {
  if (!ATTRIBUTE_NAME_PATTERN.test(name)) return MERGE_FIELD_MESSAGES.nameInvalid(name);
  if (RESERVED_ATTRIBUTE_NAMES.includes(name)) return MERGE_FIELD_MESSAGES.nameReserved(name);
  return null;
}

export const ZAttributeName = z.string().superRefine((name, issues) => {
  const problem = attributeNameProblem(name);
  if (problem) issues.addIssue({ code: 'custom', message: problem });
});

/**
 * A subscriber's attributes as written: names checked, values trimmed, a blank value removes the
 * field. At most ATTRIBUTE_MAX_COUNT fields of at most ATTRIBUTE_VALUE_MAX_LENGTH characters.
 */
export const ZSubscriberAttributes = z
  .record(z.string(), z.string({ error: 'Field values are text' }))
  .superRefine((record, issues) => {
    for (const [name, value] of Object.entries(record)) {
      const problem = attributeNameProblem(name);
      if (problem) issues.addIssue({ code: 'custom', path: [name], message: problem });
      else if (value.trim().length > ATTRIBUTE_VALUE_MAX_LENGTH)
        issues.addIssue({ code: 'custom', path: [name], message: MERGE_FIELD_MESSAGES.valueTooLong(name) });
    }
  })
  .transform((record) =>
    Object.fromEntries(
      Object.entries(record)
        .map(([name, value]) => [name, value.trim()] as const)
        .filter(([, value]) => value !== ''),
    ),
  )
  .refine((record) => Object.keys(record).length <= ATTRIBUTE_MAX_COUNT, MERGE_FIELD_MESSAGES.tooMany);
export type TSubscriberAttributes = Record<string, string>;

/** A CSV header as a field name: 'First Name' and 'first-name' read first_name; null if it cannot be one. */
export function attributeNameOfHeader(header: string): string | null {
  const name = header
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return attributeNameProblem(name) === null ? name : null;
}

export type TPlaceholder = { name: string; fallback: string | null };
/** A text cut at its placeholders: literal pieces and placeholders, in order. */
export type TTemplate = { segments: (string | TPlaceholder)[]; fields: string[]; errors: string[] };

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/**
 * Reads a text's placeholders: `{{ name }}` or `{{ name | fallback }}` (spaces around trimmed).
 * Anything else between double braces, or `{{` left open, is an error; single braces are text.
 */
export function parseTemplate(text: string): TTemplate {
  const segments: (string | TPlaceholder)[] = [];
  const fields = new Set<string>();
  const errors: string[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    const inner = match[1];
    const bar = inner.indexOf('|');
    const name = (bar < 0 ? inner : inner.slice(0, bar)).trim();
    const fallback = bar < 0 ? null : inner.slice(bar + 1).trim();
    if (!ATTRIBUTE_NAME_PATTERN.test(name)) errors.push(MERGE_FIELD_MESSAGES.placeholderInvalid(match[0]));
    else if (fallback !== null && fallback.length > PLACEHOLDER_FALLBACK_MAX_LENGTH)
      errors.push(MERGE_FIELD_MESSAGES.fallbackTooLong(name));
    if (match.index > last) segments.push(text.slice(last, match.index));
    segments.push({ name, fallback });
    fields.add(name);
    last = match.index + match[0].length;
  }
  if (last < text.length) segments.push(text.slice(last));
  if (errors.length === 0 && text.replace(PLACEHOLDER, '').includes('{{'))
    errors.push(MERGE_FIELD_MESSAGES.unclosed);
  return { segments, fields: [...fields].sort(), errors };
}

/** The merge fields a text uses, sorted; none for a plain text. */
export function mergeFieldsOf(text: string) {
  return parseTemplate(text).fields;
}

/** A subscriber's value for a placeholder: its own (not blank), else the fallback, else nothing. */
function valueFor(placeholder: TPlaceholder, attributes: Readonly<Record<string, string>> | null) {
  const own = attributes?.[placeholder.name];
  return typeof own === 'string' && own.trim() !== '' ? own : (placeholder.fallback ?? '');
}

/** One recipient's text: every placeholder replaced by the subscriber's value or its fallback. */
export function renderTemplate(
  template: TTemplate | string,
  attributes: Readonly<Record<string, string>> | null,
) {
  const parsed = typeof template === 'string' ? parseTemplate(template) : template;
  let text = '';
  for (const segment of parsed.segments)
    text += typeof segment === 'string' ? segment : valueFor(segment, attributes);
  return text;
}

/** Every character of GSM 03.38's basic set (ESC aside), and its extension (two units each). */
export const GSM_BASIC_CHARACTERS =
  '\n\r !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz¡£¤¥§¿ÄÅÆÇÉÑÖØÜßàäåæèéìñòöøùüΓΔΘΛΞΠΣΦΨΩ';
export const GSM_EXTENSION_CHARACTERS = '\f[\\]^{|}~€';

/**
 * What the chosen recipients hold for one field, read set-based by the server: the longest value
 * (UTF-16 units, as the 160-character rule counts), the most GSM-7 units among values that stay
 * GSM-7, whether any value needs Unicode, and whether some recipient has none (the fallback shows).
 */
export const ZFieldStats = z.object({
  name: z.string(),
  maxLength: z.number().int(),
  maxGsmUnits: z.number().int(),
  anyUnicode: z.boolean(),
  anyMissing: z.boolean(),
});
export type TFieldStats = z.infer<typeof ZFieldStats>;

export type TExpansionBound = {
  /** Characters of the longest text any recipient can get (the 160-character rule). */
  length: number;
  encoding: TSmsEncoding;
  parts: number;
};

const isGsm = (text: string) =>
  [...text].every((char) => GSM_BASIC_CHARACTERS.includes(char) || GSM_EXTENSION_CHARACTERS.includes(char));
const gsmUnits = (text: string) =>
  [...text].reduce((sum, char) => sum + (GSM_EXTENSION_CHARACTERS.includes(char) ? 2 : 1), 0);

/**
 * The longest expansion of a text among the chosen recipients, from each field's stats: every
 * placeholder takes the longest of its field's values (or its fallback where a recipient has none).
 * Exact for a field used once; with several fields, their longest values may belong to different
 * subscribers, so it is an upper bound. Encoding and parts are those of that longest text, Unicode
 * as soon as one value or fallback needs it (each recipient's own text is measured at hand-over).
 */
export function longestExpansion(
  template: TTemplate | string,
  stats: readonly TFieldStats[],
): TExpansionBound {
  const parsed = typeof template === 'string' ? parseTemplate(template) : template;
  const byName = new Map(stats.map((field) => [field.name, field]));
  let literal = '';
  let length = 0;
  let unicode = false;
  const worst: { chars: number; units: number }[] = [];
  for (const segment of parsed.segments) {
    if (typeof segment === 'string') {
      literal += segment;
      continue;
    }
    const field = byName.get(segment.name);
    // A field nobody holds: every recipient gets the fallback.
    const missing = !field || field.anyMissing;
    const fallback = missing ? (segment.fallback ?? '') : '';
    const chars = Math.max(field?.maxLength ?? 0, fallback.length);
    if (field?.anyUnicode || !isGsm(fallback)) unicode = true;
    worst.push({ chars, units: Math.max(field?.maxGsmUnits ?? 0, isGsm(fallback) ? gsmUnits(fallback) : 0) });
    length += chars;
  }
  length += literal.length;
  // A text of the same encoding and size, for the one rule of parts (measureSms). Unicode comes
  // from a value or a fallback that needs it, so its filler holds at least one such character.
  const filler = worst.map((value) => (unicode ? 'ж'.repeat(value.chars) : 'x'.repeat(value.units))).join('');
  const { encoding, parts } = measureSms(literal + filler);
  return { length, encoding, parts: Math.max(1, parts) };
}
