import type { Alias, CatalogModel } from '../../catalog/catalog.ts';
import type { Capability } from '../../providers/types.ts';
import type { Config } from '../config/index.ts';
import type { Redactor } from '../core/redact.ts';
import type { HealthStore } from '../state/health.ts';
import type { KeyHasher } from '../state/key-hash.ts';
import type { KeySet } from './keys.ts';
import type { LatencyTracker } from './latency.ts';
import type { ModelKnowledge } from '../models/model-knowledge.ts';
import { logAttempt, startAttempt, type Attempt, type AttemptLog, type AttemptTimings, type RunningAttempt } from './attempt.ts';
import { contextTooLong, exhausted, nextStep, noFailures, noteFailure, outcomeOf, outputCap, upstreamRejection, type Failures } from './failover.ts';
import { canUse, type Candidate, type Plan, type PoolKey, type ProviderKeys } from './plan.ts';
import { createPlanner } from './planner.ts';
import { routedModel, type RoutedModel, type RoutedSetup } from './routed-model.ts';
import { BeforeRequest, classifyFailure, type Failure } from './upstream-errors.ts';

export type { AttemptControl, AttemptLog } from './attempt.ts';
export type { Candidate, Plan, PoolKey, ProviderKeys } from './plan.ts';

/** An attempt that produced its answer; the router keeps running it until `finish`. */
export interface Routed<T> {
  readonly value: T;
  readonly candidate: Candidate;
  readonly attempt: Attempt;
  /** Ends the attempt: clears its timers and, given an error, records it and returns it classified. */
  finish(error?: unknown): Promise<Failure | undefined>;
}

export type AttemptFn<T> = (candidate: Candidate, attempt: Attempt) => Promise<T>;

export interface RouterDeps {
  readonly config: {
    readonly routing: Config['routing'];
    readonly timeouts: Pick<Config['timeouts'], 'requestMs' | 'firstTokenMs' | 'streamIdleMs' | 'streamMaxDurationMs'>;
  };
  readonly health: HealthStore;
  readonly hashKey: KeyHasher;
  readonly latency: LatencyTracker;
  readonly redact: Redactor;
  readonly random?: () => number;
  /** The clock health is judged by; tests move it to skip cooldowns. */
  readonly now?: () => number;
  /** Live model lists and quarantines; without it, the curated catalog is all the router knows. */
  readonly knowledge?: ModelKnowledge;
  /** The catalog's providers, to find a pinned model's plugin in live lists. */
  readonly providers?: readonly CatalogModel['provider'][];
}

export interface Router {
  /** `client` is the rate limit's client, whose listings LISTINGS_PER_MINUTE bounds. */
  plan(entry: Alias | CatalogModel, keys: KeySet, needs: readonly Capability[], client?: () => string): Promise<Plan>;
  /** A pinned `{provider}/{modelId}` the plugin does not know, found in the live list of one of the request's keys. */
  findLive(target: string, keys: KeySet, client?: () => string, kind?: 'chat' | 'embedding'): Promise<CatalogModel | undefined>;
  /**
   * Tries the plan's candidates in order; every attempt is appended to `attempts`, which the caller owns.
   * `budget` is the output tokens the request asks for (an upper bound): a model known to take fewer
   * gets its own maximum (`Candidate.maxOutputTokens`).
   */
  run<T>(plan: Plan, keys: KeySet, attempt: AttemptFn<T>, callerSignal: AbortSignal, attempts: AttemptLog[], budget?: number): Promise<Routed<T>>;
  /** A call whose answer comes whole (embeddings, a transcript): run, then ended at once. */
  call<T>(plan: Plan, keys: KeySet, attempt: AttemptFn<T>, callerSignal: AbortSignal, attempts: AttemptLog[]): Promise<{ value: T; candidate: Candidate }>;
  /** The planned request as an AI SDK language model: failover happens inside its `doStream` and `doGenerate`. */
  model(plan: Plan, keys: KeySet, setup: RoutedSetup): RoutedModel;
}

/** Thrown when the caller disconnected; there is nobody left to answer. */
export class CallerGone extends Error {
  override readonly name = 'CallerGone';
}

/** NO_CREDIT_WAIT_MS when the router has no model knowledge (tests that build a bare router). */
const DEFAULT_NO_CREDIT_WAIT_MS = 86_400_000;

/** One request's failover: what it has tried and met so far. */
interface RunState<T> {
  readonly plan: Plan;
  readonly keys: KeySet;
  readonly fn: AttemptFn<T>;
  readonly callerSignal: AbortSignal;
  readonly attempts: AttemptLog[];
  readonly budget: number | undefined;
  readonly started: number;
  readonly deadline: number;
  readonly failures: Failures;
  /** Keys that failed (or could not be probed) in this request: none of their models is tried again. */
  readonly doneKeys: Set<string>;
  /** Providers that failed with a server fault in this request: the next attempt goes elsewhere. */
  readonly failedProviders: Set<string>;
}

type KeyResult<T> = { routed: Routed<T> } | { failure: Failure };
/** After a model: its answer, or go on (`next`), stop trying (`stop`), or drop the models with no larger context window (`smaller`). */
type ModelResult<T> = { routed: Routed<T> } | 'next' | 'stop' | 'smaller';

/** What the failover loop of every request shares. */
interface RouterContext {
  readonly maxAttempts: number;
  readonly timings: AttemptTimings;
  readonly health: HealthStore;
  readonly latency: LatencyTracker;
  readonly redact: Redactor;
  readonly now: () => number;
  readonly knowledge: ModelKnowledge | undefined;
  readonly noCreditWaitMs: number;
  // Catalog model id -> the most output tokens its upstream said it takes. Keys are catalog
  // model ids only (a fixed set), so the map holds at most one entry per model of the catalog.
  readonly learnedOutputLimits: Map<string, number>;
}

/** Classifies a failed attempt, ends it, and records what it says of the key and the model. */
async function fail(ctx: RouterContext, running: RunningAttempt, candidate: Candidate, keys: KeySet, error: unknown): Promise<Failure> {
  const failure = classifyFailure(error, ctx.redact, keys, running.attempt.signal.reason, candidate.model.provider.errorRules, ctx.now());
  running.end(true);
  const outcome = outcomeOf(failure, ctx.noCreditWaitMs);
  if (outcome) await ctx.health.record(candidate.healthId, outcome, ctx.now());
  if (failure.kind === 'model_unavailable' && ctx.knowledge && !failure.aboutRequest) {
    // Aliases skip the model for this key (a 410: for every key of its provider) for MODEL_QUARANTINE_MS.
    const gone = failure.status === 410;
    await ctx.knowledge.quarantines.add(candidate.healthId, candidate.model.spec.id, failure.reason, gone);
    ctx.knowledge.quarantined?.(candidate.model.provider.id, gone ? 'provider' : 'key');
  }
  return failure;
}

/** An attempt that answered: recorded a success, and handed over until `finish`. */
async function succeeded<T>(ctx: RouterContext, running: RunningAttempt, candidate: Candidate, keys: KeySet, value: T): Promise<Routed<T>> {
  // What is handed over now is a stream the caller reads at its own pace: STREAM_MAX_DURATION_MS bounds it from here.
  running.handOver();
  const at = ctx.now();
  const headers = running.headers();
  const quota = headers && candidate.model.provider.readQuota?.(headers, at);
  // Always written: other requests may have recorded failures since this one's plan.
  await ctx.health.record(candidate.healthId, quota ? { kind: 'success', quota } : { kind: 'success' }, at);
  let finished = false;
  return {
    value,
    candidate,
    attempt: running.attempt,
    async finish(error) {
      if (finished) return undefined;
      finished = true;
      if (error === undefined) {
        running.end(false);
        return undefined;
      }
      return fail(ctx, running, candidate, keys, error);
    },
  };
}

/** One attempt with one key; a success is returned, a failure recorded and returned. */
async function tryKey<T>(ctx: RouterContext, run: RunState<T>, candidate: Candidate, left: number): Promise<KeyResult<T>> {
  const latencyId = `${(run.plan.keys.get(candidate.model.provider.id) as ProviderKeys).poolId}|${candidate.model.spec.id}`;
  const running = startAttempt(ctx.timings, run.callerSignal, run.started, left, (ms) => ctx.latency.observe(latencyId, ms));
  try {
    const value = await run.fn(candidate, running.attempt);
    run.attempts.push(logAttempt(candidate, 200, Date.now() - running.started));
    return { routed: await succeeded(ctx, running, candidate, run.keys, value) };
  } catch (error) {
    const failure = await fail(ctx, running, candidate, run.keys, error);
    run.attempts.push(logAttempt(candidate, failure.label, Date.now() - running.started));
    // A bug of ours: a 500 with the error logged, not a provider failure.
    if (failure.kind === 'internal') throw error instanceof BeforeRequest ? error.error : error;
    return { failure };
  }
}

/** One key, and once more with the model's stated maximum when its upstream refused the output budget. */
async function tryKeyWithBudget<T>(ctx: RouterContext, run: RunState<T>, model: CatalogModel, choice: PoolKey, count: number, left: number): Promise<KeyResult<T>> {
  const base: Candidate = { model, key: choice.key, healthId: choice.healthId, tier: choice.tier, keyPosition: choice.position, keyCount: count };
  const withCap = (cap: number | undefined): Candidate => (cap === undefined ? base : { ...base, maxOutputTokens: cap });
  const cap = outputCap(model, run.budget, ctx.learnedOutputLimits.get(model.id));
  const result = await tryKey(ctx, run, withCap(cap), left);
  if (!('failure' in result) || result.failure.kind !== 'output_budget' || result.failure.maxOutputTokens === undefined) return result;
  // The model's own maximum, as its upstream stated it: not the key's fault. Later requests
  // are lowered before the call; this one is tried again, once, with the same key.
  const limit = result.failure.maxOutputTokens;
  ctx.learnedOutputLimits.set(model.id, limit);
  const sent = cap ?? run.budget;
  const retryLeft = run.deadline - Date.now();
  if (sent === undefined || limit >= sent || run.attempts.length >= ctx.maxAttempts || retryLeft <= 0) return result;
  if (run.callerSignal.aborted) throw new CallerGone();
  noteFailure(run.failures, result.failure, model, choice.position, count, false);
  return tryKey(ctx, run, withCap(limit), retryLeft);
}

/** What a failure means for the rest of the request; throws when it ends the request. */
function afterFailure<T>(run: RunState<T>, model: CatalogModel, choice: PoolKey, count: number, failure: Failure): ModelResult<T> | 'next key' {
  if (failure.kind === 'aborted') throw new CallerGone();
  noteFailure(run.failures, failure, model, choice.position, count);
  const provider = model.provider.id;
  if (failure.kind === 'deadline') return 'stop';
  if (failure.kind === 'request') {
    throw upstreamRejection(provider, failure);
  }
  const step = nextStep(failure.kind);
  if (step === 'next key') return 'next key';
  if (run.plan.pinned) return 'stop';
  if (step === 'next provider') run.failedProviders.add(provider);
  return failure.kind === 'context_too_long' ? 'smaller' : 'next';
}

/** Tries one model with its provider's open keys, in turn. */
async function tryModel<T>(ctx: RouterContext, run: RunState<T>, model: CatalogModel): Promise<ModelResult<T>> {
  const provider = model.provider.id;
  if (run.failedProviders.has(provider)) return 'next';
  const { usable, count, poolId } = run.plan.keys.get(provider) as ProviderKeys;
  const open = usable.filter((choice) => !run.doneKeys.has(choice.healthId) && (run.plan.pinned || canUse(choice, model)));
  if (open.length === 0) return 'next';
  // Healthy keys take turns, per pool and model, across requests (and processes, through the shared store).
  const start = open.length === 1 ? 0 : (await ctx.health.nextTurn(`${poolId}|${model.spec.id}`, ctx.now())) % open.length;
  for (let k = 0; k < open.length; k++) {
    if (run.attempts.length >= ctx.maxAttempts) return 'stop';
    const choice = open[(start + k) % open.length] as PoolKey;
    if (run.callerSignal.aborted) throw new CallerGone();
    const left = run.deadline - Date.now();
    if (left <= 0) {
      run.failures.reasons.push('request timeout');
      return 'stop';
    }
    if (choice.tier === 1 && !(await ctx.health.claimProbe(choice.healthId, ctx.now()))) {
      run.doneKeys.add(choice.healthId);
      continue;
    }
    const result = await tryKeyWithBudget(ctx, run, model, choice, count, left);
    if ('routed' in result) return result;
    if (outcomeOf(result.failure, ctx.noCreditWaitMs)) run.doneKeys.add(choice.healthId);
    const step = afterFailure(run, model, choice, count, result.failure);
    if (step !== 'next key') return step;
  }
  return 'next';
}

async function runPlan<T>(ctx: RouterContext, plan: Plan, keys: KeySet, fn: AttemptFn<T>, callerSignal: AbortSignal, attempts: AttemptLog[], budget?: number): Promise<Routed<T>> {
  const started = Date.now();
  const state: RunState<T> = {
    plan, keys, fn, callerSignal, attempts, budget, started,
    deadline: started + ctx.timings.requestTimeoutMs,
    failures: noFailures(),
    doneKeys: new Set(),
    failedProviders: new Set(),
  };
  let remaining = plan.candidates;
  let next = 0;
  while (attempts.length < ctx.maxAttempts) {
    const candidate = remaining[next++];
    if (!candidate) break;
    const result = await tryModel(ctx, state, candidate.model);
    if (typeof result === 'object') return result.routed;
    if (result === 'stop') break;
    if (result === 'smaller') {
      const needed = candidate.model.spec.contextWindow;
      remaining = remaining.slice(next).filter((other) => other.model.spec.contextWindow > needed);
      next = 0;
      if (remaining.length === 0) throw contextTooLong(plan.target, state.failures);
    }
  }
  const summary = { target: plan.target, pinned: plan.pinned, provider: plan.candidates[0]?.model.provider.id, skipped: plan.skipped, retryAfterSeconds: plan.retryAfterSeconds };
  throw exhausted(summary, state.failures, attempts.length);
}

export function createRouter(deps: RouterDeps): Router {
  const now = deps.now ?? Date.now;
  const { config, health, latency, redact, knowledge } = deps;
  const { timeouts } = config;
  const timings: AttemptTimings = {
    requestTimeoutMs: timeouts.requestMs,
    firstTokenTimeoutMs: timeouts.firstTokenMs,
    streamIdleTimeoutMs: timeouts.streamIdleMs,
    streamMaxDurationMs: timeouts.streamMaxDurationMs,
  };
  const ctx: RouterContext = { maxAttempts: config.routing.maxAttempts, timings, health, latency, redact, now, knowledge, noCreditWaitMs: knowledge?.noCreditWaitMs ?? DEFAULT_NO_CREDIT_WAIT_MS, learnedOutputLimits: new Map() };
  const planner = createPlanner({ routing: config.routing.strategy, exploreShare: config.routing.exploreShare, health, hashKey: deps.hashKey, latency, random: deps.random ?? Math.random, now, knowledge, providers: deps.providers });
  const run = <T>(plan: Plan, keys: KeySet, fn: AttemptFn<T>, callerSignal: AbortSignal, attempts: AttemptLog[], budget?: number): Promise<Routed<T>> =>
    runPlan(ctx, plan, keys, fn, callerSignal, attempts, budget);

  async function call<T>(plan: Plan, keys: KeySet, fn: AttemptFn<T>, callerSignal: AbortSignal, attempts: AttemptLog[]): Promise<{ value: T; candidate: Candidate }> {
    const routed = await run(plan, keys, fn, callerSignal, attempts);
    await routed.finish();
    return { value: routed.value, candidate: routed.candidate };
  }

  const router: Router = {
    plan: planner.plan,
    findLive: planner.findLive,
    run,
    call,
    model: (plan, keys, setup) => routedModel(router, plan, keys, setup),
  };
  return router;
}
