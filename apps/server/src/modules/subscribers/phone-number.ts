import { type CountryCode, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js';

export type NormalisedPhone = { ok: true; msisdn: string } | { ok: false; input: string };

/**
 * E.164 of a phone number as people type it: international (+254 712 345 678, or 254712345678 /
 * 00254712345678 without the plus) or national for the company's default country (0712 345678).
 * Only numbers of a valid length for their country pass.
 */
export function normalisePhoneNumber(input: string, defaultCountry: string): NormalisedPhone {
  const text = input.trim();
  if (!text || text.length > 40) return { ok: false, input: text };
  // A bare number that already carries a country code but no plus (common in CSV exports).
  const candidates = text.startsWith('+') ? [text] : [text, `+${text.replace(/^00/, '')}`];
  for (const candidate of candidates) {
    const parsed = parsePhoneNumberFromString(candidate, {
      defaultCountry: defaultCountry.toUpperCase() as CountryCode,
      extract: false,
    });
    if (parsed?.isValid()) return { ok: true, msisdn: parsed.number };
  }
  return { ok: false, input: text };
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
