import type { QuotaSnapshot } from '../../providers/types.ts';
import { keepNewest } from './bounded-map.ts';

/**
 * Provider health records per (provider, key hash). A key is never stored:
 * records are keyed by an HMAC of it (key-hash.ts), so one caller's failures
 * never steer another's traffic. This module keeps records; what an outcome
 * does to a record is the routing layer's policy (routing/health-policy.ts), handed
 * in where a store is made.
 */
export type HealthState = 'healthy' | 'rate_limited' | 'down' | 'half_open' | 'invalid_key' | 'no_credit';

export interface HealthRecord {
  /** Stored state; `half_open` is derived when a `down` cooldown has run out. */
  readonly state: Exclude<HealthState, 'half_open'>;
  readonly consecutiveFailures: number;
  /** Epoch ms until which the key is skipped (rate_limited, down, invalid_key, no_credit). */
  readonly until: number;
  /** The current `down` cooldown, doubled by each failed probe. */
  readonly cooldownMs: number;
  /** While a half-open probe is in flight, other requests skip the key until this time. */
  readonly probeUntil: number;
  /** Last failure reason (redacted), for `/health` and error messages. */
  readonly reason: string | undefined;
  readonly lastSeen: number;
  /** The quota figures of the key's last successful answer, when the provider sends them. */
  readonly quota?: QuotaSnapshot;
}

export type Outcome =
  | { readonly kind: 'success'; readonly quota?: QuotaSnapshot }
  | { readonly kind: 'rate_limited'; readonly retryAfterMs: number | undefined; readonly reason: string }
  | { readonly kind: 'failure'; readonly reason: string }
  | { readonly kind: 'invalid_key'; readonly reason: string }
  /** The provider said the key has no credit left (402, a trial that ran out): skipped for `waitMs` (NO_CREDIT_WAIT_MS). */
  | { readonly kind: 'no_credit'; readonly reason: string; readonly waitMs: number };

/** Where health records live: in memory here; a shared store implements the same. */
export interface HealthStore {
  get(ids: readonly string[]): Promise<Array<HealthRecord | undefined>>;
  record(id: string, outcome: Outcome, now: number): Promise<HealthRecord>;
  /** Claims the single half-open probe of a down key; false when another request has it. */
  claimProbe(id: string, now: number): Promise<boolean>;
  /**
   * Takes the next turn (0, 1, 2, ...) of a key pool's round robin for one model,
   * shared like the records and forgotten like them, an hour after its last use.
   */
  nextTurn(id: string, now: number): Promise<number>;
  close(): Promise<void>;
}

/** What a store needs to know of the health policy: the same for every store, so that they all agree. */
export interface HealthPolicy {
  /** The state machine: the record after `outcome`, at time `now`. Pure. */
  next(previous: HealthRecord | undefined, outcome: Outcome, now: number): HealthRecord;
  /**
   * A claim of a down key's half-open probe: whether it is granted, and the record
   * to write when it is (none when nothing changes).
   */
  claimProbe(record: HealthRecord | undefined, now: number): { readonly claimed: boolean; readonly next?: HealthRecord };
  /**
   * How long a store keeps a record written at `now`. Every record is kept, a healthy one
   * too: a key that answered shows `healthy`, not `unchecked`, until it is forgotten.
   */
  keepFor(record: HealthRecord, now: number): number;
  /** Records past their wait, and round-robin turns, are forgotten this long after their last use. */
  readonly forgetAfterMs: number;
}

/**
 * Records and round-robin turns live in Maps kept in order of last write, so that
 * past `maxRecords` (HEALTH_MAX_RECORDS) the least recently written goes first:
 * callers sending ever new keys cannot grow memory without bound. An evicted key
 * is simply tried again, as a key never seen.
 */
export function createMemoryHealthRecords(policy: HealthPolicy, sweepEveryMs = 600_000, now: () => number = Date.now, maxRecords = 100_000): HealthStore {
  const records = new Map<string, HealthRecord>();
  // Bounded like the records: swept an hour after their last use, and capped.
  const turns = new Map<string, { turn: number; lastSeen: number }>();
  const keep = <V>(map: Map<string, V>, id: string, value: V): void => keepNewest(map, id, value, maxRecords);
  const sweep = setInterval(() => {
    const at = now();
    const cutoff = at - policy.forgetAfterMs;
    for (const [id, record] of records) if (record.lastSeen < cutoff && record.until <= at) records.delete(id);
    for (const [id, entry] of turns) if (entry.lastSeen < cutoff) turns.delete(id);
  }, sweepEveryMs);
  sweep.unref();
  return {
    async get(ids) {
      return ids.map((id) => records.get(id));
    },
    async record(id, outcome, now) {
      const next = policy.next(records.get(id), outcome, now);
      keep(records, id, next);
      return next;
    },
    async claimProbe(id, now) {
      const { claimed, next } = policy.claimProbe(records.get(id), now);
      if (next) records.set(id, next);
      return claimed;
    },
    async nextTurn(id, now) {
      const entry = turns.get(id);
      if (entry) {
        entry.turn += 1;
        entry.lastSeen = now;
        return entry.turn;
      }
      keep(turns, id, { turn: 0, lastSeen: now });
      return 0;
    },
    async close() {
      clearInterval(sweep);
      records.clear();
      turns.clear();
    },
  };
}
