import { createHmac } from 'node:crypto';
import type { QuotaSnapshot } from '../../providers/types.ts';
import { keepNewest } from '../state/newest-first.ts';

/**
 * Provider health per (provider, key hash). A key is never stored: records are
 * keyed by an HMAC of it, so one caller's failures never steer another's
 * traffic and `/health` can only show what the caller's own keys have seen.
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

export const HEALTH_TIMINGS = {
  defaultRetryAfterMs: 60_000,
  failuresUntilDown: 3,
  downCooldownMs: 30_000,
  maxCooldownMs: 300_000,
  invalidKeyMs: 600_000,
  probeTimeoutMs: 30_000,
  forgetAfterMs: 3_600_000,
  /** The longest a key is skipped for one answer: a daily quota resets within a day. */
  maxSkipMs: 86_400_000,
} as const;

const fresh: HealthRecord = {
  state: 'healthy',
  consecutiveFailures: 0,
  until: 0,
  cooldownMs: 0,
  probeUntil: 0,
  reason: undefined,
  lastSeen: 0,
};

const skipFor = (ms: number): number => Math.min(ms, HEALTH_TIMINGS.maxSkipMs);

/**
 * A success whose quota figures say nothing is left: the key sits out until the
 * budget that ran out resets (a minute when the provider gave no reset time).
 */
function afterSuccess(quota: QuotaSnapshot | undefined, now: number): HealthRecord {
  if (!quota) return { ...fresh, lastSeen: now };
  let until = 0;
  const spent: string[] = [];
  if (quota.remainingRequests === 0) {
    until = quota.requestsResetAt ?? now + HEALTH_TIMINGS.defaultRetryAfterMs;
    spent.push('requests');
  }
  if (quota.remainingTokens === 0) {
    until = Math.max(until, quota.tokensResetAt ?? now + HEALTH_TIMINGS.defaultRetryAfterMs);
    spent.push('tokens');
  }
  if (until <= now) return { ...fresh, lastSeen: now, quota };
  const reason = `no ${spent.join(' or ')} left until the quota resets`;
  return { ...fresh, state: 'rate_limited', until: now + skipFor(until - now), reason, lastSeen: now, quota };
}

/** The state machine: the record after `outcome`, at time `now`. Pure. */
export function nextHealth(previous: HealthRecord | undefined, outcome: Outcome, now: number): HealthRecord {
  const prev = previous ?? fresh;
  const failures = prev.consecutiveFailures + 1;
  switch (outcome.kind) {
    case 'success':
      return afterSuccess(outcome.quota, now);
    case 'rate_limited':
      return {
        ...prev,
        state: 'rate_limited',
        consecutiveFailures: failures,
        // Daily quotas come with waits of hours: honoured, up to a day.
        until: now + skipFor(outcome.retryAfterMs ?? HEALTH_TIMINGS.defaultRetryAfterMs),
        probeUntil: 0,
        reason: outcome.reason,
        lastSeen: now,
      };
    case 'invalid_key':
    case 'no_credit':
      return {
        ...prev,
        state: outcome.kind,
        consecutiveFailures: failures,
        // Credit does not come back by itself within a day: NO_CREDIT_WAIT_MS, not the one-day cap, decides.
        until: now + (outcome.kind === 'no_credit' ? outcome.waitMs : HEALTH_TIMINGS.invalidKeyMs),
        probeUntil: 0,
        reason: outcome.reason,
        lastSeen: now,
      };
    case 'failure': {
      if (prev.state === 'down') {
        // A failed half-open probe: back off further.
        const cooldownMs = Math.min(prev.cooldownMs * 2, HEALTH_TIMINGS.maxCooldownMs);
        return { ...prev, consecutiveFailures: failures, cooldownMs, until: now + cooldownMs, probeUntil: 0, reason: outcome.reason, lastSeen: now };
      }
      if (failures >= HEALTH_TIMINGS.failuresUntilDown) {
        const cooldownMs = HEALTH_TIMINGS.downCooldownMs;
        return { ...prev, state: 'down', consecutiveFailures: failures, cooldownMs, until: now + cooldownMs, probeUntil: 0, reason: outcome.reason, lastSeen: now };
      }
      return { ...prev, state: 'healthy', consecutiveFailures: failures, until: 0, probeUntil: 0, reason: outcome.reason, lastSeen: now };
    }
  }
}

export interface HealthView {
  readonly state: HealthState;
  readonly consecutiveFailures: number;
  /** Seconds until the key is tried again, when it is being skipped. */
  readonly retryAfter: number | undefined;
  readonly reason: string | undefined;
  /** 0: use now; 1: half-open, one probe may go; 2: skip. */
  readonly tier: 0 | 1 | 2;
  readonly quota?: QuotaSnapshot;
}

const healthyView: HealthView = { state: 'healthy', consecutiveFailures: 0, retryAfter: undefined, reason: undefined, tier: 0 };

/** What a record means at time `now`. */
export function viewHealth(record: HealthRecord | undefined, now: number): HealthView {
  if (!record) return healthyView;
  const { state, consecutiveFailures, quota } = record;
  if (state === 'healthy') {
    return consecutiveFailures === 0 && !quota ? healthyView : { ...healthyView, consecutiveFailures, reason: record.reason, quota };
  }
  const retryAfter = Math.max(1, Math.ceil((record.until - now) / 1000));
  if (record.until > now) return { state, consecutiveFailures, retryAfter, reason: record.reason, tier: 2, quota };
  if (state === 'down') {
    if (record.probeUntil > now) {
      return { state: 'half_open', consecutiveFailures, retryAfter: Math.ceil((record.probeUntil - now) / 1000), reason: record.reason, tier: 2, quota };
    }
    return { state: 'half_open', consecutiveFailures, retryAfter: undefined, reason: record.reason, tier: 1, quota };
  }
  // rate_limited, invalid_key and no_credit whose wait is over are tried again as if healthy.
  return { state: 'healthy', consecutiveFailures, retryAfter: undefined, reason: record.reason, tier: 0, quota };
}

/** How long a store keeps a record: an hour after its last change, or until its wait ends if that is later. */
export function keepFor(record: HealthRecord, now: number): number {
  return Math.max(HEALTH_TIMINGS.forgetAfterMs, record.until - now);
}

/** A record that says no more than "healthy, nothing known" need not be kept. */
export const worthKeeping = (record: HealthRecord): boolean =>
  record.state !== 'healthy' || record.consecutiveFailures !== 0 || record.quota !== undefined;

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

/**
 * Records and round-robin turns live in Maps kept in order of last write, so that
 * past `maxRecords` (HEALTH_MAX_RECORDS) the least recently written goes first:
 * callers sending ever new keys cannot grow memory without bound. An evicted key
 * is simply tried again, as a key never seen.
 */
export function createMemoryHealthStore(sweepEveryMs = 600_000, now: () => number = Date.now, maxRecords = 100_000): HealthStore {
  const records = new Map<string, HealthRecord>();
  // Bounded like the records: swept an hour after their last use, and capped.
  const turns = new Map<string, { turn: number; lastSeen: number }>();
  const keep = <V>(map: Map<string, V>, id: string, value: V): void => keepNewest(map, id, value, maxRecords);
  const sweep = setInterval(() => {
    const at = now();
    const cutoff = at - HEALTH_TIMINGS.forgetAfterMs;
    for (const [id, record] of records) if (record.lastSeen < cutoff && record.until <= at) records.delete(id);
    for (const [id, entry] of turns) if (entry.lastSeen < cutoff) turns.delete(id);
  }, sweepEveryMs);
  sweep.unref();
  return {
    async get(ids) {
      return ids.map((id) => records.get(id));
    },
    async record(id, outcome, now) {
      const next = nextHealth(records.get(id), outcome, now);
      // A healthy key with nothing on record is the same as no record: a plain success forgets the key.
      if (worthKeeping(next)) keep(records, id, next);
      else records.delete(id);
      return next;
    },
    async claimProbe(id, now) {
      const record = records.get(id);
      if (!record || record.state !== 'down' || record.until > now) return true;
      if (record.probeUntil > now) return false;
      records.set(id, { ...record, probeUntil: now + HEALTH_TIMINGS.probeTimeoutMs });
      return true;
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

export type KeyHasher = (providerId: string, key: string) => string;

/** `provider:HMAC-SHA256(secret, key)`: the only form in which a key's identity is kept. */
export function createKeyHasher(secret: string): KeyHasher {
  return (providerId, key) => `${providerId}:${createHmac('sha256', secret).update(key).digest('base64url')}`;
}
