import { describe, expect, it } from 'vitest';
import { ANCHOR_STEP, ANCHORS_FROM, createPageAnchors } from '../src/lib/page-anchors.ts';

describe('page anchors', () => {
  const ids = Array.from({ length: 50 }, (_, i) => 10_000 - i * ANCHOR_STEP);
  const deep = ANCHORS_FROM + 3 * ANCHOR_STEP + 7;

  it('names a known start only for anchors already read, of the same version, without reading', async () => {
    const pageStart = createPageAnchors<string>(10);
    let reads = 0;
    const read = async () => {
      reads++;
      return ids;
    };
    expect(pageStart.knownStart('a', 'v1', deep)).toBeNull();
    const start = await pageStart('a', 'v1', deep, read);
    expect(start).toEqual({ anchorId: ids[13], skip: 7 });
    expect(pageStart.knownStart('a', 'v1', deep)).toEqual(start);
    expect(pageStart.knownStart('a', 'v2', deep)).toBeNull();
    expect(pageStart.knownStart('b', 'v1', deep)).toBeNull();
    // Near the top no anchor is needed; past the last anchor the page walks from the top.
    expect(pageStart.knownStart('b', 'v1', 12)).toEqual({ anchorId: null, skip: 12 });
    expect(pageStart.knownStart('a', 'v1', 60 * ANCHOR_STEP)).toEqual({ anchorId: null, skip: 6_000 });
    expect(reads).toBe(1);
  });

  it('names no known start while the list’s anchors are still being read', async () => {
    const pageStart = createPageAnchors<string>(10);
    let finishRead: (read: number[]) => void = () => {};
    const reading = pageStart('a', 'v1', deep, () => new Promise((resolve) => (finishRead = resolve)));
    expect(pageStart.knownStart('a', 'v1', deep)).toBeNull();
    finishRead(ids);
    expect(await reading).toEqual({ anchorId: ids[13], skip: 7 });
    expect(pageStart.knownStart('a', 'v1', deep)).toEqual({ anchorId: ids[13], skip: 7 });
  });

  it('forgets the known start of a list it no longer keeps', async () => {
    const pageStart = createPageAnchors<string>(2);
    const read = async () => ids;
    await pageStart('a', 'v1', deep, read);
    await pageStart('b', 'v1', deep, read);
    // 'a' used last: 'b' is the oldest when 'c' comes.
    expect(pageStart.knownStart('a', 'v1', deep)).not.toBeNull();
    await pageStart('c', 'v1', deep, read);
    expect(pageStart.knownStart('b', 'v1', deep)).toBeNull();
    expect(pageStart.knownStart('a', 'v1', deep)).not.toBeNull();
  });
});
