import { createHmac } from 'node:crypto';

/**
 * Provider health per (provider, key hash). A key is never stored: records are
 * keyed by an HMAC of it, so one caller's failures never steer another's
 * traffic and `/health` can only show what the caller's own keys have seen.
 */
export type HealthState = 'healthy' | 'rate_limited' | 'down' | 'half_open' | 'invalid_key';

export interface HealthRecord {
  /** Stored state; `half_open` is derived when a `down` cooldown has run out. */
  readonly state: Exclude<HealthState, 'half_open'>;
  readonly consecutiveFailures: number;
  /** Epoch ms until which the key is skipped (rate_limited, down, invalid_key). */
  readonly until: number;
  /** The current `down` cooldown, doubled by each failed probe. */
  readonly cooldownMs: number;
  /** While a half-open probe is in flight, other requests skip the key until this time. */
  readonly probeUntil: number;
  /** Last failure reason (redacted), for `/health` and error messages. */
  readonly reason: string | undefined;
  readonly lastSeen: number;
}

export type Outcome =
  | { readonly kind: 'success' }
  | { readonly kind: 'rate_limited'; readonly retryAfterMs: number | undefined; readonly reason: string }
  | { readonly kind: 'failure'; readonly reason: string }
  | { readonly kind: 'invalid_key'; readonly reason: string };

export const HEALTH_TIMINGS = {
  defaultRetryAfterMs: 60_000,
  failuresUntilDown: 3,
  downCooldownMs: 30_000,
  maxCooldownMs: 300_000,
  invalidKeyMs: 600_000,
  probeTimeoutMs: 30_000,
  forgetAfterMs: 3_600_000,
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

/** The state machine: the record after `outcome`, at time `now`. Pure. */
export function nextHealth(previous: HealthRecord | undefined, outcome: Outcome, now: number): HealthRecord {
  const prev = previous ?? fresh;
  const failures = prev.consecutiveFailures + 1;
  switch (outcome.kind) {
    case 'success':
      return { ...fresh, lastSeen: now };
    case 'rate_limited':
      return {
        ...prev,
        state: 'rate_limited',
        consecutiveFailures: failures,
        until: now + (outcome.retryAfterMs ?? HEALTH_TIMINGS.defaultRetryAfterMs),
        probeUntil: 0,
        reason: outcome.reason,
        lastSeen: now,
      };
    case 'invalid_key':
      return {
        ...prev,
        state: 'invalid_key',
        consecutiveFailures: failures,
        until: now + HEALTH_TIMINGS.invalidKeyMs,
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
}

const healthyView: HealthView = { state: 'healthy', consecutiveFailures: 0, retryAfter: undefined, reason: undefined, tier: 0 };

/** What a record means at time `now`. */
export function viewHealth(record: HealthRecord | undefined, now: number): HealthView {
  if (!record) return healthyView;
  const { state, consecutiveFailures } = record;
  if (state === 'healthy') {
    return consecutiveFailures === 0 ? healthyView : { ...healthyView, consecutiveFailures, reason: record.reason };
  }
  const retryAfter = Math.max(1, Math.ceil((record.until - now) / 1000));
  if (record.until > now) return { state, consecutiveFailures, retryAfter, reason: record.reason, tier: 2 };
  if (state === 'down') {
    if (record.probeUntil > now) {
      return { state: 'half_open', consecutiveFailures, retryAfter: Math.ceil((record.probeUntil - now) / 1000), reason: record.reason, tier: 2 };
    }
    return { state: 'half_open', consecutiveFailures, retryAfter: undefined, reason: record.reason, tier: 1 };
  }
  // rate_limited and invalid_key whose wait is over are tried again as if healthy.
  return { state: 'healthy', consecutiveFailures, retryAfter: undefined, reason: record.reason, tier: 0 };
}

/** Where health records live: in memory here; a shared store implements the same. */
export interface HealthStore {
  get(ids: readonly string[]): Promise<Array<HealthRecord | undefined>>;
  record(id: string, outcome: Outcome, now: number): Promise<HealthRecord>;
  /** Claims the single half-open probe of a down key; false when another request has it. */
  claimProbe(id: string, now: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createMemoryHealthStore(sweepEveryMs = 600_000, now: () => number = Date.now): HealthStore {
  const records = new Map<string, HealthRecord>();
  const sweep = setInterval(() => {
    const cutoff = now() - HEALTH_TIMINGS.forgetAfterMs;
    for (const [id, record] of records) if (record.lastSeen < cutoff) records.delete(id);
  }, sweepEveryMs);
  sweep.unref();
  return {
    async get(ids) {
      return ids.map((id) => records.get(id));
    },
    async record(id, outcome, now) {
      const next = nextHealth(records.get(id), outcome, now);
      // A healthy key with nothing on record is the same as no record: a success forgets the key.
      if (outcome.kind === 'success') records.delete(id);
      else records.set(id, next);
      return next;
    },
    async claimProbe(id, now) {
      const record = records.get(id);
      if (!record || record.state !== 'down' || record.until > now) return true;
      if (record.probeUntil > now) return false;
      records.set(id, { ...record, probeUntil: now + HEALTH_TIMINGS.probeTimeoutMs });
      return true;
    },
    async close() {
      clearInterval(sweep);
      records.clear();
    },
  };
}

export type KeyHasher = (providerId: string, key: string) => string;

/** `provider:HMAC-SHA256(secret, key)`: the only form in which a key's identity is kept. */
export function createKeyHasher(secret: string): KeyHasher {
  return (providerId, key) => `${providerId}:${createHmac('sha256', secret).update(key).digest('base64url')}`;
}
