import { SegmentedMessage } from 'sms-segments-calculator';

export const SMS_ENCODINGS = ['GSM-7', 'UCS-2'] as const;
export type TSmsEncoding = (typeof SMS_ENCODINGS)[number];

/** How the console names each encoding beside the counter. */
export const SMS_ENCODING_LABELS: Record<TSmsEncoding, string> = { 'GSM-7': 'GSM-7', 'UCS-2': 'Unicode' };

/** Characters (GSM-7 septets or UCS-2 code units) in one SMS, alone or as a part of a longer one. */
export const SMS_PART_CAPACITY: Record<TSmsEncoding, { single: number; multipart: number }> = {
  'GSM-7': { single: 160, multipart: 153 },
  'UCS-2': { single: 70, multipart: 67 },
};

export type TSmsMeasure = {
  encoding: TSmsEncoding;
  /** SMS parts each recipient receives; 0 for an empty text. */
  parts: number;
  /** Units the text takes: GSM-7 extension characters (^ { } \ [ ~ ] | € and form feed) count 2. */
  units: number;
};

/**
 * The one rule for encoding and parts, shared by the console's counter and the engine: GSM 03.38
 * when every character is in its basic set or extension, else UCS-2; 160/70 units in a single SMS,
 * 153/67 per part once it is split (the rest carries the concatenation header).
 */
export function measureSms(text: string): TSmsMeasure {
  if (text.length === 0) return { encoding: 'GSM-7', parts: 0, units: 0 };
  const measured = new SegmentedMessage(text, 'auto');
  const units = measured.encodedChars.reduce((sum, char) => sum + char.codeUnits.length, 0);
  return { encoding: measured.encodingName, parts: measured.segmentsCount, units };
}
