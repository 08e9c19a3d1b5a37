import { freewayError, type HttpError } from '../core/errors.ts';
import type { SlotStore } from '../state/slots.ts';
import type { AttemptLog } from './attempt.ts';
import { CallerGone, keyName, type Decision } from './failover.ts';
import { HEALTH_TIMINGS } from './health-policy.ts';
import type { Failure } from './upstream-errors.ts';
import type { Candidate, Plan, RestingKey } from './plan.ts';
import type { HeldKey, WaitQueue } from './wait-queue.ts';

/**
 * Waiting for a window, within a budget. When no candidate of a request can be tried now only
 * because each is resting for a known, short time (a rate-limit window, a `Retry-After`, a
 * concurrency slot), the request is held in the wait queue (wait-queue.ts) until the earliest of
 * them may be tried, if that is within its budget (MAX_WAIT_MS, or less with X-Freeway-Max-Wait),
 * and then planned and routed again as usual. When the budget cannot cover the earliest reset the
 * answer is a 429 naming each key and when it is usable again, with `Retry-After` at the earliest.
 *
 * The router reaches this module at a few points: a round that runs
 * out of candidates, a key whose concurrency slot is taken, an attempt that ends.
 */

export interface WaitingDeps {
  readonly queue: WaitQueue;
  readonly slots: SlotStore;
  /** MAX_WAIT_MS: the longest budget; 0 turns waiting off. */
  readonly maxWaitMs: number;
  /** A wait that ended, by provider (the histogram of waits). */
  readonly onWaited?: (provider: string, ms: number) => void;
}

/** How long a concurrency slot's lease lasts unless renewed: a crashed worker's slot is free again this long after. */
const SLOT_LEASE_MS = 30_000;
/** How often a held slot's lease is renewed while its answer runs. */
const SLOT_RENEW_MS = 10_000;
/**
 * How soon a request held for a slot taken elsewhere (another worker or instance) looks again:
 * a slot given back in this process wakes its held requests at once.
 */
const SLOT_RECHECK_MS = 500;

/** A key this round of a request could not use for now: resting for its window, its slots taken, or requests held for it first. */
export interface Blocked extends RestingKey {
  /** `window`: a rate-limit window or Retry-After; `slot`: every concurrency slot is taken; `queue`: requests held earlier go first. */
  readonly why: 'window' | 'slot' | 'queue';
}

/** Why an attempt was not made: the key's slots are taken, or requests held for it go first (until: when its lane expects it usable, epoch ms). */
export type Busy = { readonly why: 'slot' } | { readonly why: 'queue'; readonly until: number };

/**
 * Before an attempt: a request that may wait, and that no lane let go for this key,
 * queues behind the requests held for the key (arrival order), instead of overtaking them.
 */
export function queuedAhead(deps: WaitingDeps | undefined, healthId: string, turn: TurnState): Busy | undefined {
  if (!deps || !turn.canWait || turn.releasedFor === healthId) return undefined;
  const until = deps.queue.queuedUntil(healthId);
  return until === undefined ? undefined : { why: 'queue', until };
}

/** What one round of a request met, beyond the plan: the keys it found busy or that answered 429. */
export interface RoundWaits {
  readonly blocked: Blocked[];
  /** Failures of this round that were not a rate limit (a provider did fail): then no 429 and no wait. */
  others: number;
}

export const noRoundWaits = (): RoundWaits => ({ blocked: [], others: 0 });

/** Thrown by a round that ran out of candidates: what it would answer, and whether waiting may help. */
export class OutOfCandidates extends Error {
  override readonly name = 'OutOfCandidates';
  readonly error: unknown;
  readonly waits: RoundWaits;
  constructor(error: unknown, waits: RoundWaits) {
    super('out of candidates');
    this.error = error;
    this.waits = waits;
  }
}

/** A held slot: given back once, when its answer ends, fails or its caller goes away; renewed until then. */
export interface HeldSlot {
  give(): void;
}

/** What a round of the router keeps that the waiting hooks write to (the router's own state is one). */
export interface RoundRecord {
  readonly waits: RoundWaits;
  readonly failures: { readonly reasons: string[]; readonly logged: string[] };
  readonly attempts: AttemptLog[];
  readonly doneKeys: Set<string>;
  /** The clock health is judged by: resets are kept on it. */
  readonly now: () => number;
}

/** A key whose slots are taken, or held for earlier requests, is left for now and named; the request may wait for it. */
export function keyBusy(round: RoundRecord, candidate: Candidate, busy: Busy): 'next key' {
  const { model, healthId, keyPosition: position, keyCount: count } = candidate;
  const status = busy.why === 'slot' ? `busy (${model.spec.concurrency ?? 1} in flight)` : 'busy (requests held before)';
  round.attempts.push(count > 1 ? { provider: model.provider.id, model: model.spec.id, key: position, status } : { provider: model.provider.id, model: model.spec.id, status });
  const why = busy.why === 'slot' ? 'every concurrency slot of the key is taken' : 'requests held for the key before this one go first';
  const reason = `${keyName(model.provider.id, position, count)}: ${why}`;
  round.failures.reasons.push(reason);
  round.failures.logged.push(reason);
  round.doneKeys.add(healthId);
  // The lane's expectation is on the real clock; resets are kept on the health clock.
  const until = busy.why === 'slot' ? round.now() : round.now() + Math.max(0, busy.until - Date.now());
  round.waits.blocked.push({ provider: model.provider.id, healthId, position, count, until, why: busy.why, reason: why });
  return 'next key';
}

/** After a failed attempt: a 429 is a window the request may wait for; a failure recorded against a key means a provider did fail. */
export function noteForWaiting(round: RoundRecord, candidate: Candidate, failure: Failure, decision: Decision): void {
  const health = decision.record.health;
  if (!health) return;
  if (health.kind !== 'rate_limited') {
    round.waits.others += 1;
    return;
  }
  const { model, healthId, keyPosition: position, keyCount: count } = candidate;
  // As health records it: the provider's wait, or a minute, never more than a day.
  const until = round.now() + Math.min(failure.retryAfterMs ?? HEALTH_TIMINGS.defaultRetryAfterMs, HEALTH_TIMINGS.maxSkipMs);
  round.waits.blocked.push({ provider: model.provider.id, healthId, position, count, until, why: 'window', reason: failure.reason });
}

/** What one request carries from one round of its plan to the next (a round follows a wait). */
export interface Carried {
  readonly started: number;
  readonly turn: TurnState;
  /** Attempts made so far: MAX_ATTEMPTS bounds the request as a whole. */
  tried: number;
  /** The request's input estimate, once made. */
  input?: number;
}

/** One request as the rounds see it. */
export interface RoundsRequest {
  readonly plan: Plan;
  readonly callerSignal: AbortSignal;
  readonly attempts: AttemptLog[];
  /** X-Freeway-Max-Wait, in ms; MAX_WAIT_MS when absent. */
  readonly maxWaitMs?: number;
}

export interface RoundsOptions {
  readonly maxAttempts: number;
  readonly requestTimeoutMs: number;
  /** The clock health is judged by. */
  readonly clock: () => number;
}

/**
 * Around the router's failover: runs `round` over the plan, and when a round ends
 * with every candidate resting (`OutOfCandidates`), waits for the earliest within the request's
 * budget and runs another round on a fresh plan; else answers. MAX_ATTEMPTS and REQUEST_TIMEOUT_MS
 * bound all rounds together.
 */
export async function runRounds<R>(deps: WaitingDeps | undefined, request: RoundsRequest, options: RoundsOptions, round: (plan: Plan, carried: Carried) => Promise<R>): Promise<R> {
  const budget = budgetOf(deps, request.maxWaitMs);
  const carried: Carried = { started: Date.now(), tried: 0, turn: { releasedFor: undefined, canWait: budget > 0 } };
  const run: WaitRun = {
    deps,
    plan: request.plan,
    signal: request.callerSignal,
    attempts: request.attempts,
    deadline: carried.started + Math.min(budget, options.requestTimeoutMs),
    turn: carried.turn,
    clock: options.clock,
  };
  for (;;) {
    try {
      const result = await round(run.plan, carried);
      endTurn(run);
      return result;
    } catch (error) {
      if (!(error instanceof OutOfCandidates) || carried.tried >= options.maxAttempts) {
        endTurn(run);
        throw error instanceof OutOfCandidates ? error.error : error;
      }
      const next = await afterRound(run, error);
      if (next.kind === 'answer') throw next.error;
      run.plan = next.plan;
    }
  }
}

/** The request's wait budget, from X-Freeway-Max-Wait when it asked, else MAX_WAIT_MS. */
const budgetOf = (deps: WaitingDeps | undefined, asked: number | undefined): number => (deps ? Math.min(asked ?? deps.maxWaitMs, deps.maxWaitMs) : 0);

/**
 * Before an attempt: takes a concurrency slot of the candidate's key when its model
 * declares a limit. `undefined`: the model declares none; `busy`: every slot is taken.
 */
export async function takeSlot(deps: WaitingDeps | undefined, candidate: Candidate): Promise<HeldSlot | 'busy' | undefined> {
  const limit = candidate.model.spec.concurrency;
  if (!deps || limit === undefined) return undefined;
  const id = candidate.healthId;
  let lease: string | undefined;
  try {
    lease = await deps.slots.take(id, limit, SLOT_LEASE_MS);
  } catch {
    // A store that cannot count lets the request through, as the rate limit does: the provider's own 429 remains.
    return undefined;
  }
  if (lease === undefined) return 'busy';
  const taken = lease;
  const renew = setInterval(() => void deps.slots.renew(id, taken, SLOT_LEASE_MS).catch(() => {}), SLOT_RENEW_MS);
  renew.unref();
  let given = false;
  return {
    give() {
      if (given) return;
      given = true;
      clearInterval(renew);
      deps.slots.give(id, taken).catch(() => {}).finally(() => deps.queue.wake(id));
    },
  };
}

/** What a request carries from one round to the next. */
export interface TurnState {
  /** The key whose lane let this request go: it may take that key's slot ahead of those still held. */
  releasedFor: string | undefined;
  /** Whether the request may wait at all (a budget above 0). */
  readonly canWait: boolean;
}

/** The keys a request may wait for: resting in the fresh plan, or blocked in the round; one entry per key, the latest reset. */
function blockedKeys(plan: Plan, waits: RoundWaits, now: number): Blocked[] {
  // Resets are on the health clock (`WaitRun.clock`); `now` is that clock's now.
  const byId = new Map<string, Blocked>();
  const add = (key: Blocked): void => {
    const known = byId.get(key.healthId);
    if (!known || known.until < key.until) byId.set(key.healthId, key);
  };
  for (const key of plan.resting ?? []) add({ ...key, why: 'window' });
  for (const key of waits.blocked) add(key.why === 'slot' ? { ...key, until: now + SLOT_RECHECK_MS } : key);
  return [...byId.values()];
}

/** The 429 for a request whose every candidate is resting beyond its budget: each key and when it is usable again. */
function windowsClosed(keys: readonly Blocked[], now: number): HttpError {
  let earliest = Infinity;
  const named = keys.map((key) => {
    const seconds = Math.max(1, Math.ceil((key.until - now) / 1000));
    earliest = Math.min(earliest, seconds);
    const name = keyName(key.provider, key.position, key.count);
    if (key.why === 'slot') return `${name}: every concurrency slot is taken (usable when a request in flight ends)`;
    return `${name}: usable again in ${seconds}s${key.reason === undefined ? '' : ` (${key.reason})`}`;
  });
  return freewayError('FREEWAY_WINDOWS_CLOSED', { keys: named.join('; ') }, { headers: { 'Retry-After': String(earliest === Infinity ? 1 : earliest) } });
}

/** One request's waits, as the router runs its rounds. */
export interface WaitRun {
  readonly deps: WaitingDeps | undefined;
  /** The plan of the round that ran out. */
  plan: Plan;
  readonly signal: AbortSignal;
  readonly attempts: AttemptLog[];
  /** When the request's budget runs out (epoch ms). */
  readonly deadline: number;
  readonly turn: TurnState;
  /** The clock health is judged by: resets are read on it, and held on the real one. */
  readonly clock: () => number;
  /** The request's place in arrival order, taken when it is first held. */
  order?: number;
  /** Hands the lane that let this request go to the next held request; called when the round ends. */
  release?: () => void;
}

/** What follows a round that ran out of candidates: another round with a fresh plan, or the error to answer with. */
export type AfterRound = { readonly kind: 'again'; readonly plan: Plan } | { readonly kind: 'answer'; readonly error: unknown };

/** Gives the lane's turn on to the next held request (the round that was let go has ended). */
function endTurn(run: WaitRun): void {
  run.release?.();
  run.release = undefined;
}

/**
 * When a round ran out of candidates: waits for the earliest key within the
 * budget and plans again, or says what to answer (the round's error, or the 429).
 */
async function afterRound(run: WaitRun, out: OutOfCandidates): Promise<AfterRound> {
  endTurn(run);
  const { deps } = run;
  if (!deps) return { kind: 'answer', error: out.error };
  const fresh = run.plan.again ? await run.plan.again() : run.plan;
  const now = run.clock();
  const keys = blockedKeys(fresh, out.waits, now);
  if (keys.length === 0) return { kind: 'answer', error: out.error };
  // A provider that failed (in this round, or skipped as refused, down or with nothing to try): its 502 stands
  // when the request cannot wait; else nothing failed, only rested, and the answer is the 429.
  const failed = out.waits.others > 0 || fresh.skipped.length > (fresh.resting?.length ?? 0);
  // Held on the real clock: a reset `until - now` from now.
  const offset = Date.now() - now;
  const within = keys.filter((key) => key.until + offset <= run.deadline);
  const closed = (): unknown => (failed ? out.error : windowsClosed(keys, run.clock()));
  if (within.length === 0 || !run.turn.canWait) return { kind: 'answer', error: closed() };
  const held: HeldKey[] = within.map((key) => (key.why === 'queue' ? { id: key.healthId } : { id: key.healthId, readyAt: key.until + offset }));
  run.order ??= deps.queue.nextOrder();
  const started = Date.now();
  const outcome = await deps.queue.hold({ keys: held, deadline: run.deadline, signal: run.signal, order: run.order });
  const waitedMs = Date.now() - started;
  if (outcome.kind === 'aborted') return { kind: 'answer', error: new CallerGone() };
  // Held when the server began to stop: the 503 a request cut short by shutdown gets.
  if (outcome.kind === 'closed') return { kind: 'answer', error: freewayError('FREEWAY_SHUTTING_DOWN') };
  if (outcome.kind !== 'ready') return { kind: 'answer', error: closed() };
  const key = within.find((candidate) => candidate.healthId === outcome.key) as Blocked;
  noteWait(run, key.provider, waitedMs);
  let plan: Plan;
  try {
    plan = fresh.again ? await fresh.again() : fresh;
  } catch (error) {
    // The lane must not stay with a request that will not run.
    outcome.release();
    throw error;
  }
  run.release = outcome.release;
  run.turn.releasedFor = outcome.key;
  return { kind: 'again', plan };
}

/** `waited 4.2s for groq`, in X-Freeway-Attempts and the log line, and in the histogram of waits. */
function noteWait(run: WaitRun, provider: string, ms: number): void {
  run.attempts.push({ provider, model: '', status: 'waited', waitedMs: ms });
  run.deps?.onWaited?.(provider, ms);
}
