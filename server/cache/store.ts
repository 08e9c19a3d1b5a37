import type { Redis } from 'ioredis';
import { createBoundedMap } from '../state/bounded-map.ts';
import { fallingBack } from '../state/fallback.ts';
import type { Warn } from '../state/warn-every.ts';

/** Where sealed answers are kept: ids and ciphertext only (seal.ts). */
export interface CacheStore {
  /** The sealed answer kept under `id`, if it is still kept; a hit makes it the most recently used. */
  get(id: string): Promise<Buffer | undefined>;
  /** Keeps `sealed` under `id` for `ttlMs`; the least recently used go past the byte bound. */
  set(id: string, sealed: Buffer, ttlMs: number): Promise<void>;
  /** Bytes held now, as the bound counts them. */
  bytes(): Promise<number>;
  close(): Promise<void>;
}

/** Answers dropped to keep within CACHE_MAX_BYTES, for /metrics. */
export type OnEvicted = (count: number) => void;

/** What one kept answer costs beside its ciphertext: its id and the map's own entry, roughly. */
const ENTRY_OVERHEAD = 160;

export const entrySize = (id: string, sealed: Buffer): number => sealed.length + id.length + ENTRY_OVERHEAD;

interface Kept {
  readonly sealed: Buffer;
  readonly expiresAt: number;
}

/** In this process's memory, at most `maxBytes` (CACHE_MAX_BYTES) as `entrySize` counts them. */
export function createMemoryCacheStore(maxBytes: number, onEvicted: OnEvicted, now: () => number = Date.now): CacheStore {
  // The byte bound holds the count too: every entry costs at least ENTRY_OVERHEAD.
  const kept = createBoundedMap<Kept>(Math.max(1, Math.floor(maxBytes / ENTRY_OVERHEAD)), maxBytes);
  const sweep = setInterval(() => kept.sweep(now()), 60_000);
  sweep.unref();
  const put = (id: string, value: Kept): void => {
    const size = entrySize(id, value.sealed);
    if (size > maxBytes) return;
    const before = kept.size;
    const had = kept.get(id, Number.NEGATIVE_INFINITY) !== undefined;
    kept.set(id, value, size, value.expiresAt);
    const dropped = before + (had ? 0 : 1) - kept.size;
    if (dropped > 0) onEvicted(dropped);
  };
  return {
    async get(id) {
      const value = kept.get(id, now());
      if (!value) return undefined;
      // Written again, it is the most recently used: the bounded map drops the least recently written first.
      kept.set(id, value, entrySize(id, value.sealed), value.expiresAt);
      return value.sealed;
    },
    async set(id, sealed, ttlMs) {
      put(id, { sealed, expiresAt: now() + ttlMs });
    },
    async bytes() {
      return kept.bytes;
    },
    async close() {
      clearInterval(sweep);
      kept.clear();
    },
  };
}

/*
 * In Redis: each sealed answer under `freeway:cache:<id>`, expiring CACHE_TTL_MS after it was
 * stored; an index (a sorted set by last use), the size of each entry (a hash) and their sum
 * (a counter) hold them to CACHE_MAX_BYTES: past it the least recently used are dropped, by
 * one script, so that instances writing at once keep the bound together. Entries whose last
 * use is older than the TTL have expired and leave the index on the next write.
 */
const dropLua = `
local function drop(member)
  redis.call('DEL', member)
  redis.call('ZREM', KEYS[2], member)
  local size = tonumber(redis.call('HGET', KEYS[3], member) or '0')
  redis.call('HDEL', KEYS[3], member)
  return tonumber(redis.call('DECRBY', KEYS[4], size))
end`;

const setLua = `${dropLua}
if redis.call('HEXISTS', KEYS[3], KEYS[1]) == 1 then drop(KEYS[1]) end
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[2]), 'LIMIT', 0, 64)
for _, member in ipairs(stale) do drop(member) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], ARGV[5])
local total = tonumber(redis.call('INCRBY', KEYS[4], ARGV[5]))
local evicted = 0
while total > tonumber(ARGV[4]) do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if not oldest then break end
  total = drop(oldest)
  evicted = evicted + 1
end
return evicted`;

const getLua = `
local value = redis.call('GET', KEYS[1])
if value then redis.call('ZADD', KEYS[2], 'XX', ARGV[1], KEYS[1]) end
return value`;

type Script<T> = (...args: Array<string | number | Buffer>) => Promise<T>;

/** A script whose replies stay bytes (ioredis's `<name>Buffer` command). */
function bufferScript<T>(client: Redis, name: string, lua: string, numberOfKeys: number): Script<T> {
  client.defineCommand(name, { numberOfKeys, lua });
  const command = (client as unknown as Record<string, Script<T>>)[`${name}Buffer`];
  if (!command) throw new Error(`ioredis did not define ${name}Buffer`);
  return (...args) => command.call(client, ...args);
}

/** What the Redis store holds of one entry beside its ciphertext: its name three times (key, index, sizes) and Redis's own bookkeeping. */
const REDIS_OVERHEAD = 96;

export function createRedisCacheStore(client: Redis, maxBytes: number, onEvicted: OnEvicted, prefix = 'freeway:cache:'): CacheStore {
  const set = bufferScript<number>(client, 'freewayCacheSet', setLua, 4);
  const get = bufferScript<Buffer | null>(client, 'freewayCacheGet', getLua, 2);
  const index = `${prefix}index`;
  const sizes = `${prefix}sizes`;
  const total = `${prefix}bytes`;
  return {
    async get(id) {
      return (await get(prefix + id, index, Date.now())) ?? undefined;
    },
    async set(id, sealed, ttlMs) {
      const key = prefix + id;
      const size = sealed.length + 3 * key.length + REDIS_OVERHEAD;
      if (size > maxBytes) return;
      const evicted = Number(await set(key, index, sizes, total, sealed, ttlMs, Date.now(), maxBytes, size));
      if (evicted > 0) onEvicted(evicted);
    },
    async bytes() {
      return Number((await client.get(total)) ?? 0);
    },
    async close() {},
  };
}

/** A shared store that falls back to this process's memory while it does not answer, as the other shared stores do. */
export function withCacheFallback(shared: CacheStore, local: CacheStore, warn: Warn): CacheStore {
  const either = fallingBack(shared, local, (error) => warn('cache', "Response cache kept in this process's memory: Redis did not answer", error));
  return {
    get: (id) => either((store) => store.get(id)),
    set: (id, sealed, ttlMs) => either((store) => store.set(id, sealed, ttlMs)),
    bytes: () => either((store) => store.bytes()),
    async close() {
      await shared.close();
      await local.close();
    },
  };
}
