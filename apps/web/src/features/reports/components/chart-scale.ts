/** The smallest "round" number (1, 2, 2.5, 5 times a power of ten) at or above value, at least 1. */
export function niceCeiling(value: number) {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (step * power >= value) return step * power;
  }
  return 10 * power;
}

/** 1234 -> '1.2k', 2500000 -> '2.5M': tick labels that fit a narrow axis. */
export function formatCompact(value: number) {
  return new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(value);
}

/** Indexes of at most `max` evenly spread labels, always including the first and the last. */
export function labelIndexes(count: number, max: number) {
  if (count <= max) return Array.from({ length: count }, (_, index) => index);
  const step = Math.ceil((count - 1) / (max - 1));
  const indexes: number[] = [];
  for (let index = 0; index < count - 1; index += step) indexes.push(index);
  if (count - 1 - indexes[indexes.length - 1] < step / 2) indexes.pop();
  indexes.push(count - 1);
  return indexes;
}

export function formatBucket(iso: string, bucket: 'hour' | 'day', long = false) {
  const date = new Date(iso);
  if (bucket === 'hour') {
    const time = date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
    return long
      ? `${date.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' })} ${time} UTC`
      : time;
  }
  return date.toLocaleDateString('en-US', {
    month: 'short',
    day: 'numeric',
    ...(long ? { weekday: 'short', year: 'numeric' } : {}),
    timeZone: 'UTC',
  });
}
