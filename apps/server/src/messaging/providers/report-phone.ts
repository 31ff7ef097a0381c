/** Phone numbers as delivery reports give them (Africa's Talking's phoneNumber, a receipt's source_addr). */

/** A number as recipients are stored ('+' and digits), or null when it is not one. */
export function e164(number: string | undefined | null) {
  const digits = number?.replace(/[\s()-]/g, '').replace(/^\+/, '') ?? '';
  return /^[0-9]{6,15}$/.test(digits) ? `+${digits}` : null;
}
