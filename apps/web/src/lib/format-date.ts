/**
 * The console's one date and time format, in the reader's locale ("Mar 2, 2026", "Mar 2, 2026,
 * 9:05 AM"). Where the hour matters across places (scheduling), the time zone is named too.
 */
const DATE = { year: 'numeric', month: 'short', day: 'numeric' } as const;
const TIME = { hour: 'numeric', minute: '2-digit' } as const;

function validDate(iso: string | null | undefined) {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A day; null for a blank. */
export function formatDate(iso: string | null | undefined) {
  return validDate(iso)?.toLocaleDateString(undefined, DATE) ?? null;
}

/** A day and time; null for a blank. */
export function formatDateTime(iso: string | null | undefined) {
  return validDate(iso)?.toLocaleString(undefined, { ...DATE, ...TIME }) ?? null;
}

/** A day and time with the reader's time zone ("Mar 2, 2026, 9:05 AM GMT+3"): for scheduled sends. */
export function formatDateTimeWithZone(iso: string | null | undefined) {
  return validDate(iso)?.toLocaleString(undefined, { ...DATE, ...TIME, timeZoneName: 'short' }) ?? null;
}

/** The reader's time zone as a schedule's times are read in ("Africa/Nairobi, GMT+3"). */
export function readerTimeZone(at = new Date()) {
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const offset = new Intl.DateTimeFormat(undefined, { timeZoneName: 'shortOffset' })
    .formatToParts(at)
    .find((part) => part.type === 'timeZoneName')?.value;
  return offset && offset !== name ? `${name}, ${offset}` : name;
}
