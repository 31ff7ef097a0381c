import { SMS_PART_CAPACITY } from '@sms/contracts/messages/sms-encoding';
import smpp from 'smpp';

/** data_coding values we send, always explicitly (left unset, the package marks GSM text 0x01). */
export const DATA_CODING = { gsm7: 0x00, ucs2: 0x08 } as const;

export type SmppPart = {
  dataCoding: number;
  /** The 6-octet concatenation header (05 00 03 ref total seq), absent for a single SMS. */
  udh?: Buffer;
  /** Encoded text: GSM 03.38 one octet per septet (escape + char for the extension), or UTF-16BE. */
  message: Buffer;
};

/** GSM 03.38 extension characters: sent as escape + char, so they take two septets. */
const GSM_EXTENSION = new Set(['\f', '^', '{', '}', '\\', '[', '~', ']', '|', '€']);

/**
 * Encodes a text for submit_sm, in concatenated parts when it does not fit one SMS, never cutting
 * an escape or a surrogate pair. GSM-7 only when the package's table carries every character.
 */
export function splitIntoParts(text: string, wanted: 'GSM-7' | 'UCS-2', reference: number): SmppPart[] {
  const gsm = wanted === 'GSM-7' && smpp.encodings.ASCII.match(text);
  const capacity = SMS_PART_CAPACITY[gsm ? 'GSM-7' : 'UCS-2'];
  const chunks = gsm ? chunkGsm(text, capacity) : chunkUcs2(text, capacity);
  const dataCoding = gsm ? DATA_CODING.gsm7 : DATA_CODING.ucs2;
  const encode = (chunk: string) => (gsm ? smpp.encodings.ASCII.encode(chunk) : swapToBigEndian(chunk));
  if (chunks.length === 1) return [{ dataCoding, message: encode(chunks[0]!) }];
  const ref = reference & 0xff;
  return chunks.map((chunk, index) => ({
    dataCoding,
    udh: Buffer.from([0x05, 0x00, 0x03, ref, chunks.length, index + 1]),
    message: encode(chunk),
  }));
}

function chunkGsm(text: string, capacity: { single: number; multipart: number }) {
  const cost = (char: string) => (GSM_EXTENSION.has(char) ? 2 : 1);
  const chars = [...text];
  const total = chars.reduce((sum, char) => sum + cost(char), 0);
  if (total <= capacity.single) return [text];
  return chunkBy(chars, cost, capacity.multipart);
}

function chunkUcs2(text: string, capacity: { single: number; multipart: number }) {
  if (text.length <= capacity.single) return [text];
  // Code points, so an emoji's surrogate pair (2 units) stays in one part.
  return chunkBy([...text], (char) => char.length, capacity.multipart);
}

function chunkBy(chars: string[], cost: (char: string) => number, limit: number) {
  const chunks: string[] = [];
  let current = '';
  let used = 0;
  for (const char of chars) {
    if (used + cost(char) > limit) {
      chunks.push(current);
      current = '';
      used = 0;
    }
    current += char;
    used += cost(char);
  }
  if (current) chunks.push(current);
  return chunks;
}

/** UTF-16BE bytes of a string (Buffer's utf16le, byte-swapped). */
function swapToBigEndian(text: string) {
  return Buffer.from(text, 'utf16le').swap16();
}
