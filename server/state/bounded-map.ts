/**
 * The one way Freeway bounds a Map: kept in order of last write (a Map keeps
 * insertion order, so the first key is the least recently written), past its
 * bound the first entry goes. Every store that callers fill with ever new ids
 * (clients, keys, conversations, models) is bounded through this module.
 */

/** Drops the least recently written entries of `map` until it holds at most `maxEntries`; `onDrop` hears each one dropped. */
export function dropPastBound<K, V>(map: Map<K, V>, maxEntries: number, onDrop?: (key: K, value: V) => void): void {
  while (map.size > maxEntries) if (!dropFirst(map, onDrop)) return;
}

/** Drops the least recently written entry of `map`; false when it is empty. */
function dropFirst<K, V>(map: Map<K, V>, onDrop?: (key: K, value: V) => void): boolean {
  const first = map.entries().next();
  if (first.done) return false;
  const [key, value] = first.value;
  map.delete(key);
  onDrop?.(key, value);
  return true;
}

/** Sets `id` last (the most recently written) and drops the least recently written past `maxEntries`. */
export function keepNewest<K, V>(map: Map<K, V>, id: K, value: V, maxEntries: number): void {
  map.delete(id);
  map.set(id, value);
  dropPastBound(map, maxEntries);
}

/**
 * A Map bounded by entry count and by a size its caller measures (bytes, roughly):
 * kept in order of last write, the least recently written goes first when either
 * bound is passed. Entries may carry an expiry; expired ones are dropped when read
 * and by `sweep`.
 */
export interface BoundedMap<V> {
  get(id: string, now: number): V | undefined;
  set(id: string, value: V, size: number, expiresAt: number): void;
  delete(id: string): void;
  sweep(now: number): void;
  clear(): void;
  readonly size: number;
  /** The sum of the sizes of the entries held. */
  readonly bytes: number;
}

interface Entry<V> {
  readonly value: V;
  readonly size: number;
  readonly expiresAt: number;
}

export function createBoundedMap<V>(maxEntries: number, maxBytes: number): BoundedMap<V> {
  const entries = new Map<string, Entry<V>>();
  let bytes = 0;
  const dropped = (_id: string, entry: Entry<V>): void => {
    bytes -= entry.size;
  };
  const drop = (id: string): void => {
    const entry = entries.get(id);
    if (!entry) return;
    entries.delete(id);
    bytes -= entry.size;
  };
  return {
    get(id, now) {
      const entry = entries.get(id);
      if (!entry) return undefined;
      if (entry.expiresAt <= now) {
        drop(id);
        return undefined;
      }
      return entry.value;
    },
    set(id, value, size, expiresAt) {
      drop(id);
      // One entry larger than the whole budget is not kept at all.
      if (size > maxBytes) return;
      entries.set(id, { value, size, expiresAt });
      bytes += size;
      dropPastBound(entries, maxEntries, dropped);
      while (bytes > maxBytes && dropFirst(entries, dropped));
    },
    delete: drop,
    sweep(now) {
      for (const [id, entry] of entries) if (entry.expiresAt <= now) drop(id);
    },
    clear() {
      entries.clear();
      bytes = 0;
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
