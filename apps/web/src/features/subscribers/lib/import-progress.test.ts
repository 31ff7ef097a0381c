import { describe, expect, it } from 'vitest';
import { fileBytesSent, lineEnds, linesWithin } from './import-progress.ts';

describe('import progress', () => {
  it('counts the whole lines within the bytes sent, an unterminated last line too', async () => {
    const ends = await lineEnds(new Blob(['phone\n+254710000001\n+254710000002']));
    expect([...ends]).toEqual([6, 20, 33]);
    expect(linesWithin(ends, 0)).toBe(0);
    expect(linesWithin(ends, 19)).toBe(1);
    expect(linesWithin(ends, 20)).toBe(2);
    expect(linesWithin(ends, 33)).toBe(3);
  });

  it("takes a multipart upload's headers off its progress", () => {
    expect(fileBytesSent(100, 1_200, 1_000)).toBe(0);
    expect(fileBytesSent(700, 1_200, 1_000)).toBe(500);
    expect(fileBytesSent(1_200, 1_200, 1_000)).toBe(1_000);
  });
});
