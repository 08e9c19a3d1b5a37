import type { CatalogModel } from '../../catalog/catalog.ts';
import type { Config } from '../config/index.ts';
import type { Redactor } from '../core/redact.ts';
import type { HealthStore } from '../state/health-records.ts';
import type { KeyHasher } from '../state/key-hash.ts';
import type { StickyStore } from '../state/conversation-models.ts';
import { ANSWER_EVENT, REQUEST_EVENT, type UsageCounter } from '../state/usage-records.ts';
import type { KeySet } from '../core/keys.ts';
import type { LatencyTracker } from './latency.ts';
import { createLearning, type Learning } from '../models/learning.ts';
import type { ModelKnowledge } from '../models/model-knowledge.ts';
import type { AttemptTrace, RequestTrace } from '../tracing/index.ts';
import { logAttempt, startAttempt, type Attempt, type AttemptLog, type AttemptTimings, type RunningAttempt } from './attempt.ts';
import { CallerGone, contextTooLong, decide, exhausted, keyName, loggedFailure, noFailures, noteFailure, outputCap, type Decision, type Failures } from './failover.ts';
import { keyFit, newSizeState, refusedForSize, requestTooLarge, type SizeState } from './size-limits.ts';
import { canUse, poolModelId, type Candidate, type Plan, type PoolKey, type ProviderKeys } from './plan.ts';
import { createPlanner, type PlanRequest } from './planner.ts';
import { classifyFailure, type Failure } from './upstream-errors.ts';
import { collect, openStream, type Collected, type OpenedStream, type UpstreamCall } from './upstream.ts';
import { keyBusy, noRoundWaits, noteForWaiting, OutOfCandidates, queuedAhead, runRounds, takeSlot, type Busy, type Carried, type HeldSlot, type RoundWaits, type TurnState, type WaitingDeps } from './waiting.ts';

/**
 * An attempt that produced its answer: a value, whose attempt keeps running (its
 * stream read on, its timers armed) until it is handed back to `Router.end`.
 */
export interface Answer<T> {
  readonly value: T;
  readonly candidate: Candidate;
  readonly attempt: Attempt;
}

/** How an answer ended: read to its end (with the tokens it reported), failed after it was handed over, or left by its caller. */
export type Ending =
  | { readonly kind: 'done'; readonly inputTokens: number | undefined; readonly outputTokens: number | undefined }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'left' };

export type AttemptFn<T> = (candidate: Candidate, attempt: Attempt) => Promise<T>;

/** One routed chat request: its plan and keys, and the call each attempt makes upstream (upstream.ts). */
export interface RouteRequest {
  readonly plan: Plan;
  readonly keys: KeySet;
  /** The upstream call, the same for every candidate but its model, key and output budget. */
  readonly call: UpstreamCall;
  /** Aborted when the caller goes away. */
  readonly callerSignal: AbortSignal;
  /** Every attempt is appended here; the caller owns it (X-Freeway-Attempts, the log line). */
  readonly attempts: AttemptLog[];
  /**
   * The output tokens the request asks for (an upper bound): a model known to take fewer
   * gets its own maximum (`Candidate.maxOutputTokens`).
   */
  readonly budget?: number;
  /**
   * The estimate of the request's input tokens (routing/estimate.ts), asked once when first
   * needed: a candidate it cannot fit is skipped, and a budget that does not fit beside it lowered.
   */
  readonly inputTokens?: () => number;
  /** The request's conversation (routing/conversation.ts): the model that answers is kept for its next turn. */
  readonly conversation?: string;
  /** The request's trace, when tracing is on: each attempt gets a span under it. */
  readonly trace?: RequestTrace;
  /** X-Freeway-Max-Wait: the longest this request may be held for a window or a slot; MAX_WAIT_MS when absent. */
  readonly maxWaitMs?: number;
}

/** One request for the router to carry out, with what one attempt at one candidate does. */
interface RunRequest<T> extends Omit<RouteRequest, 'call'> {
  readonly perform: AttemptFn<T>;
  /** The answer is a stream the caller reads at its own pace (STREAM_MAX_DURATION_MS bounds it once handed over), not a whole one. */
  readonly streams: boolean;
}

/** A request as the router is handed it: a routed one (with its upstream call) or a whole call (with its attempt). */
type Request = Omit<RouteRequest, 'call'> | Omit<WholeCallRequest<unknown>, 'attempt'>;

export interface RouterDeps {
  readonly config: {
    readonly routing: Pick<Config['routing'], 'strategy' | 'exploreShare' | 'maxAttempts'> & Partial<Pick<Config['routing'], 'qualityBand' | 'fitMargin' | 'learnedLimitMs'>>;
    readonly timeouts: Pick<Config['timeouts'], 'requestMs' | 'firstTokenMs' | 'streamIdleMs' | 'streamMaxDurationMs'>;
    /** HEALTH_MAX_RECORDS bounds the learnt per-request limits too; 100,000 when absent. */
    readonly state?: Pick<Config['state'], 'healthMaxRecords'>;
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
  /** Which model answered each conversation's last turn, kept for STICKY_TTL_MS; absent with STICKY=off. */
  readonly sticky?: { readonly store: StickyStore; readonly ttlMs: number };
  /** Usage per key: each attempt, answer and failure is counted here; none with USAGE=off. */
  readonly usage?: Pick<UsageCounter, 'count'>;
  /** Waiting for windows and concurrency slots (waiting.ts); without it, a request never waits and slots are not counted. */
  readonly waiting?: WaitingDeps;
}

/** A call whose answer comes whole (embeddings, a transcript): `attempt` makes it with one candidate; the tokens its answer reported. */
export interface WholeCallRequest<T> extends Omit<RouteRequest, 'budget' | 'call'> {
  readonly attempt: AttemptFn<T>;
  readonly tokensOf?: (value: T) => { readonly input?: number; readonly output?: number } | undefined;
}

export interface Router {
  plan(request: PlanRequest): Promise<Plan>;
  /** A pinned `{provider}/{modelId}` the plugin does not know, found in the live list of one of the request's keys. */
  findLive(target: string, keys: KeySet, client?: () => string, kind?: 'chat' | 'embedding'): Promise<CatalogModel | undefined>;
  /** Tries the plan's candidates in order, under the failover policy (failover.ts), until one's stream has its first output. */
  stream(request: RouteRequest): Promise<Answer<OpenedStream>>;
  /** As `stream`, for a caller that did not ask to stream: the whole answer, at most `maxBytes` of it (MAX_RESPONSE_BYTES). */
  collect(request: RouteRequest & { readonly maxBytes: number }): Promise<Answer<Collected>>;
  /**
   * Ends an answer's attempt: clears its timers, counts the tokens it reported and, for a
   * failure, records it and returns it classified. Once per answer; later calls do nothing.
   */
  end(answer: Answer<unknown>, ending: Ending): Promise<Failure | undefined>;
  /** A call whose answer comes whole (embeddings, a transcript): tried as `stream` is, then ended at once. */
  call<T>(request: WholeCallRequest<T>): Promise<{ value: T; candidate: Candidate }>;
}

/** NO_CREDIT_WAIT_MS when the router has no model knowledge (tests that build a bare router). */
const DEFAULT_NO_CREDIT_WAIT_MS = 86_400_000;
/** The settings' defaults, for a router built without them (tests). */
const DEFAULT_LEARNED_LIMIT_MS = 86_400_000;
const DEFAULT_FIT_MARGIN = 0.2;
const DEFAULT_QUALITY_BAND = 3;

/** One request's failover: what it has tried and met so far. */
interface RunState<T> extends RunRequest<T> {
  readonly started: number;
  readonly deadline: number;
  readonly failures: Failures;
  /** Keys that failed (or could not be probed) in this request: none of their models is tried again. */
  readonly doneKeys: Set<string>;
  /** Providers that failed with a server fault in this request: the next attempt goes elsewhere. */
  readonly failedProviders: Set<string>;
  /** Attempts made (a candidate skipped for its size is none): MAX_ATTEMPTS bounds them. */
  tried: number;
  /** Candidates skipped because the request would not fit them. */
  tooLarge: number;
  /** The input estimate, once made (`inputOf`). */
  input?: number;
  /** Attempts made before this round (a round follows a wait). */
  readonly triedBefore: number;
  /** What the request met of context windows and per-request figures. */
  readonly size: SizeState;
  /** Keys this round found busy or rate limited, and whether a provider failed. */
  readonly waits: RoundWaits;
  readonly turn: TurnState;
  /** The clock health is judged by (RouterDeps.now): resets are read on it. */
  readonly now: () => number;
}

/** What the rest of the request does after a model: go on, stop, or go on with larger windows only. */
type AfterModel = 'next' | 'stop' | 'larger window';

/** What the failover loop of every request shares. */
interface RouterContext {
  readonly maxAttempts: number;
  readonly timings: AttemptTimings;
  readonly health: HealthStore;
  readonly latency: LatencyTracker;
  readonly redact: Redactor;
  readonly now: () => number;
  readonly noCreditWaitMs: number;
  readonly usage: Pick<UsageCounter, 'count'> | undefined;
  /** What attempts teach (health, quarantines, learnt limits), kept by the models layer. */
  readonly learning: Learning;
  /** FIT_MARGIN. */
  readonly fitMargin: number;
  readonly sticky: RouterDeps['sticky'];
  readonly waiting: WaitingDeps | undefined;
}

/** An attempt under way: its timers and abort, and the model and key it is made with. */
interface StartedAttempt {
  readonly running: RunningAttempt;
  readonly candidate: Candidate;
  /** The attempt's span, when the request is traced. */
  readonly traced: AttemptTrace | undefined;
  /** The concurrency slot the attempt holds, given back when it ends. */
  readonly slot?: HeldSlot;
}

/** A failed attempt, as the router met it. */
interface FailedAttempt<T> extends StartedAttempt {
  readonly run: RunState<T>;
  readonly error: unknown;
  /** Whether the attempt was the retry with a lowered output budget. */
  readonly budgetLowered: boolean;
}

/** Classifies a failed attempt, ends it, decides what follows, and records what the decision says of the key and the model. */
async function attemptFailed<T>(ctx: RouterContext, { run, running, candidate, error, budgetLowered }: FailedAttempt<T>): Promise<{ failure: Failure; decision: Decision }> {
  const { model } = candidate;
  const failure = classifyFailure(error, { redact: ctx.redact, keys: run.keys, signalReason: running.attempt.signal.reason, rules: model.provider.errorRules, now: ctx.now() });
  running.end(true);
  ctx.usage?.count(candidate.healthId, model.id, { kind: 'failure', failure: failure.kind });
  const decision = decide({
    failure,
    thrown: error,
    pinned: run.plan.pinned,
    provider: model.provider.id,
    budgetSent: candidate.maxOutputTokens ?? run.budget,
    budgetLowered,
    attemptsLeft: ctx.maxAttempts - run.tried - 1,
    msLeft: run.deadline - Date.now(),
    noCreditWaitMs: ctx.noCreditWaitMs,
  });
  await ctx.learning.failed(candidate, { ...decision.record, reason: failure.reason, sharedReason: loggedFailure(failure) });
  return { failure, decision };
}

/** An answer handed over, and what ending its attempt needs. */
interface HandedOver<T> extends Answer<T>, StartedAttempt {
  readonly run: RunState<T>;
  ended: boolean;
}

/** An attempt that answered: recorded a success, and handed over until `Router.end`. */
async function succeeded<T>(ctx: RouterContext, run: RunState<T>, { running, candidate, slot, traced }: StartedAttempt, value: T): Promise<Answer<T>> {
  // A stream is read at the caller's own pace: STREAM_MAX_DURATION_MS bounds it from here. A whole answer is ended next.
  if (run.streams) running.handOver();
  ctx.usage?.count(candidate.healthId, candidate.model.id, ANSWER_EVENT);
  await ctx.learning.answered(candidate, running.headers());
  // The conversation keeps the model that answered (each answer refreshes it); a store that fails just forgets.
  if (run.conversation !== undefined && ctx.sticky && !run.plan.pinned) ctx.sticky.store.set(run.conversation, candidate.model.id, ctx.sticky.ttlMs).catch(() => {});
  const handedOver: HandedOver<T> = { value, candidate, attempt: running.attempt, running, traced, run, slot, ended: false };
  return handedOver;
}

/** Ends an answer's attempt as `Router.end` says. */
async function endAnswer(ctx: RouterContext, answer: Answer<unknown>, ending: Ending): Promise<Failure | undefined> {
  const handedOver = answer as HandedOver<unknown>;
  if (handedOver.ended) return undefined;
  handedOver.ended = true;
  const { running, candidate, traced, run } = handedOver;
  handedOver.slot?.give();
  if (ending.kind === 'failed') {
    // A failure after the answer was handed over: recorded as any other; nothing more is tried.
    const { failure } = await attemptFailed(ctx, { run, running, candidate, traced, error: ending.error, budgetLowered: false });
    traced?.end({ kind: failure.kind, status: failure.label });
    return failure;
  }
  running.end(false);
  if (ending.kind === 'done') {
    ctx.usage?.count(candidate.healthId, candidate.model.id, { kind: 'tokens', input: ending.inputTokens, output: ending.outputTokens });
    traced?.tokens(ending.inputTokens, ending.outputTokens);
  }
  traced?.end();
  return undefined;
}

/** One attempt with one key: its answer, or what the failover policy decided about its failure. */
async function attempt<T>(ctx: RouterContext, run: RunState<T>, candidate: Candidate, budgetLowered: boolean): Promise<Answer<T> | { failure: Failure; decision: Decision } | Busy> {
  // Requests held for the key go first; a model with a concurrency limit takes one of its key's slots.
  const ahead = queuedAhead(ctx.waiting, candidate.healthId, run.turn);
  if (ahead) return ahead;
  const slot = await takeSlot(ctx.waiting, candidate);
  if (slot === 'busy') return { why: 'slot' };
  const plan = run.plan.keys.get(candidate.model.provider.id) as ProviderKeys;
  const latencyId = poolModelId(plan.poolId, candidate.model.spec.id);
  run.tried += 1;
  const traced = run.trace?.attempt({ provider: candidate.model.provider.id, model: candidate.model.spec.id, keyIndex: candidate.keyPosition, keyCount: candidate.keyCount });
  const onFirstOutput = (ms: number): void => {
    ctx.latency.observe(latencyId, ms);
    traced?.firstOutput(ms);
  };
  const running = startAttempt({ timings: ctx.timings, callerSignal: run.callerSignal, runStarted: run.started, left: run.deadline - Date.now(), onFirstOutput, streams: run.streams });
  ctx.usage?.count(candidate.healthId, candidate.model.id, REQUEST_EVENT);
  try {
    const value = await run.perform(candidate, running.attempt);
    run.attempts.push(logAttempt(candidate, 200, Date.now() - running.started));
    return await succeeded(ctx, run, { running, candidate, slot, traced }, value);
  } catch (error) {
    slot?.give();
    const failed = await attemptFailed(ctx, { run, running, candidate, traced, error, budgetLowered });
    run.attempts.push(logAttempt(candidate, failed.failure.label, Date.now() - running.started));
    traced?.end({ kind: failed.failure.kind, status: failed.failure.label });
    return failed;
  }
}

/** One model with one of its provider's keys (of `count` in the header). */
interface KeyTry {
  readonly model: CatalogModel;
  readonly choice: PoolKey;
  readonly count: number;
}

/** The request's input estimate, made once, when first needed; undefined when the request gave none. */
function inputOf<T>(run: RunState<T>): number | undefined {
  if (run.input === undefined && run.inputTokens) run.input = run.inputTokens();
  return run.input;
}

/** What a candidate the request does not fit is skipped for. */
interface TooLarge {
  readonly model: CatalogModel;
  /** The key skipped, for a per-request limit of one key of a pool; absent for the model's context window. */
  readonly key?: { readonly position: number; readonly count: number };
  readonly input: number;
  readonly limit: number;
}

/** A candidate the request does not fit: no call, no attempt counted; named in X-Freeway-Attempts and in the failures. */
function skipTooLarge<T>(run: RunState<T>, { model, key, input, limit }: TooLarge): void {
  run.size.limits.push({ model, limit, kind: key ? 'request' : 'window' });
  const status = `too large (~${input} > ${limit} tokens)`;
  const provider = model.provider.id;
  run.attempts.push(key && key.count > 1 ? { provider, model: model.spec.id, key: key.position, status } : { provider, model: model.spec.id, status });
  const name = keyName(provider, key?.position ?? 1, key?.count ?? 1);
  run.failures.reasons.push(`${name}: ${status}`);
  run.failures.logged.push(`${name}: ${status}`);
  run.tooLarge += 1;
}

/** Whether `input` exceeds `limit` by more than FIT_MARGIN: only then is a candidate skipped, so that the estimate never blocks a request that would have fit. */
const overLimit = (input: number, limit: number, margin: number): boolean => input > limit * (1 + margin);

/** The output budget that fits beside the input in the window and the per-request limit, when it must be lowered. */
function fittedBudget(budget: number | undefined, input: number | undefined, limits: readonly (number | undefined)[]): number | undefined {
  if (budget === undefined || input === undefined) return undefined;
  let room = budget;
  for (const limit of limits) if (limit !== undefined) room = Math.min(room, limit - input);
  return room > 0 && room < budget ? room : undefined;
}

/** The smaller of two output caps, either maybe absent. */
const smaller = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/** One model with one key, as the failover policy says: once, or once more with a lowered output budget. */
async function tryKey<T>(ctx: RouterContext, run: RunState<T>, { model, choice, count }: KeyTry): Promise<Answer<T> | AfterModel | 'next key'> {
  const base: Candidate = { model, key: choice.key, healthId: choice.healthId, tier: choice.tier, keyPosition: choice.position, keyCount: count };
  const input = inputOf(run);
  // What the key itself said (its 413, its rate-limit headers) beats the plugin's documented figure.
  const learned = ctx.learning.requestLimit(choice.healthId, model);
  // A figure only the plugin states puts the candidate after those that fit (size-limits.ts).
  const fit = keyFit(run.size, { model, learned, input, over: (tokens, limit) => overLimit(tokens, limit, ctx.fitMargin) });
  if (fit.verdict === 'skip') {
    skipTooLarge(run, { model, key: { position: choice.position, count }, input: input as number, limit: learned as number });
    return 'next key';
  }
  if (fit.verdict === 'later') return 'next key';
  const requestLimit = fit.limit;
  let cap = smaller(outputCap(model, run.budget, ctx.learning.outputLimit(model)), fittedBudget(run.budget, input, [model.spec.contextWindow, requestLimit]));
  let budgetLowered = false;
  for (;;) {
    const candidate = cap === undefined ? base : { ...base, maxOutputTokens: cap };
    const result = await attempt(ctx, run, candidate, budgetLowered);
    if ('why' in result) return keyBusy(run, candidate, result);
    if (!('decision' in result)) return result;
    const { failure, decision } = result;
    const { step } = decision;
    const noted = { failure, model, position: choice.position, count };
    if (decision.record.health) run.doneKeys.add(choice.healthId);
    noteForWaiting(run, candidate, failure, decision);
    if (failure.kind === 'request_too_large') refusedForSize(run.size, model, failure.requestLimit ?? model.spec.maxRequestTokens);
    switch (step.kind) {
      case 'lower budget':
        // The model's own maximum, as its upstream stated it: not the key's fault. Tried again, once, with the same key.
        if (run.callerSignal.aborted) throw new CallerGone();
        noteFailure(run.failures, { ...noted, final: false });
        cap = step.maxOutputTokens;
        budgetLowered = true;
        continue;
      case 'reject':
        throw step.error;
      case 'next key':
        noteFailure(run.failures, { ...noted, final: true });
        return 'next key';
      case 'next provider':
        noteFailure(run.failures, { ...noted, final: true });
        run.failedProviders.add(model.provider.id);
        return 'next';
      case 'next model':
        noteFailure(run.failures, { ...noted, final: true });
        return 'next';
      case 'larger window':
        noteFailure(run.failures, { ...noted, final: true });
        return 'larger window';
      case 'stop':
        noteFailure(run.failures, { ...noted, final: true });
        return 'stop';
      default: {
        const unknown: never = step;
        throw new Error(`unknown failover step ${JSON.stringify(unknown)}`);
      }
    }
  }
}

/** Tries one model with its provider's open keys, in turn. */
async function tryModel<T>(ctx: RouterContext, run: RunState<T>, model: CatalogModel): Promise<Answer<T> | AfterModel> {
  const provider = model.provider.id;
  if (run.failedProviders.has(provider)) return 'next';
  const { usable, count, poolId } = run.plan.keys.get(provider) as ProviderKeys;
  const open = usable.filter((choice) => !run.doneKeys.has(choice.healthId) && (run.plan.pinned || canUse(choice, model)));
  if (open.length === 0) return 'next';
  const input = inputOf(run);
  if (input !== undefined && overLimit(input, model.spec.contextWindow, ctx.fitMargin)) {
    skipTooLarge(run, { model, input, limit: model.spec.contextWindow });
    return 'next';
  }
  // Healthy keys take turns, per pool and model, across requests (and processes, through the shared store).
  const start = open.length === 1 ? 0 : (await ctx.health.nextTurn(poolModelId(poolId, model.spec.id), ctx.now())) % open.length;
  for (let k = 0; k < open.length; k++) {
    if (run.tried >= ctx.maxAttempts) return 'stop';
    const choice = open[(start + k) % open.length] as PoolKey;
    if (run.callerSignal.aborted) throw new CallerGone();
    if (run.deadline - Date.now() <= 0) {
      run.failures.reasons.push('request timeout');
      return 'stop';
    }
    if (choice.tier === 1 && !(await ctx.health.claimProbe(choice.healthId, ctx.now()))) {
      run.doneKeys.add(choice.healthId);
      continue;
    }
    const result = await tryKey(ctx, run, { model, choice, count });
    if (result !== 'next key') return result;
  }
  return 'next';
}

/** Tries the strongest model over a figure only its plugin states, when every other candidate is spent. */
async function tryOverGuess<T>(ctx: RouterContext, run: RunState<T>): Promise<Answer<T> | undefined> {
  const [strongest] = run.size.overGuess;
  if (!strongest || run.tried >= ctx.maxAttempts || run.callerSignal.aborted) return undefined;
  run.size.tryingOverGuess = true;
  const result = await tryModel(ctx, run, strongest);
  return typeof result === 'object' ? result : undefined;
}

/** Tries the plan's candidates under the failover policy; rounds after waits (waiting.ts). */
function runPlan<T>(ctx: RouterContext, request: Request, perform: AttemptFn<T>, streams = false): Promise<Answer<T>> {
  const options = { maxAttempts: ctx.maxAttempts, requestTimeoutMs: ctx.timings.requestTimeoutMs, clock: ctx.now };
  return runRounds(ctx.waiting, request, options, (plan, carried) => runRound(ctx, { ...request, plan, perform, streams }, carried));
}

async function runRound<T>(ctx: RouterContext, request: RunRequest<T>, carried: Carried): Promise<Answer<T>> {
  const { started } = carried;
  const run: RunState<T> = {
    ...request,
    started,
    deadline: started + ctx.timings.requestTimeoutMs,
    failures: noFailures(),
    doneKeys: new Set(),
    failedProviders: new Set(),
    tried: carried.tried,
    triedBefore: carried.tried,
    tooLarge: 0,
    size: newSizeState(),
    input: carried.input,
    waits: noRoundWaits(),
    turn: carried.turn,
    now: ctx.now,
  };
  try {
    return await runCandidates(ctx, run);
  } finally {
    carried.tried = run.tried;
    carried.input = run.input;
  }
}

async function runCandidates<T>(ctx: RouterContext, run: RunState<T>): Promise<Answer<T>> {
  const { plan } = run;
  let remaining = plan.candidates;
  let next = 0;
  while (run.tried < ctx.maxAttempts) {
    const candidate = remaining[next++];
    if (!candidate) break;
    const result = await tryModel(ctx, run, candidate.model);
    if (typeof result === 'object') return result;
    if (result === 'stop') break;
    if (result === 'larger window') {
      const needed = candidate.model.spec.contextWindow;
      remaining = remaining.slice(next).filter((other) => other.model.spec.contextWindow > needed);
      next = 0;
      if (remaining.length === 0) throw contextTooLong(plan.label, run.failures);
    }
  }
  const overGuess = await tryOverGuess(ctx, run);
  if (overGuess) return overGuess;
  // Every candidate was skipped, or refused, for its size, none for its health: the request is the problem.
  const sizeOnly = run.tried - run.triedBefore === run.size.refused && run.tooLarge + run.size.refused > 0;
  if (sizeOnly && plan.skipped.length === 0) throw requestTooLarge(inputOf(run) ?? 0, run.size.limits, plan.candidates.map((candidate) => candidate.model));
  const summary = { target: plan.label, pinned: plan.pinned, provider: plan.candidates[0]?.model.provider.id, skipped: plan.skipped, retryAfterSeconds: plan.retryAfterSeconds };
  throw new OutOfCandidates(exhausted(summary, run.failures, run.tried), run.waits);
}

export function createRouter(deps: RouterDeps): Router {
  const now = deps.now ?? Date.now;
  const { config, health, latency, redact, knowledge, usage } = deps;
  const { timeouts } = config;
  const timings: AttemptTimings = {
    requestTimeoutMs: timeouts.requestMs,
    firstTokenTimeoutMs: timeouts.firstTokenMs,
    streamIdleTimeoutMs: timeouts.streamIdleMs,
    streamMaxDurationMs: timeouts.streamMaxDurationMs,
  };
  const ctx: RouterContext = {
    maxAttempts: config.routing.maxAttempts,
    timings,
    health,
    latency,
    redact,
    now,
    noCreditWaitMs: knowledge?.noCreditWaitMs ?? DEFAULT_NO_CREDIT_WAIT_MS,
    learning: createLearning({ health, knowledge, limitKeepMs: config.routing.learnedLimitMs ?? DEFAULT_LEARNED_LIMIT_MS, maxLimits: config.state?.healthMaxRecords ?? 100_000, now }),
    fitMargin: config.routing.fitMargin ?? DEFAULT_FIT_MARGIN,
    sticky: deps.sticky,
    usage,
    waiting: deps.waiting,
  };
  const planner = createPlanner({
    routing: config.routing.strategy,
    qualityBand: config.routing.qualityBand ?? DEFAULT_QUALITY_BAND,
    exploreShare: config.routing.exploreShare,
    health,
    hashKey: deps.hashKey,
    latency,
    random: deps.random ?? Math.random,
    now,
    knowledge,
    providers: deps.providers,
    sticky: deps.sticky?.store,
  });
  const end = (answer: Answer<unknown>, ending: Ending): Promise<Failure | undefined> => endAnswer(ctx, answer, ending);
  return {
    plan: planner.plan,
    findLive: planner.findLive,
    stream: (request) => runPlan(ctx, request, (candidate, attempt) => openStream(request.call, candidate, attempt), true),
    collect: (request) => runPlan(ctx, request, (candidate, attempt) => collect(request.call, candidate, attempt, request.maxBytes)),
    end,
    async call(request) {
      const answer = await runPlan(ctx, request, request.attempt);
      const tokens = request.tokensOf?.(answer.value);
      await end(answer, { kind: 'done', inputTokens: tokens?.input, outputTokens: tokens?.output });
      return { value: answer.value, candidate: answer.candidate };
    },
  };
}
