/** Every ANCHOR_STEP-th key of a long list is remembered; a deep page then walks fewer than this many keys. */
export const ANCHOR_STEP = 100;
/**
 * Pages start from a remembered key only this deep: nearer the top a walk from the top is cheap
 * (fewer than 1,000 keys), and reading a list's anchors (one walk over all its keys) is not.
 */
export const ANCHORS_FROM = 1_000;

/** Where a page starts: from a remembered key (null: from the top of the list), skipping `skip` rows. */
export type PageStart = { anchorId: number | null; skip: number };

type Anchors = { version: string; ids: number[] };

/**
 * Remembered page starts of long lists read in key order. OFFSET walks every key before a deep
 * page; from the nearest remembered key a page walks fewer than ANCHOR_STEP. A list's anchors are
 * read by one walk over its keys (`readAnchors`: every ANCHOR_STEP-th key, in the list's order)
 * and kept for the `version` of the list they were read from; another version reads them again.
 * This process keeps the `maxLists` most recently read lists.
 */
export function createPageAnchors<Key>(maxLists: number) {
  const byList = new Map<Key, Promise<Anchors>>();
  /** The anchors of each list in byList once read (a list being read is not here yet). */
  const readLists = new Map<Key, Anchors>();
  /**
   * Where a page starts when this process already holds the list's anchors for `version`, without
   * reading anything; null otherwise (pageStart reads them).
   */
  const knownStart = (key: Key, version: string, offset: number): PageStart | null => {
    if (offset < ANCHORS_FROM) return { anchorId: null, skip: offset };
    const anchors = readLists.get(key);
    const reading = byList.get(key);
    if (anchors?.version !== version || !reading) return null;
    // Most recently used last (as pageStart).
    byList.delete(key);
    byList.set(key, reading);
    return startIn(anchors.ids, offset);
  };
  const pageStart = async function pageStart(
    key: Key,
    version: string,
    offset: number,
    readAnchors: () => Promise<number[]>,
  ): Promise<PageStart> {
    if (offset < ANCHORS_FROM) return { anchorId: null, skip: offset };
    let anchors = byList.get(key);
    if (!anchors || (await anchors.catch(() => null))?.version !== version) {
      const reading = readAnchors().then((ids) => ({ version, ids }));
      reading.then(
        (read) => {
          if (byList.get(key) === reading) readLists.set(key, read);
        },
        () => {
          if (byList.get(key) === reading) byList.delete(key);
        },
      );
      anchors = reading;
    }
    // Most recently used last, so the oldest goes first when the map is full.
    byList.delete(key);
    byList.set(key, anchors);
    if (byList.size > maxLists) {
      const oldest = byList.keys().next().value as Key;
      byList.delete(oldest);
      readLists.delete(oldest);
    }
    return startIn((await anchors).ids, offset);
  };
  return Object.assign(pageStart, { knownStart });
}

function startIn(ids: number[], offset: number): PageStart {
  const index = Math.floor(offset / ANCHOR_STEP);
  if (index >= ids.length) return { anchorId: null, skip: offset };
  return { anchorId: ids[index], skip: offset - index * ANCHOR_STEP };
}
