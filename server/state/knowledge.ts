import { createBoundedMap, keepNewest } from './bounded-map.ts';
import { fallingBack } from './fallback.ts';
import type { Warn } from './warn-every.ts';

/**
 * What Freeway learns of the models each key can use, shared like provider health:
 * in this process's memory, in the cluster primary's (WORKERS > 1), or in Redis.
 * Values are short strings with a lifetime: a key's model list, the lock of a
 * listing under way, and quarantined models as fields of one record per key (or
 * per provider). Ids hold provider ids and key HMACs only, never a key or a plain
 * hash of one.
 */
export interface KnowledgeStore {
  get(ids: readonly string[]): Promise<Array<string | undefined>>;
  set(id: string, value: string, ttlMs: number): Promise<void>;
  /** Sets `id` only when it is absent (a lock): true when this call set it. */
  claim(id: string, ttlMs: number): Promise<boolean>;
  /** The fields of each record. */
  fields(ids: readonly string[]): Promise<Array<Readonly<Record<string, string>> | undefined>>;
  /** Sets one field of a record, which lives `ttlMs` from now (or longer, if it already did). */
  setField(id: string, field: string, value: string, ttlMs: number): Promise<void>;
  close(): Promise<void>;
  /** True where the records outlive this process in a store others read (Redis): they keep no words of an upstream's answer. */
  readonly outlivesProcess?: boolean;
}

/** The most fields one record keeps (quarantined models of one key); the oldest goes first. */
export const MAX_FIELDS = 256;

type Stored = ({ readonly kind: 'value'; readonly value: string } | { readonly kind: 'fields'; readonly fields: Map<string, string> }) & { readonly expiresAt: number };

const sizeOfFields = (fields: Map<string, string>): number => {
  let size = 64;
  for (const [field, value] of fields) size += 2 * (field.length + value.length) + 32;
  return size;
};

/** In memory, bounded by MODELS_MAX_KEYS entries and MODELS_MAX_BYTES. */
export function createMemoryKnowledgeStore(maxEntries: number, maxBytes: number, now: () => number = Date.now, sweepEveryMs = 600_000): KnowledgeStore {
  const map = createBoundedMap<Stored>(maxEntries, maxBytes);
  const sweep = setInterval(() => map.sweep(now()), sweepEveryMs);
  sweep.unref();
  const put = (id: string, stored: Stored, size: number): void => map.set(id, stored, size, stored.expiresAt);
  return {
    async get(ids) {
      const at = now();
      return ids.map((id) => {
        const stored = map.get(id, at);
        return stored?.kind === 'value' ? stored.value : undefined;
      });
    },
    async set(id, value, ttlMs) {
      put(id, { kind: 'value', value, expiresAt: now() + ttlMs }, 2 * value.length + 64);
    },
    async claim(id, ttlMs) {
      if (map.get(id, now()) !== undefined) return false;
      put(id, { kind: 'value', value: '1', expiresAt: now() + ttlMs }, 64);
      return true;
    },
    async fields(ids) {
      const at = now();
      return ids.map((id) => {
        const stored = map.get(id, at);
        return stored?.kind === 'fields' ? Object.fromEntries(stored.fields) : undefined;
      });
    },
    async setField(id, field, value, ttlMs) {
      const at = now();
      const stored = map.get(id, at);
      const fields = new Map(stored?.kind === 'fields' ? stored.fields : []);
      keepNewest(fields, field, value, MAX_FIELDS);
      const expiresAt = Math.max(at + ttlMs, stored?.expiresAt ?? 0);
      put(id, { kind: 'fields', fields, expiresAt }, sizeOfFields(fields));
    },
    async close() {
      clearInterval(sweep);
      map.clear();
    },
  };
}

/**
 * A shared store that falls back to this process's memory while the shared one
 * does not answer, as health does: what is learnt meanwhile stays local.
 */
export function withKnowledgeFallback(shared: KnowledgeStore, local: KnowledgeStore, warn: Warn, where: string): KnowledgeStore {
  const fallBack = (error: unknown): void => warn('models', `Model lists and quarantines kept in this process's memory: ${where} did not answer`, error);
  const either = fallingBack(shared, local, fallBack);
  return {
    get: (ids) => either((store) => store.get(ids)),
    set: (id, value, ttlMs) => either((store) => store.set(id, value, ttlMs)),
    claim: (id, ttlMs) => either((store) => store.claim(id, ttlMs)),
    fields: (ids) => either((store) => store.fields(ids)),
    setField: (id, field, value, ttlMs) => either((store) => store.setField(id, field, value, ttlMs)),
    outlivesProcess: shared.outlivesProcess,
    async close() {
      await shared.close();
      await local.close();
    },
  };
}
