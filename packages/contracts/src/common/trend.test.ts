import { describe, expect, it } from 'vitest';
import { computePointsTrend, computeTrend, formatChange } from './trend.ts';

describe('computeTrend', () => {
  it('is the percent change, one decimal, with its direction', () => {
    expect(computeTrend(150, 100)).toEqual({ change: 50, changeType: 'positive' });
    expect(computeTrend(2, 3)).toEqual({ change: -33.3, changeType: 'negative' });
    expect(computeTrend(7, 7)).toEqual({ change: 0, changeType: 'positive' });
  });

  it('has no percentage from nothing to something', () => {
    expect(computeTrend(5, 0)).toEqual({ change: null, changeType: 'positive' });
    expect(computeTrend(0, 0)).toEqual({ change: 0, changeType: 'positive' });
  });

  it('compares rates in points', () => {
    expect(computePointsTrend(96.5, 95)).toEqual({ change: 1.5, changeType: 'positive' });
    expect(computePointsTrend(null, 90)).toEqual({ change: null, changeType: 'negative' });
  });

  it('formats with a sign', () => {
    expect(formatChange(12.5)).toBe('+12.5%');
    expect(formatChange(-3)).toBe('-3%');
    expect(formatChange(1.5, ' pts')).toBe('+1.5 pts');
    expect(formatChange(null)).toBe('New');
  });
});
