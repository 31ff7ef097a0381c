import type { Pdu } from 'smpp';
import smpp from 'smpp';
import type { DeliveryUpdate, InboundSms } from './provider.ts';
import { e164 } from './report-phone.ts';

/** Receipt `stat:` words (SMPP 3.4 appendix B, plus what some SMSCs add) onto our statuses. */
const STAT_MAP: Record<string, DeliveryUpdate['status']> = {
  DELIVRD: 'delivered',
  DELIVERED: 'delivered',
  EXPIRED: 'expired',
  DELETED: 'failed',
  UNDELIV: 'failed',
  UNDELIVERABLE: 'failed',
  FAILED: 'failed',
  UNKNOWN: 'failed',
  REJECTD: 'rejected',
  REJECTED: 'rejected',
  ACCEPTD: 'sent',
  ENROUTE: 'sent',
  BUFFRED: 'sent',
  SCHEDULED: 'submitted',
};

/** The `message_state` TLV (SMPP 3.4 5.3.2.35), for receipts whose text says nothing usable. */
const STATE_WORDS: Record<number, string> = {
  0: 'SCHEDULED',
  1: 'ENROUTE',
  2: 'DELIVRD',
  3: 'EXPIRED',
  4: 'DELETED',
  5: 'UNDELIV',
  6: 'ACCEPTD',
  7: 'UNKNOWN',
  8: 'REJECTD',
};

/** The receipt's own clock may be off or in another zone: a done date this far ahead is not trusted. */
const FUTURE_TOLERANCE_MS = 15 * 60_000;

/** True when a deliver_sm carries a delivery receipt rather than a message from a handset. */
export function isDeliveryReceipt(pdu: Pdu) {
  const esmClass = pdu.esm_class ?? 0;
  return (esmClass & (smpp.ESM_CLASS.MC_DELIVERY_RECEIPT | smpp.ESM_CLASS.INTERMEDIATE_DELIVERY)) !== 0;
}

/**
 * Reads a receipt leniently (`id:... done date:YYMMDDhhmm[ss] stat:DELIVRD err:000 ...` in any case
 * and spacing), preferring the `receipted_message_id` and `message_state` TLVs. Null without an id
 * or a known status.
 */
export function parseSmppReceipt(pdu: Pdu, now = new Date()): DeliveryUpdate | null {
  const text = receiptText(pdu);
  const field = (name: string) => new RegExp(`(?:^|\\s)${name}:\\s*(\\S+)`, 'i').exec(text)?.[1];
  const providerMessageId = (pdu.receipted_message_id || field('id') || '').replaceAll('\u0000', '').trim();
  if (!providerMessageId) return null;
  const stateWord = pdu.message_state === undefined ? undefined : STATE_WORDS[pdu.message_state];
  const providerStatus = (field('stat') ?? stateWord ?? '').toUpperCase();
  const status = STAT_MAP[providerStatus] ?? (stateWord ? STAT_MAP[stateWord] : undefined);
  if (!status) return null;
  const err = field('err');
  const failed = status === 'failed' || status === 'rejected' || status === 'expired';
  return {
    providerMessageId,
    status,
    providerStatus,
    error: failed ? (err && !/^0+$/.test(err) ? `${providerStatus} (err ${err})` : providerStatus) : null,
    at: doneDate(text, now),
    // A receipt comes from the handset's address: the recipient's number.
    phone: e164(typeof pdu.source_addr === 'string' ? pdu.source_addr : null),
  };
}

/** A handset's message (a deliver_sm that is no receipt), its text decoded by data_coding; null without a sender. */
export function parseSmppInbound(pdu: Pdu): InboundSms | null {
  const from = (pdu.source_addr ?? '').replaceAll('\u0000', '').trim();
  if (!from) return null;
  const message = bodyOf(pdu.short_message ?? pdu.message_payload);
  const text = Buffer.isBuffer(message)
    ? pdu.data_coding === 0x08
      ? Buffer.from(message).swap16().toString('utf16le')
      : message.toString('latin1')
    : (message ?? '');
  const time = pdu.schedule_delivery_time;
  return {
    from: e164(from) ?? from,
    to: (pdu.destination_addr ?? '').replaceAll('\u0000', '').trim(),
    text: text.replaceAll('\u0000', ''),
    receivedAt: time instanceof Date && !Number.isNaN(time.getTime()) ? time : null,
  };
}

/** The package decodes a message into `{ udh, message }` when it can. */
const bodyOf = (value: Pdu['short_message']) =>
  typeof value === 'object' && value !== null && 'message' in value ? value.message : value;

function receiptText(pdu: Pdu) {
  for (const value of [pdu.short_message, pdu.message_payload]) {
    const message = bodyOf(value);
    const text = Buffer.isBuffer(message) ? message.toString('latin1') : (message ?? '');
    if (text) return text;
  }
  return '';
}

/** `done date:YYMMDDhhmm` or `...hhmmss`, read as UTC; the arrival time when missing or implausible. */
function doneDate(text: string, now: Date) {
  const digits = /done\s*date:\s*(\d{10}(?:\d{2})?)(?!\d)/i.exec(text)?.[1];
  if (!digits) return now;
  const [yy, mo, dd, hh, mi, ss = '00'] = digits.match(/\d\d/g)!;
  const at = new Date(
    Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
  );
  const valid =
    !Number.isNaN(at.getTime()) &&
    at.getUTCMonth() === Number(mo) - 1 &&
    at.getUTCDate() === Number(dd) &&
    at.getTime() <= now.getTime() + FUTURE_TOLERANCE_MS;
  return valid ? at : now;
}
