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
      while (entries.size > maxEntries || bytes > maxBytes) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        drop(oldest);
      }
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
