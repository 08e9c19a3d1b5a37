import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { createMemoryHealthRecords, type HealthPolicy, type HealthStore } from './health-records.ts';
import { fallingBack } from './fallback.ts';
import { isAnonymousId } from './key-hash.ts';
import { createSlidingWindowStore } from './sliding-window-store.ts';
import { closeRedis, connectRedis } from './redis/client.ts';
import { createRedisHealthStore } from './redis/health-store.ts';
import { createRedisRateLimitStore } from './redis/rate-limit-store.ts';
import { createRedisKnowledgeStore } from './redis/knowledge-store.ts';
import { createMemoryKnowledgeStore, withKnowledgeFallback, type KnowledgeStore } from './knowledge.ts';
import { createThrottledWarn, type Warn } from './warn-every.ts';
import { createMemoryKeyCheckStore, withKeyCheckFallback, type KeyCheckStore } from './key-checks.ts';
import { createRedisKeyCheckStore } from './redis/key-check-store.ts';
import { createRedisStickyStore } from './redis/sticky-store.ts';
import { createMemoryStickyStore, withStickyFallback, type StickyStore } from './conversation-models.ts';
import { createMemoryUsageStore, withUsageFallback, type UsageStore } from './usage-records.ts';
import { createRedisUsageStore } from './redis/usage-store.ts';
import { createMemorySlotStore, withSlotFallback, type SlotStore } from './slots.ts';
import { createRedisSlotStore } from './redis/slot-store.ts';

/**
 * Where Freeway keeps its six stores (provider health, the rate-limit windows,
 * key checks, model lists and quarantines, conversations' models, usage per key):
 * in this process's memory (one process), in the cluster primary's (WORKERS > 1,
 * see ./cluster/), or in Redis (REDIS_URL, see ./redis/), shared by every worker
 * and instance. None holds a key or a prompt.
 */
export interface Stores {
  readonly healthStore: HealthStore;
  readonly rateLimitStore: Store;
  /** What `GET /v1/providers?check=1` learnt, and its bounds. */
  readonly keyCheckStore: KeyCheckStore;
  /** Whether the Redis connection is up now; undefined without Redis. */
  readonly redisReady: (() => boolean) | undefined;
  /** Model lists and quarantines (docs/models.md). */
  readonly knowledgeStore: KnowledgeStore;
  /** Which model answered each conversation's last turn (STICKY). */
  readonly stickyStore: StickyStore;
  /** Usage per key (./usage-records.ts); undefined with USAGE=off. */
  readonly usageStore: UsageStore | undefined;
  /** Concurrency slots per key (./slots.ts). */
  readonly slotStore: SlotStore;
  close(): Promise<void>;
}

export interface StoreChoice {
  /** Stores made elsewhere (tests, the cluster worker); they win over the configured ones. */
  readonly healthStore?: HealthStore;
  readonly rateLimitStore?: Store;
  readonly keyCheckStore?: KeyCheckStore;
  readonly knowledgeStore?: KnowledgeStore;
  readonly stickyStore?: StickyStore;
  /** The clock of the memory stores that keep their own expiry (tests set it). */
  readonly now?: () => number;
  readonly usageStore?: UsageStore;
  readonly slotStore?: SlotStore;
}

/** The stores `config` asks for, their health records kept by `policy` (routing/health-policy.ts). */
export function createStores(config: Config, logger: Logger, policy: HealthPolicy, given: StoreChoice = {}): Stores {
  const warn = createThrottledWarn(logger);
  const needsUsage = config.usage.mode && !given.usageStore;
  const needsRedis = config.state.redisUrl !== undefined && (!given.healthStore || !given.rateLimitStore || !given.knowledgeStore || !given.stickyStore || needsUsage);
  const redis = needsRedis && config.state.redisUrl ? connectRedis(config.state.redisUrl, logger, warn) : undefined;
  const healthStore =
    given.healthStore ??
    (redis
      ? withLocalAnonymous(withHealthFallback(createRedisHealthStore(redis, policy), policy, warn, 'Redis'), createMemoryHealthRecords(policy, undefined, undefined, config.state.healthMaxRecords))
      : createMemoryHealthRecords(policy, undefined, undefined, config.state.healthMaxRecords));
  const rateLimitStore = given.rateLimitStore ?? (redis
      ? failOpen(createRedisRateLimitStore(redis, { maxClients: config.rateLimit.maxClients }), warn, 'Redis')
      : createSlidingWindowStore(undefined, undefined, config.rateLimit.maxClients));
  const memoryKnowledge = (): KnowledgeStore => createMemoryKnowledgeStore(config.models.maxKeys, config.models.maxBytes);
  const knowledgeStore =
    given.knowledgeStore ?? (redis ? withKnowledgeFallback(createRedisKnowledgeStore(redis), memoryKnowledge(), warn, 'Redis') : memoryKnowledge());
  const keyCheckStore =
    given.keyCheckStore ??
    (redis ? withKeyCheckFallback(createRedisKeyCheckStore(redis), warn, 'Redis', config.state.healthMaxRecords) : createMemoryKeyCheckStore(config.state.healthMaxRecords));
  const memorySticky = (): StickyStore => createMemoryStickyStore(config.sticky.maxEntries, given.now);
  const stickyStore =
    given.stickyStore ?? (redis ? withStickyFallback(createRedisStickyStore(redis, config.sticky.maxEntries), memorySticky(), warn, 'Redis') : memorySticky());
  const memoryUsage = (): UsageStore => createMemoryUsageStore(config.usage.maxRecords);
  const usageStore = !config.usage.mode
    ? undefined
    : (given.usageStore ?? (redis ? withUsageFallback(createRedisUsageStore(redis, config.usage.maxRecords), memoryUsage(), warn, 'Redis') : memoryUsage()));
  const memorySlots = (): SlotStore => createMemorySlotStore(config.state.healthMaxRecords, given.now);
  const slotStore = given.slotStore ?? (redis ? withSlotFallback(createRedisSlotStore(redis), memorySlots(), warn, 'Redis') : memorySlots());
  return {
    healthStore,
    rateLimitStore,
    slotStore,
    keyCheckStore,
    knowledgeStore,
    stickyStore,
    usageStore,
    redisReady: redis ? () => redis.status === 'ready' : undefined,
    async close() {
      await keyCheckStore.close();
      await rateLimitStore.shutdown?.();
      await healthStore.close();
      await knowledgeStore.close();
      await stickyStore.close();
      await usageStore?.close();
      await slotStore.close();
      if (redis) await closeRedis(redis);
    },
  };
}

/**
 * Calls without a key spend this instance's address's allowance, which no other instance shares:
 * their health (`provider:anonymous`) stays in this process's memory, never in Redis.
 */
export function withLocalAnonymous(shared: HealthStore, local: HealthStore): HealthStore {
  const storeOf = (id: string): HealthStore => (isAnonymousId(id) ? local : shared);
  return {
    async get(ids) {
      if (!ids.some(isAnonymousId)) return shared.get(ids);
      const [remote, here] = await Promise.all([shared.get(ids.filter((id) => !isAnonymousId(id))), local.get(ids.filter(isAnonymousId))]);
      let r = 0;
      let h = 0;
      return ids.map((id) => (isAnonymousId(id) ? here[h++] : remote[r++]));
    },
    record: (id, outcome, now) => storeOf(id).record(id, outcome, now),
    claimProbe: (id, now) => storeOf(id).claimProbe(id, now),
    nextTurn: (id, now) => storeOf(id).nextTurn(id, now),
    async close() {
      await shared.close();
      await local.close();
    },
  };
}

/** A shared rate-limit store that lets requests through, with a warning, when it cannot answer. */
export function failOpen(store: Store, warn: Warn, where: string): Store {
  const open = (error: unknown): ClientRateLimitInfo => {
    warn('rate-limit', `Rate limit not enforced: ${where} did not answer; requests are let through`, error);
    return { totalHits: 1, resetTime: undefined };
  };
  return {
    localKeys: store.localKeys ?? false,
    prefix: store.prefix,
    init(options: Options) {
      store.init?.(options);
    },
    async get(key: string) {
      try {
        return await store.get?.(key);
      } catch (error) {
        warn('rate-limit', `Rate limit state unavailable: ${where} did not answer`, error);
        return undefined;
      }
    },
    async increment(key: string) {
      try {
        return await store.increment(key);
      } catch (error) {
        return open(error);
      }
    },
    async decrement(key: string) {
      try {
        await store.decrement(key);
      } catch {
        // A lost decrement leaves one hit too many in one window; not worth a log line.
      }
    },
    async resetKey(key: string) {
      await store.resetKey(key);
    },
    async resetAll() {
      await store.resetAll?.();
    },
    async shutdown() {
      await store.shutdown?.();
    },
  };
}

/**
 * A shared health store that falls back to this process's memory while the
 * shared one is unreachable, and goes back to it as soon as it answers again.
 * What was learnt meanwhile stays local: a key that failed during an outage
 * may be tried once more by another instance.
 */
export function withHealthFallback(shared: HealthStore, policy: HealthPolicy, warn: Warn, where: string): HealthStore {
  const local = createMemoryHealthRecords(policy);
  const fallBack = (error: unknown): void =>
    warn('health', `Provider health kept in this process's memory: ${where} did not answer`, error);
  const either = fallingBack(shared, local, fallBack);
  return {
    get: (ids) => either((store) => store.get(ids)),
    record: (id, outcome, now) => either((store) => store.record(id, outcome, now)),
    claimProbe: (id, now) => either((store) => store.claimProbe(id, now)),
    nextTurn: (id, now) => either((store) => store.nextTurn(id, now)),
    async close() {
      await shared.close();
      await local.close();
    },
  };
}
