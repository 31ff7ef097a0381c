const NEWLINE = 0x0a;

/**
 * Where each line of the file ends (byte offsets), so the bytes uploaded so far say how many whole
 * rows the server has been given: it reads the upload as it arrives (ADR 0013).
 */
export async function lineEnds(file: Blob) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let count = 0;
  for (const byte of bytes) if (byte === NEWLINE) count++;
  const lastIsOpen = bytes.length > 0 && bytes[bytes.length - 1] !== NEWLINE;
  const ends = new Uint32Array(count + (lastIsOpen ? 1 : 0));
  let next = 0;
  for (let index = 0; index < bytes.length; index++) if (bytes[index] === NEWLINE) ends[next++] = index + 1;
  if (lastIsOpen) ends[next] = bytes.length;
  return ends;
}

/** How many lines end within the first `bytes` bytes. */
export function linesWithin(ends: Uint32Array, bytes: number) {
  let low = 0;
  let high = ends.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ends[middle] <= bytes) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The file's bytes within a multipart upload's progress: the part's headers come first, so they
 * are taken off (the closing boundary, a few dozen bytes, makes this err on the low side).
 */
export function fileBytesSent(loaded: number, total: number, fileSize: number) {
  return Math.max(0, Math.min(fileSize, loaded - (total - fileSize)));
}
