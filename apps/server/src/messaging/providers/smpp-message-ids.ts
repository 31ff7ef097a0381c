import type { TSmppMessageIdType } from '@sms/contracts/admin/company-provider';
import type { ReportId } from './provider.ts';

/**
 * Some SMSCs give one id in hex in submit_sm_resp and in decimal in receipts (Kannel's msg-id-type);
 * the company's setting says which, and both sides are kept as the decimal number. `auto` keeps the
 * id as given and, beside it, its other plain forms, matched only when no id is exactly the receipt's.
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
 * Every part's ids of one recipient, each once, and how many parts' receipts decide it (parts that
 * share an id send one receipt). Where one part's alternative form is another's own id, the own id wins.
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
