/**
 * The soak's verdict on a series of samples (docs/soak.md): after the warm-up, a series is rising
 * when its least-squares slope is above the metric's limit per minute, over the whole window AND
 * over its later half, AND its last sample is above its first by more than the metric's margin.
 * Each alone is noise: a slope from a few jittery samples, a climb back from an early dip that
 * then levels off (a leak keeps climbing), or one high last sample.
 */
export type Sample = { minute: number; value: number };

export type TrendRule = {
  /** Least-squares slope above which the series may be rising, in the metric's unit per minute. */
  slopePerMinute: number;
  /** And last minus first must exceed the larger of these: a fraction of the first, or an amount. */
  riseFraction: number;
  riseAtLeast: number;
};

export function leastSquaresSlope(samples: Sample[]) {
  const n = samples.length;
  if (n < 2) return 0;
  const meanX = samples.reduce((sum, sample) => sum + sample.minute, 0) / n;
  const meanY = samples.reduce((sum, sample) => sum + sample.value, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const { minute, value } of samples) {
    covariance += (minute - meanX) * (value - meanY);
    variance += (minute - meanX) ** 2;
  }
  return variance === 0 ? 0 : covariance / variance;
}

export function risingTrend(samples: Sample[], rule: TrendRule) {
  const slope = leastSquaresSlope(samples);
  const lateSlope = leastSquaresSlope(samples.slice(Math.floor(samples.length / 2)));
  const first = samples[0]?.value ?? 0;
  const last = samples.at(-1)?.value ?? 0;
  const margin = Math.max(first * rule.riseFraction, rule.riseAtLeast);
  const rising =
    samples.length >= 4 &&
    slope > rule.slopePerMinute &&
    lateSlope > rule.slopePerMinute &&
    last - first > margin;
  return { slope, lateSlope, first, last, rising };
}
