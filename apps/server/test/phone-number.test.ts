import { describe, expect, it } from 'vitest';
import {
  normalisePhoneNumber,
  parseToE164,
  quickNormalise,
} from '../src/modules/subscribers/phone-number.ts';

/** A small deterministic generator: the same numbers on every run. */
function randomDigits(seed: number) {
  let state = seed;
  return (length: number) => {
    let out = '';
    for (let i = 0; i < length; i++) {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      out += String(Math.floor(state / 65_536) % 10);
    }
    return out;
  };
}

const CALLING_CODES: Record<string, string> = {
  KE: '254',
  UG: '256',
  TZ: '255',
  NG: '234',
  ZA: '27',
  GH: '233',
  IN: '91',
  DE: '49',
  FR: '33',
  BR: '55',
  MX: '52',
  AR: '54',
  IT: '39',
  AU: '61',
  JP: '81',
  EG: '20',
  US: '1',
  GB: '44',
  RU: '7',
};

/** Numbers as people write them: national with the trunk prefix, international with or without +/00, odd ones. */
function samplesFor(country: string, count: number) {
  const digits = randomDigits(country.charCodeAt(0) * 31 + country.charCodeAt(1));
  const code = CALLING_CODES[country];
  const samples: string[] = [];
  for (let i = 0; i < count; i++) {
    const length = 5 + (i % 11);
    const body = digits(length);
    samples.push(
      `0${body}`,
      `+${code}${body}`,
      `${code}${body}`,
      `00${code}${body}`,
      `+${code}0${body}`,
      `00${body}`,
      `000${body}`,
      body,
      `+${body}`,
    );
  }
  return samples;
}

describe('phone number normalisation', () => {
  it('answers on the quick path exactly what the full parser answers, for every country tried', () => {
    let quickAnswers = 0;
    for (const country of Object.keys(CALLING_CODES)) {
      for (const text of samplesFor(country, 3_000)) {
        const quick = quickNormalise(text, country);
        if (quick === null) continue;
        quickAnswers++;
        expect({ country, text, msisdn: quick }).toEqual({
          country,
          text,
          msisdn: parseToE164(text, country),
        });
      }
    }
    // The comparison means something only if the quick path answered often.
    expect(quickAnswers).toBeGreaterThan(5_000);
  });

  it('takes the quick path for the usual Kenyan shapes and leaves the rest to the parser', () => {
    expect(quickNormalise('0712345678', 'KE')).toBe('+254712345678');
    expect(quickNormalise('+254712345678', 'KE')).toBe('+254712345678');
    expect(quickNormalise('0712 345 678', 'KE')).toBeNull();
    expect(quickNormalise('254712345678', 'KE')).toBeNull();
    // A calling code several countries share: never quick.
    expect(quickNormalise('+14155550123', 'US')).toBeNull();
    expect(normalisePhoneNumber('0712 345 678', 'ke')).toEqual({ ok: true, msisdn: '+254712345678' });
    expect(normalisePhoneNumber('254712345678', 'KE')).toEqual({ ok: true, msisdn: '+254712345678' });
    expect(normalisePhoneNumber('0712-34', 'KE')).toEqual({ ok: false, input: '0712-34' });
    expect(normalisePhoneNumber('071234567', 'KE')).toEqual({ ok: false, input: '071234567' });
  });
});
