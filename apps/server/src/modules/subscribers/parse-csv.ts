import { IMPORT_PHONE_HEADERS } from '@sms/contracts/subscribers/import-subscribers';
import { ATTRIBUTE_MAX_COUNT, attributeNameOfHeader } from '@sms/contracts/templates/merge-fields';

/** Splits one CSV line (RFC 4180 quoting; a quoted field may not span lines). */
export function splitCsvLine(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted) {
      if (char === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (char === ',' || char === ';' || char === '\t') {
      cells.push(cell.trim());
      cell = '';
    } else cell += char;
  }
  cells.push(cell.trim());
  return cells;
}

const headerKey = (cell: string) => cell.toLowerCase().replace(/[^a-z_]/g, '');

/**
 * What the first non-blank line of an import says: a line naming a known column (phone, msisdn,
 * phoneNumber...) is a header and picks the column; a line whose first cell has letters and no
 * digits is a header too; otherwise it is data and column one is read.
 */
export function phoneColumnOf(firstLine: string): { column: number; isHeader: boolean } {
  const cells = splitCsvLine(firstLine);
  const named = cells.findIndex((cell) => IMPORT_PHONE_HEADERS.includes(headerKey(cell)));
  if (named >= 0) return { column: named, isHeader: true };
  const first = cells[0] ?? '';
  return { column: 0, isHeader: /[a-z]/i.test(first) && !/\d/.test(first) };
}

/** A header's columns besides the phone's: those that name a merge field (first ones, at most ATTRIBUTE_MAX_COUNT), and the rest. */
export function attributeColumnsOf(headerLine: string, phoneColumn: number) {
  const columns: { index: number; name: string }[] = [];
  const ignored: string[] = [];
  splitCsvLine(headerLine).forEach((cell, index) => {
    if (index === phoneColumn || cell === '') return;
    const name = attributeNameOfHeader(cell);
    if (name && columns.length < ATTRIBUTE_MAX_COUNT && !columns.some((column) => column.name === name))
      columns.push({ index, name });
    else ignored.push(cell.slice(0, 60));
  });
  return { columns, ignored };
}

/** A cell that a spreadsheet would run as a formula is prefixed with a quote (CSV injection). */
export function csvCell(value: string) {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n;]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
