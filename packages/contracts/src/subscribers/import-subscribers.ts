import { z } from 'zod';
import { successEnvelope } from '../common/envelope.ts';

/** Lines after the header; larger files are refused and nothing of them is written. */
export const IMPORT_MAX_ROWS = 1_000_000;
/**
 * The largest file (multipart) or text/csv body an import accepts. Both are read as they arrive,
 * never held whole: room for a million rows of up to ~60 characters (a phone column and a name or two).
 */
export const IMPORT_MAX_BYTES = 64 * 1024 * 1024;
/** The JSON form ({ csv }) arrives as one string held whole in memory: meant for short lists, capped lower. */
export const IMPORT_MAX_JSON_BYTES = 20 * 1024 * 1024;
/** Longer lines are refused: a phone list's lines are short, and one huge line would be parsed in one go. */
export const IMPORT_MAX_LINE_LENGTH = 65_536;
/** The report lists at most this many bad lines; invalidRows still counts them all. */
export const IMPORT_MAX_REPORTED_ERRORS = 500;
/** Header names recognised for the phone-number column (case-insensitive); otherwise the first column. */
export const IMPORT_PHONE_HEADERS = ['phonenumber', 'phone_number', 'phone', 'msisdn', 'number', 'mobile'];

export const IMPORT_MESSAGES = {
  fileRequired: 'Choose a CSV file to import',
  empty: 'The file holds no phone numbers',
  tooManyRows: `A file may hold at most ${IMPORT_MAX_ROWS.toLocaleString('en-US')} rows`,
  lineTooLong: (line: number) =>
    `Line ${line} is longer than ${IMPORT_MAX_LINE_LENGTH.toLocaleString('en-US')} characters: is this a CSV file?`,
  malformedUpload: 'The file could not be read: the upload is not a well-formed multipart form',
  unsupported: 'Send the CSV as a multipart file, a text/csv body or JSON { "csv": "..." }',
} as const;

/** JSON form of the import (the console's): the file's text. */
export const ZImportSubscribersJson = z.object({
  csv: z.string({ error: IMPORT_MESSAGES.fileRequired }).min(1, IMPORT_MESSAGES.fileRequired),
});

export const ZImportLineError = z.object({ line: z.number().int(), value: z.string(), message: z.string() });
export type TImportLineError = z.infer<typeof ZImportLineError>;

export const ZImportSubscribersData = z.object({
  totalRows: z.number().int(),
  /** New subscriptions created by this import. */
  imported: z.number().int(),
  alreadySubscribed: z.number().int(),
  /** Numbers that had opted out of this service: left unsubscribed, an import does not override an opt-out. */
  previouslyUnsubscribed: z.number().int(),
  duplicatesInFile: z.number().int(),
  invalidRows: z.number().int(),
  /** New numbers left out because the company reached its active-subscriber limit (in file order, the last ones). */
  refusedByLimit: z.number().int(),
  /** The limit they met (plans/plan-catalogue.ts). */
  subscribersLimit: z.number().int(),
  errors: z.array(ZImportLineError),
  /**
   * The header's other columns read as merge fields ('First Name' -> first_name): a row's non-blank
   * values are set on its subscriber, new or known. Columns whose names cannot be fields are ignored.
   */
  attributeColumns: z.array(z.string()),
  /** Rows imported without a field whose value was longer than a field takes (their lines are in errors). */
  valuesTooLong: z.number().int(),
  ignoredColumns: z.array(z.string()),
});
export type TImportSubscribersData = z.infer<typeof ZImportSubscribersData>;
export const ZImportSubscribersResponse = successEnvelope(ZImportSubscribersData);
