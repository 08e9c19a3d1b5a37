import { randomUUID } from 'node:crypto';
import { keepNewest } from './bounded-map.ts';
import { fallingBack } from './fallback.ts';
import type { Warn } from './warn-every.ts';

/**
 * Concurrency slots per key: how many requests one key has in flight with a provider that
 * documents a limit on it (a plugin's `concurrency`). Kept like provider health (this process's
 * memory, the cluster primary's, or Redis), so that every worker and instance counts the same
 * slots. A slot is a lease that expires: a worker that crashes with a slot taken leaks nothing,
 * its slot is free again `leaseMs` later. Ids are health ids (`provider:hmac(key)`), never keys.
 */
export interface SlotStore {
  /** Takes one of the `limit` slots of `id` for `leaseMs`: the lease, or undefined when every slot is taken. */
  take(id: string, limit: number, leaseMs: number): Promise<string | undefined>;
  /** Extends a lease still held by `leaseMs` from now (an answer that runs long keeps its slot). */
  renew(id: string, lease: string, leaseMs: number): Promise<void>;
  /** Gives a slot back (a lease that expired meanwhile is simply gone). */
  give(id: string, lease: string): Promise<void>;
  close(): Promise<void>;
}

/** A lease's name: unique across processes and instances. */
export const newLease = (): string => randomUUID();

/**
 * In memory, for at most `maxKeys` keys (HEALTH_MAX_RECORDS): past it the key whose slots were
 * taken longest ago is forgotten, which can only let one more request through, never hold one.
 */
export function createMemorySlotStore(maxKeys: number, now: () => number = Date.now): SlotStore {
  // Key -> lease -> when it expires; in order of last take.
  const slots = new Map<string, Map<string, number>>();
  return {
    async take(id, limit, leaseMs) {
      const at = now();
      const leases = slots.get(id) ?? new Map<string, number>();
      for (const [lease, expires] of leases) if (expires <= at) leases.delete(lease);
      if (leases.size >= limit) return undefined;
      const lease = newLease();
      leases.set(lease, at + leaseMs);
      keepNewest(slots, id, leases, maxKeys);
      return lease;
    },
    async renew(id, lease, leaseMs) {
      const leases = slots.get(id);
      if (leases?.has(lease)) leases.set(lease, now() + leaseMs);
    },
    async give(id, lease) {
      const leases = slots.get(id);
      if (!leases) return;
      leases.delete(lease);
      if (leases.size === 0) slots.delete(id);
    },
    async close() {
      slots.clear();
    },
  };
}

/**
 * A shared slot store that falls back to this process's memory while the shared one does not
 * answer: each process then counts its own slots, as a single process would.
 */
export function withSlotFallback(shared: SlotStore, local: SlotStore, warn: Warn, where: string): SlotStore {
  const fallBack = (error: unknown): void => warn('slots', `Concurrency slots counted in this process's memory: ${where} did not answer`, error);
  const either = fallingBack(shared, local, fallBack);
  return {
    take: (id, limit, leaseMs) => either((store) => store.take(id, limit, leaseMs)),
    async renew(id, lease, leaseMs) {
      await Promise.all([shared.renew(id, lease, leaseMs).catch(() => {}), local.renew(id, lease, leaseMs)]);
    },
    // A lease is given back where it was taken; giving one back that the other store holds does nothing.
    async give(id, lease) {
      await Promise.all([shared.give(id, lease).catch(() => {}), local.give(id, lease)]);
    },
    async close() {
      await shared.close();
      await local.close();
    },
  };
}
