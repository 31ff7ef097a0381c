import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  IMPORT_MAX_BYTES,
  IMPORT_MAX_LINE_LENGTH,
  IMPORT_MAX_REPORTED_ERRORS,
  IMPORT_MAX_ROWS,
  IMPORT_MESSAGES,
  type TImportLineError,
} from '@sms/contracts/subscribers/import-subscribers';
import { SUBSCRIBER_MESSAGES } from '@sms/contracts/subscribers/subscriber';
import { ATTRIBUTE_VALUE_MAX_LENGTH, MERGE_FIELD_MESSAGES } from '@sms/contracts/templates/merge-fields';
import { AppError, badRequest } from '../../errors.ts';
import { RequestTooLargeError } from '../../plugins/request-guards.ts';
import { attributeColumnsOf, phoneColumnOf, splitCsvLine } from './parse-csv.ts';
import { normalisePhoneNumber } from './phone-number.ts';

/** An import's CSV: the whole text (JSON body), or its bytes as they arrive (file upload, text/csv body). */
export type ImportSource = string | AsyncIterable<Buffer | string>;

/**
 * Valid numbers in E.164, in file order, with the lines they were read from and, when the header
 * names merge-field columns, each row's non-blank values as JSON (null: none).
 */
export type ImportBatch = { lines: number[]; numbers: string[]; attributes: (string | null)[] };

export type ImportReadSummary = {
  totalRows: number;
  /** Rows with a valid number, duplicates included (the database drops those). */
  validRows: number;
  invalidRows: number;
  /** Rows imported without a field whose value was too long (listed in errors too). */
  valuesTooLong: number;
  errors: TImportLineError[];
  /** The header's columns read as merge fields, and the others it named. */
  attributeColumns: string[];
  ignoredColumns: string[];
};

/** Valid rows are handed on in batches of this many: memory holds a batch or two, whatever the file's size. */
export const IMPORT_BATCH_ROWS = 10_000;

/**
 * Parsing runs in slices of about this many milliseconds, then lets the event loop serve other
 * requests: phone-number parsing costs several microseconds a row, so a 1,000,000-row file takes
 * seconds of CPU, which must not stall everyone else's requests.
 */
const SLICE_MS = 10;

/**
 * Reads an import as it arrives: lines are split across chunks, the phone column is picked from
 * the first line, every number is normalised for the company's country, and the valid ones go to
 * `takeBatch` a batch at a time; reading waits while it works, so a fast upload cannot pile up in
 * memory. Stops with a 400 at the row cap or at a line too long to be a phone list's, before the
 * rest is read. Duplicates are the caller's to drop: a set of every number seen would grow with
 * the file.
 */
export async function readImportRows(
  source: ImportSource,
  country: string,
  takeBatch: (batch: ImportBatch) => Promise<void>,
): Promise<ImportReadSummary> {
  const errors: TImportLineError[] = [];
  let totalRows = 0;
  let validRows = 0;
  let invalidRows = 0;
  let valuesTooLong = 0;
  let column: number | null = null;
  let fields: { index: number; name: string }[] = [];
  let ignoredColumns: string[] = [];
  let batch: ImportBatch = { lines: [], numbers: [], attributes: [] };
  let sliceStarted = performance.now();

  for await (const { text, line } of linesOf(source)) {
    if (text.trim() === '') continue;
    if (column === null) {
      const first = phoneColumnOf(text);
      column = first.column;
      if (first.isHeader) {
        ({ columns: fields, ignored: ignoredColumns } = attributeColumnsOf(text, column));
        continue;
      }
    }
    if (++totalRows > IMPORT_MAX_ROWS) throw badRequest(IMPORT_MESSAGES.tooManyRows);
    const cells = splitCsvLine(text);
    const value = cells[column] ?? '';
    const result = value ? normalisePhoneNumber(value, country) : null;
    const attributes = fields.length > 0 ? attributesOf(cells, fields) : null;
    if (!result?.ok) {
      invalidRows++;
      if (errors.length < IMPORT_MAX_REPORTED_ERRORS) errors.push(lineError(line, value));
    } else {
      validRows++;
      // A value too long for a field is left out; the number is imported all the same.
      if (attributes?.tooLong) {
        valuesTooLong++;
        if (errors.length < IMPORT_MAX_REPORTED_ERRORS)
          errors.push({
            line,
            value: value.slice(0, 60),
            message: MERGE_FIELD_MESSAGES.valueLeftOut(attributes.tooLong),
          });
      }
      batch.lines.push(line);
      batch.numbers.push(result.msisdn);
      batch.attributes.push(attributes?.json ?? null);
      if (batch.numbers.length >= IMPORT_BATCH_ROWS) {
        await takeBatch(batch);
        batch = { lines: [], numbers: [], attributes: [] };
      }
    }
    if (performance.now() - sliceStarted >= SLICE_MS) {
      await nextTurn();
      sliceStarted = performance.now();
    }
  }
  if (totalRows === 0) throw badRequest(IMPORT_MESSAGES.empty);
  if (batch.numbers.length > 0) await takeBatch(batch);
  return {
    totalRows,
    validRows,
    invalidRows,
    valuesTooLong,
    errors,
    attributeColumns: fields.map((field) => field.name),
    ignoredColumns,
  };
}

/** A row's non-blank merge-field values as JSON (null: none), and the first field whose value was too long (left out). */
function attributesOf(cells: string[], fields: { index: number; name: string }[]) {
  const values: Record<string, string> = {};
  let any = false;
  let tooLong: string | null = null;
  for (const { index, name } of fields) {
    const cell = (cells[index] ?? '').trim();
    if (cell === '') continue;
    if (cell.length > ATTRIBUTE_VALUE_MAX_LENGTH) {
      tooLong ??= name;
      continue;
    }
    values[name] = cell;
    any = true;
  }
  return { json: any ? JSON.stringify(values) : null, tooLong };
}

function lineError(line: number, value: string): TImportLineError {
  const shown = value.slice(0, 60);
  return {
    line,
    value: shown,
    message: value ? SUBSCRIBER_MESSAGES.phoneInvalid(shown) : SUBSCRIBER_MESSAGES.phoneRequired,
  };
}

/** The file's lines with their 1-based numbers (CRLF, LF or CR endings; a UTF-8 byte-order mark dropped). */
async function* linesOf(source: ImportSource): AsyncGenerator<{ text: string; line: number }> {
  // TextDecoder drops a leading byte-order mark itself and keeps characters split across chunks whole.
  const decoder = new TextDecoder('utf-8');
  const chunks = typeof source === 'string' ? [source.replace(/^\uFEFF/, '')] : source;
  let pending = '';
  let line = 0;
  for await (const chunk of chunks) {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    const breaks = /\r\n|\n|\r/g;
    let start = 0;
    for (let match = breaks.exec(pending); match; match = breaks.exec(pending)) {
      // A CR ending the chunk may be the first half of a CRLF: decided with the next chunk.
      if (match[0] === '\r' && match.index === pending.length - 1) break;
      line++;
      if (match.index - start > IMPORT_MAX_LINE_LENGTH) throw badRequest(IMPORT_MESSAGES.lineTooLong(line));
      yield { text: pending.slice(start, match.index), line };
      start = breaks.lastIndex;
    }
    pending = pending.slice(start);
    if (pending.length > IMPORT_MAX_LINE_LENGTH + 1) throw badRequest(IMPORT_MESSAGES.lineTooLong(line + 1));
  }
  pending += decoder.decode();
  const last = pending.replace(/\r$/, '');
  if (last.length > IMPORT_MAX_LINE_LENGTH) throw badRequest(IMPORT_MESSAGES.lineTooLong(line + 1));
  if (last !== '') yield { text: last, line: line + 1 };
}

/**
 * An uploaded file's bytes; a file cut off at the size limit is refused (413), never imported in
 * part, and so is one whose multipart framing breaks off (400).
 */
export async function* uploadedFileChunks(file: Readable & { truncated?: boolean }) {
  try {
    for await (const chunk of file) yield chunk as Buffer;
  } catch (error) {
    throw asUploadError(error);
  }
  if (file.truncated) throw new RequestTooLargeError(IMPORT_MAX_BYTES);
}

/**
 * What reading a multipart upload threw, as the client's error: the multipart plugin's limits keep
 * their 413, and anything else (busboy's "Boundary not found", "Unexpected end of form", a part
 * cut short, a premature close) is a malformed upload, a 400.
 */
export function asUploadError(error: unknown): Error {
  if (error instanceof AppError || error instanceof RequestTooLargeError) return error;
  if ((error as { statusCode?: unknown }).statusCode === 413) return error as Error;
  return badRequest(IMPORT_MESSAGES.malformedUpload);
}

/** A raw request body's bytes, refused (413) once more than maxBytes have arrived. */
export async function* cappedChunks(body: AsyncIterable<Buffer>, maxBytes = IMPORT_MAX_BYTES) {
  let received = 0;
  for await (const chunk of body) {
    received += chunk.length;
    if (received > maxBytes) throw new RequestTooLargeError(maxBytes);
    yield chunk;
  }
}
