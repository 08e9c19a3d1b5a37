import type { QuotaSnapshot } from '../../providers/types.ts';
import { createMemoryHealthRecords, type HealthPolicy, type HealthRecord, type HealthState, type HealthStore, type Outcome } from '../state/health-records.ts';

/*
 * The health policy: what an outcome does to a key's record, what a record
 * means now, and how long it is worth keeping. The records themselves live in
 * state/ (memory, the cluster primary or Redis), which is handed this policy.
 */

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
  /** When a skipped key may be tried again (epoch ms), for a request that can wait for it (routing/waiting.ts). */
  readonly until?: number;
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
  if (record.until > now) return { state, consecutiveFailures, retryAfter, reason: record.reason, tier: 2, quota, until: record.until };
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

/** The half-open probe of a down key past its cooldown goes to one request: the first to claim it. */
function claimProbe(record: HealthRecord | undefined, now: number): { readonly claimed: boolean; readonly next?: HealthRecord } {
  if (!record || record.state !== 'down' || record.until > now) return { claimed: true };
  if (record.probeUntil > now) return { claimed: false };
  return { claimed: true, next: { ...record, probeUntil: now + HEALTH_TIMINGS.probeTimeoutMs } };
}

/** The policy every health store is made with. */
export const healthPolicy: HealthPolicy = {
  next: nextHealth,
  claimProbe,
  keepFor,
  forgetAfterMs: HEALTH_TIMINGS.forgetAfterMs,
};

/** A health store in this process's memory, bounded by `maxRecords` (HEALTH_MAX_RECORDS). */
export const createMemoryHealthStore = (sweepEveryMs = 600_000, now: () => number = Date.now, maxRecords = 100_000): HealthStore =>
  createMemoryHealthRecords(healthPolicy, sweepEveryMs, now, maxRecords);
