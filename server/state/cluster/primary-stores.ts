import type { ClientRateLimitInfo, Options } from 'express-rate-limit';
import type { Config } from '../../config/index.ts';
import { createMemoryHealthRecords, type HealthPolicy, type Outcome } from '../health-records.ts';
import { createMemoryKeyCheckStore, type KeyCheckRecord } from '../key-checks.ts';
import { createMemoryKnowledgeStore } from '../knowledge.ts';
import { createSlidingWindowStore } from '../sliding-window-store.ts';
import { createMemoryStickyStore } from '../conversation-models.ts';
import { createMemoryUsageStore, type UsageRecord } from '../usage-records.ts';
import { createMemorySlotStore } from '../slots.ts';

/*
 * WORKERS > 1 without REDIS_URL: the primary holds the rate-limit windows,
 * provider health, key checks, model knowledge and usage per key in the same memory stores a
 * single process uses, and the workers reach them over the channel
 * (channel.ts), so that a client's (limit + 1)th request is refused whichever
 * worker it lands on.
 */

/** A store operation a worker asks of the primary. */
export type StoreCall =
  | { readonly op: 'rl.increment' | 'rl.get' | 'rl.decrement' | 'rl.resetKey'; readonly key: string }
  | { readonly op: 'rl.resetAll' }
  | { readonly op: 'health.get'; readonly ids: readonly string[] }
  | { readonly op: 'health.record'; readonly id: string; readonly outcome: Outcome; readonly now: number }
  | { readonly op: 'health.claimProbe'; readonly id: string; readonly now: number }
  | { readonly op: 'health.nextTurn'; readonly id: string; readonly now: number }
  | { readonly op: 'checks.get'; readonly ids: readonly string[] }
  | { readonly op: 'checks.claim'; readonly id: string; readonly now: number; readonly intervalMs: number }
  | { readonly op: 'checks.save'; readonly id: string; readonly record: KeyCheckRecord }
  | { readonly op: 'checks.spend'; readonly client: string; readonly now: number; readonly perMinute: number }
  | { readonly op: 'models.get' | 'models.fields'; readonly ids: readonly string[] }
  | { readonly op: 'models.set'; readonly id: string; readonly value: string; readonly ttlMs: number }
  | { readonly op: 'models.claim'; readonly id: string; readonly ttlMs: number }
  | { readonly op: 'models.setField'; readonly id: string; readonly field: string; readonly value: string; readonly ttlMs: number }
  | { readonly op: 'sticky.get'; readonly conversation: string }
  | { readonly op: 'sticky.set'; readonly conversation: string; readonly model: string; readonly ttlMs: number }
  | { readonly op: 'usage.add'; readonly records: readonly UsageRecord[]; readonly now: number }
  | { readonly op: 'usage.get'; readonly ids: readonly string[]; readonly days: readonly string[] }
  | { readonly op: 'slots.take'; readonly id: string; readonly limit: number; readonly leaseMs: number }
  | { readonly op: 'slots.give'; readonly id: string; readonly lease: string }
  | { readonly op: 'slots.renew'; readonly id: string; readonly lease: string; readonly leaseMs: number };

/** Rate-limit info as it crosses the channel (a Date would arrive as a string). */
export interface WireInfo {
  readonly totalHits: number;
  readonly resetTime: number | undefined;
}

export interface PrimaryStores {
  /** Runs one worker's store call; its value is what the channel sends back. */
  run(call: StoreCall): Promise<unknown>;
  close(): Promise<void>;
}

const wire = (info: ClientRateLimitInfo | undefined): WireInfo | null =>
  info ? { totalHits: info.totalHits, resetTime: info.resetTime?.getTime() } : null;

/** The primary's stores, bounded like a single process's: the workers' clients together are at most RATE_LIMIT_MAX_CLIENTS. */
export function createPrimaryStores(config: Config, policy: HealthPolicy): PrimaryStores {
  const windows = createSlidingWindowStore(undefined, undefined, config.rateLimit.maxClients);
  windows.init?.({ limit: config.rateLimit.max, windowMs: config.rateLimit.windowMs } as Options);
  const health = createMemoryHealthRecords(policy, undefined, undefined, config.state.healthMaxRecords);
  const checks = createMemoryKeyCheckStore(config.state.healthMaxRecords);
  const knowledge = createMemoryKnowledgeStore(config.models.maxKeys, config.models.maxBytes);
  const sticky = createMemoryStickyStore(config.sticky.maxEntries);
  const usage = createMemoryUsageStore(config.usage.maxRecords);
  const slots = createMemorySlotStore(config.state.healthMaxRecords);

  async function run(call: StoreCall): Promise<unknown> {
    switch (call.op) {
      case 'rl.increment':
        return wire(await windows.increment(call.key));
      case 'rl.get':
        return wire(await windows.get?.(call.key));
      case 'rl.decrement':
        return windows.decrement(call.key);
      case 'rl.resetKey':
        return windows.resetKey(call.key);
      case 'rl.resetAll':
        return windows.resetAll?.();
      case 'health.get':
        return health.get(call.ids);
      case 'health.record':
        return health.record(call.id, call.outcome, call.now);
      case 'health.claimProbe':
        return health.claimProbe(call.id, call.now);
      case 'health.nextTurn':
        return health.nextTurn(call.id, call.now);
      case 'checks.get':
        return checks.get(call.ids);
      case 'checks.claim':
        return checks.claim(call.id, call.now, call.intervalMs);
      case 'checks.save':
        return checks.save(call.id, call.record);
      case 'checks.spend':
        return checks.spend(call.client, call.now, call.perMinute);
      case 'models.get':
        return (await knowledge.get(call.ids)).map((value) => value ?? null);
      case 'models.fields':
        return (await knowledge.fields(call.ids)).map((value) => value ?? null);
      case 'models.set':
        return knowledge.set(call.id, call.value, call.ttlMs);
      case 'models.claim':
        return knowledge.claim(call.id, call.ttlMs);
      case 'models.setField':
        return knowledge.setField(call.id, call.field, call.value, call.ttlMs);
      case 'sticky.get':
        return (await sticky.get(call.conversation)) ?? null;
      case 'sticky.set':
        return sticky.set(call.conversation, call.model, call.ttlMs);
      case 'usage.add':
        return usage.add(call.records, call.now);
      case 'usage.get':
        return usage.get(call.ids, call.days);
      case 'slots.take':
        return (await slots.take(call.id, call.limit, call.leaseMs)) ?? null;
      case 'slots.give':
        return slots.give(call.id, call.lease);
      case 'slots.renew':
        return slots.renew(call.id, call.lease, call.leaseMs);
    }
  }

  return {
    run,
    async close() {
      await windows.shutdown?.();
      await health.close();
      await checks.close();
      await knowledge.close();
      await sticky.close();
      await usage.close();
      await slots.close();
    },
  };
}
