/**
 * Sets `key` as the map's most recent entry (a Map keeps insertion order) and forgets the oldest
 * past `max`: the bounded, most-recently-used caches a process keeps in memory.
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number) {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}
