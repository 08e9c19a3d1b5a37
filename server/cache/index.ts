/**
 * The response cache (CACHE): complete answers kept for repeated requests, sealed so that
 * only a request with the same provider keys can name or read them (seal.ts), in this
 * process's memory or in Redis (store.ts), and replayed through each client API's own
 * encoders (replay.ts). The client APIs reach it through this file only.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { createTextHasher } from '../state/key-hash.ts';
import { closeRedis, connectRedis } from '../state/redis/client.ts';
import type { Warn } from '../state/warn-every.ts';
import { createResponseCache, type CacheEvents, type ResponseCache } from './cache.ts';
import { createMemoryCacheStore, createRedisCacheStore, withCacheFallback, type CacheStore, type OnEvicted } from './store.ts';

export { createResponseCache, type AnsweredBy, type CacheEvents, type CacheState, type CacheTurn, type KeptAnswer, type ResponseCache } from './cache.ts';
export { createMemoryCacheStore, createRedisCacheStore, type CacheStore } from './store.ts';
export { answerParts, replayParts, streamRecorder, type StreamRecorder } from './replay.ts';

/** The largest answer kept, as a share of CACHE_MAX_BYTES: one answer never empties the cache. */
export const ENTRY_SHARE = 16;

export interface CacheSetup {
  readonly config: Pick<Config, 'cache' | 'state'>;
  readonly logger: Logger;
  readonly warn: Warn;
  readonly events: CacheEvents & { evicted: OnEvicted };
  /** The clock of the memory store and of ages (tests set it). */
  readonly now?: () => number;
}

/** The cache CACHE asks for, or undefined with `CACHE=off`. */
export function createConfiguredCache({ config, logger, warn, events, now }: CacheSetup): ResponseCache | undefined {
  const { mode, ttlMs, maxBytes } = config.cache;
  if (mode === 'off') return undefined;
  const memory = (): CacheStore => createMemoryCacheStore(maxBytes, events.evicted, now);
  const url = config.state.redisUrl;
  if (mode === 'redis' && url === undefined) logger.warn("CACHE=redis without REDIS_URL: answers are kept in this process's memory");
  const redis = mode === 'redis' && url !== undefined ? connectRedis(url, logger, warn) : undefined;
  const store = redis ? withCacheFallback(createRedisCacheStore(redis, maxBytes, events.evicted), memory(), warn) : memory();
  const cache = createResponseCache({
    store,
    ttlMs,
    maxEntryBytes: Math.floor(maxBytes / ENTRY_SHARE),
    secret: config.state.keyHashSecret,
    hasher: createTextHasher(config.state.keyHashSecret),
    events,
    warn: (error) => warn('cache', 'An answer was not kept: the response cache did not answer', error),
    now,
  });
  return {
    ...cache,
    async close() {
      await cache.close();
      if (redis) await closeRedis(redis);
    },
  };
}
