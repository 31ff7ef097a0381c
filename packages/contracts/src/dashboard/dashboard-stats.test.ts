import { describe, expect, it } from 'vitest';
import { expiryTone, isNearLimit, usagePercent } from './dashboard-stats.ts';

const now = new Date('2026-03-10T12:00:00Z');
const inDays = (days: number) => new Date(now.getTime() + days * 86_400_000).toISOString();

describe('usage gauges', () => {
  it('warn above 80 percent, not at it', () => {
    expect(isNearLimit(80, 100)).toBe(false);
    expect(isNearLimit(81, 100)).toBe(true);
    expect(usagePercent(150, 100)).toBe(100);
    expect(usagePercent(0, 0)).toBe(0);
    expect(usagePercent(1, 0)).toBe(100);
  });
});

describe('expiryTone', () => {
  it('is red at 7 days or fewer, orange at 30 or fewer', () => {
    expect(expiryTone(inDays(7), now)).toBe('danger');
    expect(expiryTone(inDays(-2), now)).toBe('danger');
    expect(expiryTone(inDays(7.5), now)).toBe('warning');
    expect(expiryTone(inDays(30), now)).toBe('warning');
    expect(expiryTone(inDays(31), now)).toBe('normal');
    expect(expiryTone(null, now)).toBe('normal');
  });
});
