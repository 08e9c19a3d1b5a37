import type { IncomingHttpHeaders } from 'node:http';
import type { KeySet } from '../core/keys.ts';
import type { TextHasher } from '../state/key-hash.ts';
import { canonicalKeys, lockOf, open, seal, type EntryLock } from './seal.ts';
import type { CacheStore } from './store.ts';

/** What a request's answer says of the cache (`X-Freeway-Cache`). */
export type CacheState = 'hit' | 'miss' | 'off';

/** Who gave a kept answer: the provider and catalog model, and the key's health id (usage per key). */
export interface AnsweredBy {
  readonly provider: string;
  readonly model: string;
  readonly healthId: string;
}

/** A kept answer, opened. */
export interface KeptAnswer<T> extends AnsweredBy {
  readonly answer: T;
  /** Whole seconds since it was stored (`Age`). */
  readonly age: number;
}

/** One request's turn at the cache: a hit, or a miss whose complete answer may be kept, or the cache left out. */
export interface CacheTurn<T> {
  readonly state: CacheState;
  readonly hit?: KeptAnswer<T>;
  /** Keeps a complete, successful answer for the next identical request (nothing when the turn is `off`). */
  keep(answer: T, by: AnsweredBy): void;
}

/** What the cache tells: each lookup's result, for /metrics, and each hit's key and model, for usage per key. */
export interface CacheEvents {
  looked(result: 'hit' | 'miss'): void;
  hit(by: AnsweredBy): void;
}

export interface ResponseCache {
  /**
   * The turn of one request: `call` is everything that shapes its answer (the model or alias
   * after mapping, the call options, the extras), which with the request's keys names the entry.
   */
  turn<T>(headers: IncomingHttpHeaders, keys: KeySet, call: unknown): Promise<CacheTurn<T>>;
  /** Bytes held now (the store's measure), for /metrics. */
  bytes(): Promise<number>;
  /** The largest answer kept (its text, as it is gathered): a larger one is passed on and not kept. */
  readonly maxEntryBytes: number;
  close(): Promise<void>;
}

export interface ResponseCacheOptions {
  readonly store: CacheStore;
  readonly ttlMs: number;
  /** The largest answer kept, sealed: a fraction of CACHE_MAX_BYTES, so that one answer cannot empty the cache. */
  readonly maxEntryBytes: number;
  /** KEY_HASH_SECRET, and the HMAC made with it. */
  readonly secret: string;
  readonly hasher: TextHasher;
  readonly events: CacheEvents;
  /** Told when a store fails on a write (a read that fails is a miss). */
  readonly warn: (error: unknown) => void;
  readonly now?: () => number;
}

/** What a request asks of the cache: `no-store` (or `X-Freeway-Cache: off`) neither reads nor keeps; `no-cache` keeps without reading. */
function directives(headers: IncomingHttpHeaders): { read: boolean; keep: boolean } {
  const asked = headers['x-freeway-cache'];
  if (typeof asked === 'string' && asked.trim().toLowerCase() === 'off') return { read: false, keep: false };
  const control = headers['cache-control'];
  if (control === undefined) return { read: true, keep: true };
  const text = control.toLowerCase();
  if (text.includes('no-store')) return { read: false, keep: false };
  return { read: !text.includes('no-cache'), keep: true };
}

const offTurn: CacheTurn<never> = { state: 'off', keep: () => {} };

/** The sealed form of one answer: when it was stored and who gave it travel inside the ciphertext. */
interface Sealed<T> extends AnsweredBy {
  readonly at: number;
  readonly answer: T;
}

export function createResponseCache(options: ResponseCacheOptions): ResponseCache {
  const { store, ttlMs, events, now = Date.now } = options;
  const keep = <T>(lock: EntryLock, answer: T, by: AnsweredBy): void => {
    const plaintext = JSON.stringify({ at: now(), provider: by.provider, model: by.model, healthId: by.healthId, answer } satisfies Sealed<T>);
    // Measured before sealing: GCM adds 28 bytes to the UTF-8 text.
    if (Buffer.byteLength(plaintext) > options.maxEntryBytes) return;
    store.set(lock.id, seal(lock, plaintext), ttlMs).catch(options.warn);
  };
  const read = async <T>(lock: EntryLock): Promise<KeptAnswer<T> | undefined> => {
    const sealed = await store.get(lock.id).catch(() => undefined);
    const text = sealed && open(lock, sealed);
    if (text === undefined) return undefined;
    const kept = JSON.parse(text) as Sealed<T>;
    const age = Math.max(0, Math.floor((now() - kept.at) / 1000));
    if (now() - kept.at >= ttlMs) return undefined;
    return { answer: kept.answer, provider: kept.provider, model: kept.model, healthId: kept.healthId, age };
  };
  return {
    async turn<T>(headers: IncomingHttpHeaders, keys: KeySet, call: unknown): Promise<CacheTurn<T>> {
      const asked = directives(headers);
      const pieces = asked.keep ? canonicalKeys(keys) : undefined;
      if (pieces === undefined) return offTurn;
      const lock = lockOf(options.hasher, options.secret, pieces, JSON.stringify(call));
      const hit = asked.read ? await read<T>(lock) : undefined;
      if (asked.read) events.looked(hit ? 'hit' : 'miss');
      if (hit) {
        events.hit(hit);
        return { state: 'hit', hit, keep: () => {} };
      }
      return { state: 'miss', keep: (answer, by) => keep(lock, answer, by) };
    },
    bytes: () => store.bytes(),
    maxEntryBytes: options.maxEntryBytes,
    close: () => store.close(),
  };
}
