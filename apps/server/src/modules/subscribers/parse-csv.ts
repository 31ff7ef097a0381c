import { IMPORT_PHONE_HEADERS } from '@sms/contracts/subscribers/import-subscribers';

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

export type CsvPhoneRow = { line: number; value: string };

const headerKey = (cell: string) => cell.toLowerCase().replace(/[^a-z_]/g, '');

/**
 * The phone-number cell of every data line, with its line number in the file (1-based).
 * A first line naming a known column (phone, msisdn, phoneNumber...) is a header and picks the
 * column; a first line with letters and no digits is a header too; otherwise column one is read.
 */
export function readPhoneColumn(text: string): CsvPhoneRow[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  let column = 0;
  let start = 0;
  const first = lines.findIndex((line) => line.trim() !== '');
  if (first >= 0) {
    const cells = splitCsvLine(lines[first]);
    const named = cells.findIndex((cell) => IMPORT_PHONE_HEADERS.includes(headerKey(cell)));
    if (named >= 0) {
      column = named;
      start = first + 1;
    } else if (/[a-z]/i.test(cells[0] ?? '') && !/\d/.test(cells[0] ?? '')) {
      start = first + 1;
    }
  }
  const rows: CsvPhoneRow[] = [];
  for (let index = start; index < lines.length; index++) {
    if (lines[index].trim() === '') continue;
    rows.push({ line: index + 1, value: splitCsvLine(lines[index])[column] ?? '' });
  }
  return rows;
}

/** A cell that a spreadsheet would run as a formula is prefixed with a quote (CSV injection). */
export function csvCell(value: string) {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n;]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
