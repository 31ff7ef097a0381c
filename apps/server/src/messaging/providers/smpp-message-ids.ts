import type { TSmppMessageIdType } from '@sms/contracts/admin/company-provider';
import type { ReportId } from './provider.ts';

/**
 * An SMSC's message ids as submit_sm_resp gives them and as its receipts name them. Some give one
 * number in hex in the one and in decimal in the other (Kannel's msg-id-type); the company's
 * setting says which, and ids are then kept as the decimal number on both sides. `auto` (the
 * default) keeps the id as given and, beside it, its other plain forms (the hex read as decimal,
 * the decimal as hex in either case), matched only when no id is exactly the receipt's and only
 * when they name one recipient (apply_delivery_report_inbox).
 */
const HEX = /^[0-9A-Fa-f]{1,32}$/;
const DECIMAL = /^[0-9]{1,38}$/;

const fromHex = (id: string) => (HEX.test(id) ? BigInt(`0x${id}`).toString() : null);
const fromDecimal = (id: string) => (DECIMAL.test(id) ? BigInt(id).toString() : null);

/** The ids a part's receipts may name, for recipient_gateway_ids. */
export function submittedIds(id: string, part: number, type: TSmppMessageIdType): ReportId[] {
  if (type === 'hex_decimal') return [{ id: fromHex(id) ?? id, part }];
  if (type === 'decimal_hex') return [{ id: fromDecimal(id) ?? id, part }];
  if (type === 'same') return [{ id, part }];
  const alternatives: string[] = [];
  const asDecimal = fromHex(id);
  if (asDecimal !== null) alternatives.push(asDecimal);
  const value = DECIMAL.test(id) ? BigInt(id).toString(16) : null;
  if (value !== null) alternatives.push(value, value.toUpperCase());
  return [
    { id, part },
    ...[...new Set(alternatives)]
      .filter((other) => other !== id)
      .map((other) => ({ id: other, part, alternative: true })),
  ];
}

/** The id a receipt is looked up by. */
export function receiptId(id: string, type: TSmppMessageIdType) {
  if (type === 'hex_decimal') return fromDecimal(id) ?? id;
  if (type === 'decimal_hex') return fromHex(id) ?? id;
  return id;
}

/**
 * Every part's ids of one recipient, each id once, and how many parts' receipts decide it: an SMSC
 * that gives every part the same id sends one receipt, so its parts count as one. Where one part's
 * alternative form is another's own id, the own id wins (the table's key is the id and the recipient).
 */
export function recipientReportIds(partIds: string[], type: TSmppMessageIdType) {
  const distinct = [...new Set(partIds)];
  const all = distinct.flatMap((id, index) => submittedIds(id, index + 1, type));
  const exact = new Set(all.filter((reportId) => !reportId.alternative).map((reportId) => reportId.id));
  const seen = new Set<string>();
  const reportIds = all.filter((reportId) => {
    if (seen.has(reportId.id) || (reportId.alternative && exact.has(reportId.id))) return false;
    seen.add(reportId.id);
    return true;
  });
  return { reportIds, reportParts: distinct.length };
}
