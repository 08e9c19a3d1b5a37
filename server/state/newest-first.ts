/**
 * Sets `id` in a Map kept in order of last write and, past `max` entries, drops
 * the least recently written: a memory store that callers fill with ever new ids
 * stays bounded.
 */
export function keepNewest<V>(map: Map<string, V>, id: string, value: V, max: number): void {
  map.delete(id);
  map.set(id, value);
  if (map.size > max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
