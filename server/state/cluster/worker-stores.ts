import type { ClientRateLimitInfo, Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { ModelsConfig } from '../../config/index.ts';
import type { HealthPolicy, HealthRecord, HealthStore } from '../health-records.ts';
import { withKeyCheckFallback, type KeyCheckRecord, type KeyCheckStore } from '../key-checks.ts';
import { createMemoryKnowledgeStore, withKnowledgeFallback, type KnowledgeStore } from '../knowledge.ts';
import { failOpen, withHealthFallback } from '../stores.ts';
import { createMemoryStickyStore, withStickyFallback, type StickyStore } from '../conversation-models.ts';
import { createMemoryUsageStore, withUsageFallback, type UsageRecord, type UsageStore } from '../usage-records.ts';
import { createThrottledWarn } from '../warn-every.ts';
import { createMemorySlotStore, withSlotFallback, type SlotStore } from '../slots.ts';
import { connectToPrimary, type AskOptions, type AskPrimary } from './channel.ts';
import type { StoreCall, WireInfo } from './primary-stores.ts';

/** How long a worker waits for the primary before going on without it (fail open / local health), and then skips it for a while. */
const storeCall: AskOptions = { timeoutMs: 1_000, failFast: true };

const toInfo = (wire: WireInfo | undefined | null): ClientRateLimitInfo | undefined =>
  wire ? { totalHits: wire.totalHits, resetTime: wire.resetTime === undefined ? undefined : new Date(wire.resetTime) } : undefined;

/** JSON turns a missing record into null. */
const orUndefined = <T>(values: ReadonlyArray<T | null>): Array<T | undefined> => values.map((value) => value ?? undefined);

function rateLimitProxy(call: <T>(call: StoreCall) => Promise<T>): Store {
  return {
    localKeys: false,
    async get(key) {
      return toInfo(await call<WireInfo | null>({ op: 'rl.get', key }));
    },
    async increment(key) {
      return toInfo(await call<WireInfo>({ op: 'rl.increment', key })) as ClientRateLimitInfo;
    },
    async decrement(key) {
      await call({ op: 'rl.decrement', key });
    },
    async resetKey(key) {
      await call({ op: 'rl.resetKey', key });
    },
    async resetAll() {
      await call({ op: 'rl.resetAll' });
    },
  };
}

function healthProxy(call: <T>(call: StoreCall) => Promise<T>): HealthStore {
  return {
    get: async (ids) => orUndefined(await call<Array<HealthRecord | null>>({ op: 'health.get', ids })),
    record: (id, outcome, now) => call<HealthRecord>({ op: 'health.record', id, outcome, now }),
    claimProbe: (id, now) => call<boolean>({ op: 'health.claimProbe', id, now }),
    nextTurn: (id, now) => call<number>({ op: 'health.nextTurn', id, now }),
    async close() {},
  };
}

function keyCheckProxy(call: <T>(call: StoreCall) => Promise<T>): KeyCheckStore {
  return {
    get: async (ids) => orUndefined(await call<Array<KeyCheckRecord | null>>({ op: 'checks.get', ids })),
    claim: (id, now, intervalMs) => call<boolean>({ op: 'checks.claim', id, now, intervalMs }),
    async save(id, record) {
      await call({ op: 'checks.save', id, record });
    },
    spend: (client, now, perMinute) => call<boolean>({ op: 'checks.spend', client, now, perMinute }),
    async close() {},
  };
}

function knowledgeProxy(call: <T>(call: StoreCall) => Promise<T>): KnowledgeStore {
  return {
    get: async (ids) => orUndefined(await call<Array<string | null>>({ op: 'models.get', ids })),
    set: (id, value, ttlMs) => call<void>({ op: 'models.set', id, value, ttlMs }),
    claim: (id, ttlMs) => call<boolean>({ op: 'models.claim', id, ttlMs }),
    fields: async (ids) => orUndefined(await call<Array<Record<string, string> | null>>({ op: 'models.fields', ids })),
    setField: (id, field, value, ttlMs) => call<void>({ op: 'models.setField', id, field, value, ttlMs }),
    async close() {},
  };
}

function stickyProxy(call: <T>(call: StoreCall) => Promise<T>): StickyStore {
  return {
    get: async (conversation) => (await call<string | null>({ op: 'sticky.get', conversation })) ?? undefined,
    set: (conversation, model, ttlMs) => call<void>({ op: 'sticky.set', conversation, model, ttlMs }),
    async close() {},
  };
}

function usageProxy(call: <T>(call: StoreCall) => Promise<T>): UsageStore {
  return {
    add: (records, now) => call<void>({ op: 'usage.add', records, now }),
    get: (ids, days) => call<UsageRecord[][]>({ op: 'usage.get', ids, days }),
    async close() {},
  };
}

function slotProxy(call: <T>(call: StoreCall) => Promise<T>): SlotStore {
  return {
    take: async (id, limit, leaseMs) => (await call<string | null>({ op: 'slots.take', id, limit, leaseMs })) ?? undefined,
    give: (id, lease) => call<void>({ op: 'slots.give', id, lease }),
    renew: (id, lease, leaseMs) => call<void>({ op: 'slots.renew', id, lease, leaseMs }),
    async close() {},
  };
}

export interface WorkerStoreOptions {
  /** The bounds of the memory the knowledge store falls back to (MODELS_MAX_KEYS, MODELS_MAX_BYTES). */
  readonly limits?: Pick<ModelsConfig, 'maxKeys' | 'maxBytes'>;
  /** STICKY_MAX_ENTRIES: the bound of the memory the sticky store falls back to. */
  readonly stickyMaxEntries?: number;
  /** The channel to the primary; this process's when absent. */
  readonly ask?: AskPrimary;
  /** USAGE_MAX_RECORDS, for the memory usage falls back to; no usage store with USAGE=off (undefined). */
  readonly usageMaxRecords?: number;
}

/**
 * In a worker, the primary's stores (primary-stores.ts), reached over the channel:
 * failing open (rate limit) or falling back to this process's memory (health,
 * key checks, model knowledge, usage) while the primary does not answer.
 */
export function createWorkerStores(
  logger: Logger,
  policy: HealthPolicy,
  { limits = { maxKeys: 10_000, maxBytes: 64 * 1024 ** 2 }, stickyMaxEntries = 100_000, ask = connectToPrimary(), usageMaxRecords }: WorkerStoreOptions = {},
): { healthStore: HealthStore; rateLimitStore: Store; knowledgeStore: KnowledgeStore; keyCheckStore: KeyCheckStore; stickyStore: StickyStore; slotStore: SlotStore; usageStore?: UsageStore } {
  const call = <T>(storeOp: StoreCall): Promise<T> => ask<T>(storeOp, storeCall);
  const warn = createThrottledWarn(logger);
  const where = 'the cluster primary';
  return {
    keyCheckStore: withKeyCheckFallback(keyCheckProxy(call), warn, where),
    rateLimitStore: failOpen(rateLimitProxy(call), warn, where),
    healthStore: withHealthFallback(healthProxy(call), policy, warn, where),
    knowledgeStore: withKnowledgeFallback(knowledgeProxy(call), createMemoryKnowledgeStore(limits.maxKeys, limits.maxBytes), warn, where),
    stickyStore: withStickyFallback(stickyProxy(call), createMemoryStickyStore(stickyMaxEntries), warn, where),
    slotStore: withSlotFallback(slotProxy(call), createMemorySlotStore(stickyMaxEntries), warn, where),
    ...(usageMaxRecords === undefined ? {} : { usageStore: withUsageFallback(usageProxy(call), createMemoryUsageStore(usageMaxRecords), warn, where) }),
  };
}
