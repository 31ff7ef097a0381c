import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  Metadata,
  parsePhoneNumberFromString,
} from 'libphonenumber-js';

export type NormalisedPhone = { ok: true; msisdn: string } | { ok: false; input: string };

/**
 * E.164 of a phone number as people type it: international (+254 712 345 678, or 254712345678 /
 * 00254712345678 without the plus) or national for the company's default country (0712 345678).
 * Only numbers of a valid length for their country pass.
 */
export function normalisePhoneNumber(input: string, defaultCountry: string): NormalisedPhone {
  const text = input.trim();
  if (!text || text.length > 40) return { ok: false, input: text };
  const msisdn = quickNormalise(text, defaultCountry) ?? parseToE164(text, defaultCountry);
  return msisdn ? { ok: true, msisdn } : { ok: false, input: text };
}

/** The full parser's reading of a trimmed number (libphonenumber-js); null when it is not a valid number. */
export function parseToE164(text: string, defaultCountry: string): string | null {
  // A bare number that already carries a country code but no plus (common in CSV exports).
  const candidates = text.startsWith('+') ? [text] : [text, `+${text.replace(/^00/, '')}`];
  for (const candidate of candidates) {
    const parsed = parsePhoneNumberFromString(candidate, {
      defaultCountry: defaultCountry.toUpperCase() as CountryCode,
      extract: false,
    });
    if (parsed?.isValid()) return parsed.number;
  }
  return null;
}

/** What the quick path needs of a country's numbering plan (min metadata), compiled once. */
type QuickPlan = {
  callingCode: string;
  nationalNumber: RegExp;
  possibleLengths: number[];
  nationalPrefix: string | undefined;
  internationalPrefix: RegExp;
  /** Starts like a national prefix the parser would strip, or like an international call prefix. */
  prefixed: RegExp;
};

type NumberingPlanReader = {
  nationalNumberPattern?: () => string;
  possibleLengths?: () => number[];
  nationalPrefix?: () => string | undefined;
  nationalPrefixForParsing?: () => string | undefined;
  nationalPrefixTransformRule?: () => string | undefined;
  IDDPrefix?: () => string;
};

const quickPlans = new Map<string, QuickPlan | null>();

/**
 * An import normalises up to a million numbers, and the full parser costs several microseconds
 * each. Most rows are one of two plain shapes for the company's own country: +<code><number> or
 * <national prefix><number>, digits only. For those the answer is the number's digits checked
 * against the country's national-number pattern and lengths: the check the parser's isValid()
 * does with the min metadata. Anything else, any doubt, a country sharing its calling code
 * (+1, +44, +7...) or a national prefix the parser rewrites answers null: the full parser decides.
 * phone-number.test.ts compares both on many numbers of many countries.
 */
export function quickNormalise(text: string, country: string): string | null {
  const plan = quickPlanOf(country);
  if (!plan) return null;
  const plus = text.charCodeAt(0) === 43;
  const digits = plus ? text.slice(1) : text;
  if (!/^\d+$/.test(digits)) return null;
  let national: string;
  if (plus) {
    if (!digits.startsWith(plan.callingCode)) return null;
    national = digits.slice(plan.callingCode.length);
    if (plan.prefixed.test(national)) return null;
  } else {
    const { nationalPrefix } = plan;
    if (!nationalPrefix || !digits.startsWith(nationalPrefix)) return null;
    // Read as an international number by the parser: it starts with the call prefix or the calling code.
    if (plan.internationalPrefix.test(digits) || digits.startsWith(plan.callingCode)) return null;
    national = digits.slice(nationalPrefix.length);
    if (plan.prefixed.test(national)) return null;
  }
  if (!plan.possibleLengths.includes(national.length) || !plan.nationalNumber.test(national)) return null;
  return `+${plan.callingCode}${national}`;
}

function quickPlanOf(country: string): QuickPlan | null {
  const key = country.toUpperCase();
  let plan = quickPlans.get(key);
  if (plan === undefined) {
    plan = readQuickPlan(key);
    quickPlans.set(key, plan);
  }
  return plan;
}

function readQuickPlan(country: string): QuickPlan | null {
  try {
    const callingCode = getCountryCallingCode(country as CountryCode);
    const sharing = getCountries().filter((other) => getCountryCallingCode(other) === callingCode);
    if (sharing.length !== 1) return null;
    const metadata = new Metadata();
    metadata.selectNumberingPlan(country as CountryCode);
    const reader = metadata.numberingPlan as NumberingPlanReader | undefined;
    const pattern = reader?.nationalNumberPattern?.();
    const possibleLengths = reader?.possibleLengths?.();
    if (!reader || !pattern || !possibleLengths?.length || !reader.IDDPrefix) return null;
    const nationalPrefix = reader.nationalPrefix?.() || undefined;
    const forParsing = reader.nationalPrefixForParsing?.() || undefined;
    // A parsing prefix other than the plain national prefix (carrier codes...) or a rewrite: the parser's business.
    if (reader.nationalPrefixTransformRule?.() || (forParsing && forParsing !== nationalPrefix)) return null;
    const idd = reader.IDDPrefix();
    if (!idd) return null;
    const starts = [idd, forParsing].filter(Boolean).map((part) => `(?:${part})`);
    return {
      callingCode,
      nationalNumber: new RegExp(`^(?:${pattern})$`),
      possibleLengths,
      nationalPrefix: nationalPrefix && /^\d+$/.test(nationalPrefix) ? nationalPrefix : undefined,
      internationalPrefix: new RegExp(`^(?:${idd})`),
      prefixed: starts.length ? new RegExp(`^(?:${starts.join('|')})`) : /(?!)/,
    };
  } catch {
    return null;
  }
}

/**
 * The digits to look for in stored E.164 numbers when someone searches: a national trunk 0
 * ("0712") is dropped so it matches "+254712...". Null when the text holds no digit.
 */
export function phoneSearchDigits(search: string): string | null {
  const digits = search.replace(/\D/g, '');
  if (!digits) return null;
  return digits.length > 1 && digits.startsWith('0') && !search.trim().startsWith('+')
    ? digits.replace(/^0+/, '') || digits
    : digits;
}

/**
 * How stored numbers (E.164) can start with what was typed: as an international number
 * (254712... or +254712...), and as a national one in the company's country (0712... -> +254712...).
 */
export function numberPrefixes(text: string, country: string) {
  const typed = text.replace(/\D/g, '');
  if (typed.length < 3) return [];
  const prefixes = new Set([`+${typed}`]);
  if (!text.trim().startsWith('+')) {
    try {
      const callingCode = getCountryCallingCode(country.toUpperCase() as CountryCode);
      prefixes.add(`+${callingCode}${typed.replace(/^0+/, '')}`);
    } catch {
      // An unknown country: the international reading alone.
    }
  }
  return [...prefixes];
}
