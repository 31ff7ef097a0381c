import { describe, expect, it } from 'vitest';
import { formatBucket, formatCompact, labelIndexes, niceCeiling } from './chart-scale.ts';

describe('chart scale', () => {
  it('rounds the top of the axis up to a round number', () => {
    expect(niceCeiling(0)).toBe(1);
    expect(niceCeiling(7)).toBe(10);
    expect(niceCeiling(12)).toBe(20);
    expect(niceCeiling(230)).toBe(250);
    expect(niceCeiling(4100)).toBe(5000);
  });

  it('spreads labels and keeps both ends', () => {
    expect(labelIndexes(7, 7)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(labelIndexes(24, 6)).toEqual([0, 5, 10, 15, 20, 23]);
    expect(labelIndexes(9, 6)).toEqual([0, 2, 4, 6, 8]);
    expect(labelIndexes(30, 6)).toEqual([0, 6, 12, 18, 24, 29]);
  });

  it('formats ticks and buckets in UTC', () => {
    expect(formatCompact(1234)).toBe('1.2K');
    expect(formatBucket('2026-03-10T14:00:00Z', 'hour')).toBe('14:00');
    expect(formatBucket('2026-03-10T00:00:00Z', 'day')).toBe('Mar 10');
  });
});
