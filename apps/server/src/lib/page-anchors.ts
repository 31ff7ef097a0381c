import { keepRecent } from './keep-recent.ts';

/** Every ANCHOR_STEP-th key of a long list is remembered; a deep page then walks fewer than this many keys. */
export const ANCHOR_STEP = 100;
/**
 * Pages start from a remembered key only this deep: nearer the top a walk from the top is cheap
 * (fewer than 1,000 keys), and reading a list's anchors (one walk over all its keys) is not.
 */
export const ANCHORS_FROM = 1_000;

/** Where a page starts: from a remembered key (null: from the top of the list), skipping `skip` rows. */
export type PageStart = { anchorId: number | null; skip: number };

/** A list's anchors for one version: being read, and once read, their ids. */
type Anchors = { version: string; reading: Promise<number[]>; ids?: number[] };

/**
 * Remembered page starts of long lists read in key order. OFFSET walks every key before a deep
 * page; from the nearest remembered key a page walks fewer than ANCHOR_STEP. A list's anchors are
 * read by one walk over its keys (`readAnchors`: every ANCHOR_STEP-th key, in the list's order)
 * and kept for the `version` of the list they were read from; another version reads them again.
 * This process keeps the `maxLists` most recently read lists.
 */
export function createPageAnchors<Key>(maxLists: number) {
  const byList = new Map<Key, Anchors>();
  // Most recently used last, so the oldest goes first when the map is full.
  const use = (key: Key, anchors: Anchors) => keepRecent(byList, key, anchors, maxLists);
  /**
   * Where a page starts when this process already holds the list's anchors for `version`, without
   * reading anything; null otherwise (pageStart reads them).
   */
  const knownStart = (key: Key, version: string, offset: number): PageStart | null => {
    if (offset < ANCHORS_FROM) return { anchorId: null, skip: offset };
    const anchors = byList.get(key);
    if (anchors?.version !== version || !anchors.ids) return null;
    use(key, anchors);
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
    if (anchors?.version !== version) {
      const read: Anchors = { version, reading: readAnchors() };
      read.reading.then(
        (ids) => {
          read.ids = ids;
        },
        () => {
          if (byList.get(key) === read) byList.delete(key);
        },
      );
      anchors = read;
    }
    use(key, anchors);
    return startIn(await anchors.reading, offset);
  };
  return Object.assign(pageStart, { knownStart });
}

function startIn(ids: number[], offset: number): PageStart {
  const index = Math.floor(offset / ANCHOR_STEP);
  if (index >= ids.length) return { anchorId: null, skip: offset };
  return { anchorId: ids[index], skip: offset - index * ANCHOR_STEP };
}
