import { describe, expect, it } from 'vitest';
import { measureSms } from './sms-encoding.ts';

describe('measureSms', () => {
  it('keeps plain text in GSM-7: 160 characters in one SMS, then 153 per part', () => {
    expect(measureSms('Hello')).toEqual({ encoding: 'GSM-7', parts: 1, units: 5 });
    expect(measureSms('a'.repeat(160))).toEqual({ encoding: 'GSM-7', parts: 1, units: 160 });
    expect(measureSms('a'.repeat(161))).toEqual({ encoding: 'GSM-7', parts: 2, units: 161 });
    expect(measureSms('a'.repeat(306)).parts).toBe(2);
    expect(measureSms('a'.repeat(307)).parts).toBe(3);
  });

  it('counts the GSM extension characters twice', () => {
    for (const char of ['^', '{', '}', '\\', '[', '~', ']', '|', '€', '\f'])
      expect(measureSms(char), char).toEqual({ encoding: 'GSM-7', parts: 1, units: 2 });
    expect(measureSms('€'.repeat(80))).toEqual({ encoding: 'GSM-7', parts: 1, units: 160 });
    expect(measureSms('€'.repeat(81))).toEqual({ encoding: 'GSM-7', parts: 2, units: 162 });
  });

  it('keeps the accented letters of the GSM basic set in GSM-7', () => {
    expect(measureSms('Ça ü é Ä ñ ø å £ ¥ §').encoding).toBe('GSM-7');
  });

  it('switches to UCS-2 for anything outside GSM 03.38: 70 in one SMS, then 67 per part', () => {
    expect(measureSms('ç')).toEqual({ encoding: 'UCS-2', parts: 1, units: 1 });
    expect(measureSms('Привет')).toEqual({ encoding: 'UCS-2', parts: 1, units: 6 });
    expect(measureSms('ж'.repeat(70)).parts).toBe(1);
    expect(measureSms('ж'.repeat(71)).parts).toBe(2);
    expect(measureSms('ж'.repeat(134)).parts).toBe(2);
    expect(measureSms('ж'.repeat(135)).parts).toBe(3);
    // One non-GSM character turns the whole message into UCS-2.
    expect(measureSms(`${'a'.repeat(100)}ж`)).toEqual({ encoding: 'UCS-2', parts: 2, units: 101 });
  });

  it('counts an emoji as two UCS-2 units', () => {
    expect(measureSms('😀'.repeat(35))).toEqual({ encoding: 'UCS-2', parts: 1, units: 70 });
    expect(measureSms('😀'.repeat(36))).toEqual({ encoding: 'UCS-2', parts: 2, units: 72 });
  });

  it('gives no parts for an empty text', () => {
    expect(measureSms('')).toEqual({ encoding: 'GSM-7', parts: 0, units: 0 });
  });
});
