import { describe, expect, it } from 'vitest';
import { isoString } from '../src/lib/iso-time.ts';
import { seededRandom } from './support/seeded-random.ts';

describe('isoString', () => {
  it('writes what toISOString writes, from 1970 to 9999', () => {
    const random = seededRandom(11);
    const edges = [
      0,
      951_782_400_000, // 2000-02-29
      951_868_799_999, // 2000-02-29T23:59:59.999
      4_107_542_400_000, // 2100-03-01 (2100 is no leap year)
      1_704_067_199_999, // 2023-12-31T23:59:59.999
      253_402_300_799_999, // 9999-12-31T23:59:59.999
    ];
    const times = [
      ...edges,
      ...Array.from({ length: 200_000 }, () => Math.floor(random() * 253_402_300_800_000)),
    ];
    for (const ms of times) expect(isoString(new Date(ms)), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('leaves every other date to toISOString: before 1970, past 9999, invalid', () => {
    for (const ms of [-1, -62_198_755_200_000, 253_402_300_800_000, 8.64e15])
      expect(isoString(new Date(ms))).toBe(new Date(ms).toISOString());
    expect(() => isoString(new Date(Number.NaN))).toThrow(RangeError);
  });
});
