import { fallingBack } from './fallback.ts';
import type { Warn } from './warn-every.ts';
import { keepNewest } from './bounded-map.ts';

/**
 * What `GET /v1/providers?check=1` learnt of a key, and the bounds on asking:
 * at most one check per key per KEY_CHECK_INTERVAL_MS and KEY_CHECKS_PER_MINUTE
 * checks per client. Kept where health is kept (this process, the cluster
 * primary, or Redis), by the same key HMACs: a key is never stored.
 */
export type KeyCheckResult = 'valid' | 'invalid_key' | 'no_credit' | 'rate_limited' | 'failed';

export interface KeyCheckRecord {
  /** Epoch ms of the answer. */
  readonly checkedAt: number;
  readonly result: KeyCheckResult;
  /** Redacted: what the provider answered, for `failed` and the refusals. */
  readonly reason?: string;
}

export interface KeyCheckStore {
  get(ids: readonly string[]): Promise<Array<KeyCheckRecord | undefined>>;
  /** Claims the next check of a key: false when one was claimed less than `intervalMs` ago. */
  claim(id: string, now: number, intervalMs: number): Promise<boolean>;
  save(id: string, record: KeyCheckRecord): Promise<void>;
  /** Counts one check against a client's budget for the current minute; false when `perMinute` were already made. */
  spend(client: string, now: number, perMinute: number): Promise<boolean>;
  close(): Promise<void>;
}

/** How long a check's answer is shown: an hour, as long as health remembers a key. */
export const KEY_CHECK_KEEP_MS = 3_600_000;
export const BUDGET_WINDOW_MS = 60_000;

/**
 * In memory, each map kept in order of last write and cut to `maxEntries`
 * (HEALTH_MAX_RECORDS): callers sending ever new keys or addresses cannot grow it.
 */
export function createMemoryKeyCheckStore(maxEntries = 100_000, sweepEveryMs = 600_000, clock: () => number = Date.now): KeyCheckStore {
  const records = new Map<string, KeyCheckRecord>();
  const claims = new Map<string, number>();
  const budgets = new Map<string, { windowStart: number; count: number }>();
  const keep = <V>(map: Map<string, V>, id: string, value: V): void => keepNewest(map, id, value, maxEntries);
  const sweep = setInterval(() => {
    const at = clock();
    for (const [id, record] of records) if (record.checkedAt + KEY_CHECK_KEEP_MS <= at) records.delete(id);
    for (const [id, until] of claims) if (until <= at) claims.delete(id);
    for (const [client, budget] of budgets) if (budget.windowStart + BUDGET_WINDOW_MS <= at) budgets.delete(client);
  }, sweepEveryMs);
  sweep.unref();
  return {
    async get(ids) {
      // An answer older than an hour is swept within sweepEveryMs; until then it is still the last answer.
      return ids.map((id) => records.get(id));
    },
    async claim(id, now, intervalMs) {
      const until = claims.get(id);
      if (until !== undefined && until > now) return false;
      keep(claims, id, now + intervalMs);
      return true;
    },
    async save(id, record) {
      keep(records, id, record);
    },
    async spend(client, now, perMinute) {
      const budget = budgets.get(client);
      if (!budget || budget.windowStart + BUDGET_WINDOW_MS <= now) {
        keep(budgets, client, { windowStart: now, count: 1 });
        return perMinute >= 1;
      }
      if (budget.count >= perMinute) return false;
      budget.count += 1;
      return true;
    },
    async close() {
      clearInterval(sweep);
      records.clear();
      claims.clear();
      budgets.clear();
    },
  };
}

/**
 * A shared store that falls back to this process's memory while it does not answer:
 * the bounds then hold per process until it answers again.
 */
export function withKeyCheckFallback(shared: KeyCheckStore, warn: Warn, where: string, maxEntries?: number): KeyCheckStore {
  const local = createMemoryKeyCheckStore(maxEntries);
  const either = fallingBack(shared, local, (error) => warn('key-checks', `Key checks kept in this process's memory: ${where} did not answer`, error));
  return {
    get: (ids) => either((store) => store.get(ids)),
    claim: (id, now, intervalMs) => either((store) => store.claim(id, now, intervalMs)),
    save: (id, record) => either((store) => store.save(id, record)),
    spend: (client, now, perMinute) => either((store) => store.spend(client, now, perMinute)),
    async close() {
      await shared.close();
      await local.close();
    },
  };
}
