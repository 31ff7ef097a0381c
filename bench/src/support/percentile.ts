/**
 * The q-quantile (0 < q <= 1) of ascending samples by nearest rank: the smallest sample at or below
 * which a share q of all samples lies; 0 for no samples.
 */
export function percentileOf(sorted: ArrayLike<number>, q: number) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
