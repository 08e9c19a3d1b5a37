import { tierRank, type Alias, type CatalogModel } from '../../catalog/catalog.ts';
import type { Capability } from '../../providers/types.ts';
import type { Config } from '../config/index.ts';
import { HttpError, invalidRequest } from '../core/errors.ts';
import { type HealthStore, type KeyHasher, type Outcome, viewHealth } from './health.ts';
import type { KeyPool, KeySet } from './keys.ts';
import type { LatencyTracker } from './latency.ts';
import type { Redactor } from '../core/redact.ts';
import { AttemptTimeout, BeforeRequest, classifyFailure, DeadlineExceeded, type Failure } from './upstream-errors.ts';
import type { ModelKnowledge } from '../models/model-knowledge.ts';
import type { LiveList } from '../models/live-lists.ts';
import type { Quarantined } from '../models/quarantine.ts';
import { isLiveOnly, liveEmbeddingModel } from '../models/views.ts';

export interface Candidate {
  readonly model: CatalogModel;
  readonly key: string;
  /** `provider:hmac(key)`, the health record's id. */
  readonly healthId: string;
  /** 0 healthy, 1 half-open: the attempt is the key's probe. */
  readonly tier: 0 | 1;
  /** The key's position in its header, from 1. */
  readonly keyPosition: number;
  /** How many keys that header carried; with more than one, attempts and messages name the key by position. */
  readonly keyCount: number;
  /** The output budget for this attempt when the model takes less than the request asks for; else the request's own. */
  readonly maxOutputTokens?: number;
}

export interface AttemptLog {
  readonly provider: string;
  readonly model: string;
  /** The key's position in its header, when the header carried more than one key. */
  readonly key?: number;
  /** Upstream HTTP status, `ok`, or what went wrong without one (`timeout`, `connection`, ...). */
  readonly status: number | string;
  readonly ms: number;
}

export interface AttemptControl {
  readonly signal: AbortSignal;
  /** Call for every piece of output; the first stops the first-token timer, each one restarts the idle timer. */
  output(): void;
  /** Call with the upstream's response headers: the provider's quota figures are read from them. */
  responseHeaders(headers: Readonly<Record<string, string>>): void;
  /**
   * Call before a non-streaming upstream call, whose output only comes whole:
   * there is no first token to wait for, so only the request's deadline
   * (`REQUEST_TIMEOUT_MS` from the request's start) bounds the attempt.
   */
  whole(): void;
  /**
   * Waits for the caller to take more (`ready`, e.g. the socket's drain). Time spent
   * here is the caller's, not the upstream's: the idle timer is paused and
   * CLIENT_STALL_TIMEOUT_MS runs instead. Resolves false when the caller stalled.
   */
  waitForCaller(ready: Promise<void>): Promise<boolean>;
}

export interface Routed<T> {
  readonly value: T;
  readonly candidate: Candidate;
  readonly control: AttemptControl;
  /** Ends the attempt: clears its timers and, given an error, records it and returns it classified. */
  finish(error?: unknown): Promise<Failure | undefined>;
}

/** One of a provider's keys that this request may use. */
export interface PoolKey {
  readonly key: string;
  readonly healthId: string;
  /** Its position in the header, from 1. */
  readonly position: number;
  readonly tier: 0 | 1;
  /** The key's live model list, when one is known: an alias picks only its models for this key. */
  readonly list?: LiveList;
  /** Models quarantined for this key: an alias skips them. */
  readonly quarantined?: Quarantined;
}

/** A provider's keys as this request sees them. */
export interface ProviderKeys {
  /** The keys not being skipped, in header order. */
  readonly usable: readonly PoolKey[];
  /** How many keys the header carried. */
  readonly count: number;
  /** The key's health id for one key; for a pool an HMAC of its keys' HMACs: round robin and latency are kept per pool. */
  readonly poolId: string;
}

export interface Plan {
  /** `free:…` or `{provider}/{modelId}`, for messages. */
  readonly target: string;
  readonly pinned: boolean;
  /**
   * One per model, in the order they are tried, each with the first usable key of
   * its provider. For a pool, whose turn it is is decided when the model is tried.
   */
  readonly candidates: readonly Candidate[];
  /** Provider id -> its keys for this request. */
  readonly keys: ReadonlyMap<string, ProviderKeys>;
  /** Candidates left out for their health, as `provider: reason` for the 502 message. */
  readonly skipped: readonly string[];
  readonly retryAfterSeconds: number | undefined;
}

export type AttemptFn<T> = (candidate: Candidate, control: AttemptControl) => Promise<T>;

export interface RouterDeps {
  readonly config: {
    readonly routing: Config['routing'];
    readonly timeouts: Pick<Config['timeouts'], 'requestMs' | 'firstTokenMs' | 'streamIdleMs' | 'streamMaxDurationMs' | 'clientStallMs'>;
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
}

/** Thrown when the caller disconnected; there is nobody left to answer. */
export class CallerGone extends Error {
  override readonly name = 'CallerGone';
}

function outcomeOf(failure: Failure, noCreditWaitMs: number): Outcome | undefined {
  switch (failure.kind) {
    case 'rate_limited':
      return { kind: 'rate_limited', retryAfterMs: failure.retryAfterMs, reason: failure.reason };
    case 'invalid_key':
      return { kind: 'invalid_key', reason: failure.reason };
    case 'no_credit':
      return { kind: 'no_credit', reason: failure.reason, waitMs: noCreditWaitMs };
    case 'server':
    case 'bad_response':
    case 'timeout':
    case 'connection':
      return { kind: 'failure', reason: failure.reason };
    default:
      // The model, the request, the caller, Freeway's own bounds or bugs: nothing wrong with the key.
      return undefined;
  }
}

/**
 * A key the provider refused (401/403, or no credit left), in words that say it
 * is not a passing fault: what the provider said, and the header to fix.
 */
function refusedKey(kind: 'invalid_key' | 'no_credit', reason: string, header: string, position: number, count: number, earlier = false): string {
  const which = count > 1 ? `key ${position} of ${header}` : header;
  const when = earlier ? ' earlier' : '';
  return kind === 'no_credit'
    ? `the provider refused the key${when}: it has no credit left (${reason}): add credit or fix ${which}`
    : `the provider refused the key${when} (${reason}): fix ${which}`;
}

/** A failure as its reason in the 502 message; a refused key says what to fix. */
function failureReason(failure: Failure, model: CatalogModel, position: number, count: number): string {
  return failure.kind === 'invalid_key' || failure.kind === 'no_credit'
    ? refusedKey(failure.kind, failure.reason, model.provider.header, position, count)
    : failure.reason;
}

function skipReason(state: string, retryAfter: number | undefined, reason: string | undefined): string {
  const wait = retryAfter === undefined ? '' : `, retry after ${retryAfter}s`;
  const why = reason ? ` (${reason})` : '';
  return `${state.replace('_', ' ')}${wait}${why}`;
}

const hasAll = (model: CatalogModel, needs: readonly Capability[]): boolean =>
  needs.every((need) => model.spec.capabilities.includes(need));

function headerList(models: readonly CatalogModel[]): string {
  return [...new Set(models.map((model) => model.provider.header))].join(', ');
}

/** What moving on after a failure means for the rest of the request. */
function nextStep(kind: Failure['kind']): 'next key' | 'next provider' | 'next model' {
  switch (kind) {
    case 'rate_limited':
    case 'invalid_key':
    case 'no_credit':
      // The key is spent or refused: the same model with the provider's next key.
      return 'next key';
    case 'server':
    case 'bad_response':
    case 'timeout':
    case 'connection':
      // The provider is in trouble; its other keys would most likely meet the same fault.
      return 'next provider';
    case 'unsupported':
      // The provider's mapping refused the request: its other models share that mapping.
      return 'next provider';
    default:
      return 'next model';
  }
}

const keyName = (provider: string, position: number, count: number): string => (count > 1 ? `${provider} key ${position}` : provider);

const noClient = (): string => '';

/** NO_CREDIT_WAIT_MS when the router has no model knowledge (tests that build a bare router). */
const DEFAULT_NO_CREDIT_WAIT_MS = 86_400_000;

/** Whether an alias may pick `model` with `choice`: in the key's live list (or curated, without one), and not quarantined. */
function canUse(choice: PoolKey, model: CatalogModel): boolean {
  if (choice.quarantined?.has(model.spec.id)) return false;
  return choice.list ? choice.list.models.has(model.spec.id) : !isLiveOnly(model);
}

/** The models of `provider` an alias picks for keys with live lists: the union of their lists' views, in order. */
function liveAliasModels(knowledge: ModelKnowledge, alias: Alias, provider: CatalogModel['provider'], lists: ReadonlyArray<LiveList | undefined>, curated: readonly CatalogModel[]): CatalogModel[] {
  const seen = new Set<string>();
  const merged: CatalogModel[] = [];
  const add = (model: CatalogModel): void => {
    if (seen.has(model.id)) return;
    seen.add(model.id);
    merged.push(model);
  };
  for (const list of lists) {
    if (list) for (const model of knowledge.view(provider, list).aliases.get(alias.id) ?? []) add(model);
    // A key of the pool without a list is assumed to serve the curated models.
    else for (const model of curated) add(model);
  }
  return merged;
}

/** A failure as the log line may show it: its status and the upstream's error type, nothing the upstream wrote about the request. */
const loggedFailure = (failure: Failure): string => `${failure.label}${failure.errorType === undefined ? '' : ` ${failure.errorType}`}`;

/** A 400 that passes on what an upstream said of the request; the log line gets `logReason`, without the upstream's words. */
const upstreamRejection = (message: string, logReason: string): HttpError => new HttpError(400, 'invalid_request_error', message, undefined, logReason);

/** How many candidates, from the first, share the first one's tier. */
function countSameTier(ready: readonly Candidate[]): number {
  const first = tierRank((ready[0] as Candidate).model.provider);
  let count = 1;
  while (count < ready.length && tierRank((ready[count] as Candidate).model.provider) === first) count += 1;
  return count;
}

export function createRouter(deps: RouterDeps): Router {
  const { config, health, hashKey, latency, redact } = deps;
  const random = deps.random ?? Math.random;
  const now = deps.now ?? Date.now;
  // Catalog model id -> the most output tokens its upstream said it takes. Keys are catalog
  // model ids only (a fixed set), so the map holds at most one entry per model of the catalog.
  const learnedOutputLimits = new Map<string, number>();

  /** The budget to send `model` instead of the request's, when its declared or learned maximum is lower. */
  function outputCap(model: CatalogModel, budget: number | undefined): number | undefined {
    if (budget === undefined) return undefined;
    const declared = model.spec.maxOutputTokens;
    const learned = learnedOutputLimits.get(model.id);
    const limit = declared === undefined ? learned : learned === undefined ? declared : Math.min(declared, learned);
    return limit !== undefined && limit < budget ? limit : undefined;
  }

  const knowledge = deps.knowledge;
  const noCreditWaitMs = knowledge?.noCreditWaitMs ?? DEFAULT_NO_CREDIT_WAIT_MS;

  async function findLive(target: string, keys: KeySet, client: () => string = noClient, kind: 'chat' | 'embedding' = 'chat'): Promise<CatalogModel | undefined> {
    if (!knowledge) return undefined;
    const slash = target.indexOf('/');
    const pool = slash > 0 ? keys.get(target.slice(0, slash)) : undefined;
    const provider = pool && deps.providers?.find((plugin) => plugin.id === target.slice(0, slash));
    if (!pool || !provider) return undefined;
    const healthIds = pool.map((key) => hashKey(provider.id, key));
    for (const list of await knowledge.lists.lists(provider, pool, healthIds, client)) {
      if (!list) continue;
      if (kind === 'chat') {
        const model = knowledge.view(provider, list).chat.get(target);
        if (model) return model;
        continue;
      }
      const listed = knowledge.view(provider, list).listed.get(target);
      if (listed?.kind === 'embedding' && provider.createEmbeddingModel && provider.listing) return liveEmbeddingModel(provider, listed, provider.listing.source);
    }
    return undefined;
  }

  async function plan(entry: Alias | CatalogModel, keys: KeySet, needs: readonly Capability[], client: () => string = noClient): Promise<Plan> {
    const pinned = !('models' in entry);
    let models: readonly CatalogModel[];
    if (pinned) {
      if (!keys.has(entry.provider.id)) {
        throw new HttpError(401, 'authentication_error', `${entry.id} needs the ${entry.provider.header} header.`);
      }
      models = [entry];
    } else {
      const able = needs.length === 0 ? entry.models : entry.models.filter((model) => hasAll(model, needs));
      models = able.filter((model) => keys.has(model.provider.id));
      if (models.length === 0) {
        const what = needs.length === 0 ? entry.id : `${entry.id} with ${needs.join(' and ')}`;
        throw new HttpError(401, 'authentication_error', `No provider key for ${what}. Send one of: ${headerList(able)}.`);
      }
    }

    // One health record per key: every key of every provider in play is hashed once.
    const hashed = new Map<string, string[]>();
    let lists: Map<string, ReadonlyArray<LiveList | undefined>> | undefined;
    let pending: Array<Promise<void>> | undefined;
    const ids: string[] = [];
    for (const model of models) {
      const id = model.provider.id;
      if (hashed.has(id)) continue;
      const pool = keys.get(id) as KeyPool;
      const poolIds = pool.map((key) => hashKey(id, key));
      hashed.set(id, poolIds);
      ids.push(...poolIds);
      // Live lists, for an alias: the listings that are due start now; a key's first one is waited for, briefly.
      // Embedding and transcription aliases name one family of weights, which the plugins declare: no live list adds to them.
      if (!knowledge || pinned || !model.provider.listing || ((entry as Alias).kind ?? 'chat') !== 'chat') continue;
      const found = knowledge.lists.lists(model.provider, pool, poolIds, client);
      if (found instanceof Promise) {
        const got = (lists ??= new Map());
        got.set(id, []);
        (pending ??= []).push(found.then((value) => void got.set(id, value)));
      } else if (found.length > 0) (lists ??= new Map()).set(id, found);
    }
    if (pending) await Promise.all(pending);
    // A pinned model with a single key is always tried, as there is nothing to choose from.
    const lookHealth = !pinned || ids.length > 1;
    const [records, quarantined] = await Promise.all([
      lookHealth ? health.get(ids) : [],
      knowledge && !pinned ? knowledge.quarantines.read(ids) : undefined,
    ]);
    const at = now();

    const providerKeys = new Map<string, ProviderKeys>();
    const skipped: string[] = [];
    let retryAfterSeconds: number | undefined;
    let i = 0;
    for (const [id, poolIds] of hashed) {
      const pool = keys.get(id) as KeyPool;
      const usable: PoolKey[] = [];
      for (let k = 0; k < pool.length; k++) {
        const healthId = poolIds[k] as string;
        const view = viewHealth(records[i++], at);
        if (view.tier === 2 && lookHealth) {
          if (view.state === 'invalid_key' || view.state === 'no_credit') {
            // Refused earlier and not tried again: waiting would not help, so no Retry-After from it.
            const header = (models.find((model) => model.provider.id === id) as CatalogModel).provider.header;
            const said = view.reason ?? (view.state === 'invalid_key' ? 'invalid key' : 'no credit');
            skipped.push(`${keyName(id, k + 1, pool.length)}: ${refusedKey(view.state, said, header, k + 1, pool.length, true)}`);
            continue;
          }
          skipped.push(`${keyName(id, k + 1, pool.length)}: ${skipReason(view.state, view.retryAfter, view.reason)}`);
          if (view.retryAfter !== undefined) retryAfterSeconds = Math.min(retryAfterSeconds ?? Infinity, view.retryAfter);
          continue;
        }
        const list = lists?.get(id)?.[k];
        const out = quarantined?.get(healthId);
        const choice: PoolKey = { key: pool[k] as string, healthId, position: k + 1, tier: view.tier === 1 ? 1 : 0 };
        usable.push(list || out ? { ...choice, list, quarantined: out } : choice);
      }
      // Sorted, so that the order of the header does not make another pool.
      const poolId = pool.length === 1 ? (poolIds[0] as string) : hashKey(id, [...poolIds].sort().join(','));
      providerKeys.set(id, { usable, count: pool.length, poolId });
    }

    if (!pinned && knowledge && (lists !== undefined || (quarantined?.size ?? 0) > 0)) {
      models = learntModels(entry as Alias, models, needs, lists, providerKeys);
    }

    const ready: Array<Candidate & { order: number; ms: number }> = [];
    models.forEach((model, order) => {
      const { usable, count, poolId } = providerKeys.get(model.provider.id) as ProviderKeys;
      const first = pinned ? usable[0] : usable.find((choice) => canUse(choice, model));
      if (!first) return;
      const ms = config.routing.strategy === 'latency' ? latency.get(`${poolId}|${model.spec.id}`) ?? Infinity : 0;
      ready.push({ model, key: first.key, healthId: first.healthId, tier: first.tier, keyPosition: first.position, keyCount: count, order, ms });
    });
    // A half-open key keeps its place: the request that reaches it is its probe.
    // Free tiers before trial credit before paid only (catalog order), then the fastest.
    ready.sort((a, b) => tierRank(a.model.provider) - tierRank(b.model.provider) || a.ms - b.ms || a.order - b.order);
    const sameTier = ready.length > 1 ? countSameTier(ready) : 1;
    if (config.routing.strategy === 'latency' && sameTier > 1 && random() < config.routing.exploreShare) {
      // Keep the estimates of the others fresh: now and then one of them goes first, never one of a costlier tier.
      const pick = 1 + Math.floor(random() * (sameTier - 1));
      const [explored] = ready.splice(pick, 1);
      if (explored) ready.unshift(explored);
    }
    return { target: entry.id, pinned, candidates: ready, keys: providerKeys, skipped, retryAfterSeconds };
  }

  /** An alias's models for this request's keys, once some key has a live list or a quarantined model. */
  function learntModels(
    alias: Alias,
    curated: readonly CatalogModel[],
    needs: readonly Capability[],
    lists: ReadonlyMap<string, ReadonlyArray<LiveList | undefined>> | undefined,
    providerKeys: ReadonlyMap<string, ProviderKeys>,
  ): CatalogModel[] {
    const byProvider = new Map<string, CatalogModel[]>();
    for (const model of curated) {
      const group = byProvider.get(model.provider.id);
      if (group) group.push(model);
      else byProvider.set(model.provider.id, [model]);
    }
    const result: CatalogModel[] = [];
    for (const [id, group] of byProvider) {
      const provider = (group[0] as CatalogModel).provider;
      const providerLists = lists?.get(id);
      const candidates = knowledge && providerLists?.some((list) => list !== undefined)
        ? liveAliasModels(knowledge, alias, provider, providerLists, group).filter((model) => hasAll(model, needs))
        : group;
      const { usable } = providerKeys.get(id) as ProviderKeys;
      for (const model of candidates) if (usable.some((choice) => canUse(choice, model))) result.push(model);
    }
    return result;
  }

  async function run<T>(plan: Plan, keys: KeySet, attempt: AttemptFn<T>, callerSignal: AbortSignal, attempts: AttemptLog[], budget?: number): Promise<Routed<T>> {
    const runStarted = Date.now();
    const deadline = runStarted + config.timeouts.requestMs;
    const reasons: string[] = [];
    // The same, as the log line may show them (see loggedFailure).
    const logged: string[] = [];
    // Attempts whose provider could not express the request at all.
    let unsupported = 0;
    // Keys that failed (or could not be probed) in this request: none of their models is tried again.
    const doneKeys = new Set<string>();
    // Providers that failed with a server fault in this request: the next attempt goes elsewhere.
    const failedProviders = new Set<string>();
    let remaining = plan.candidates;
    let next = 0;
    let failed: Failure | undefined;
    let lastRetryAfterMs: number | undefined;

    /** One attempt with one key; a success is returned, a failure recorded and returned. */
    async function tryKey(model: CatalogModel, choice: PoolKey, count: number, left: number, cap: number | undefined): Promise<{ routed: Routed<T> } | { failure: Failure }> {
      const chosen: Candidate = { model, key: choice.key, healthId: choice.healthId, tier: choice.tier, keyPosition: choice.position, keyCount: count };
      const candidate: Candidate = cap === undefined ? chosen : { ...chosen, maxOutputTokens: cap };
      const log = (status: number | string, ms: number): AttemptLog =>
        count > 1 ? { provider: model.provider.id, model: model.spec.id, key: choice.position, status, ms } : { provider: model.provider.id, model: model.spec.id, status, ms };
      const latencyId = `${(plan.keys.get(model.provider.id) as ProviderKeys).poolId}|${model.spec.id}`;
      const started = Date.now();
      const controller = new AbortController();
      const onCallerGone = (): void => controller.abort(callerSignal.reason);
      callerSignal.addEventListener('abort', onCallerGone, { once: true });
      let firstOutputAt = 0;
      let upstreamHeaders: Readonly<Record<string, string>> | undefined;
      let waitingForCaller = false;
      const onSilence = (): void => {
        // Time the caller takes to read is not upstream silence.
        if (!waitingForCaller) controller.abort(new AttemptTimeout(firstOutputAt ? 'stream idle' : 'first token'));
      };
      // Before the first token one timer bounds both silence and the request's time left.
      let timer = setTimeout(onSilence, Math.min(config.timeouts.firstTokenMs, left));
      // After it, the request's deadline (REQUEST_TIMEOUT_MS, then STREAM_MAX_DURATION_MS once a stream is handed over).
      let overall: NodeJS.Timeout | undefined;
      const onDeadline = (): void => controller.abort(new AttemptTimeout('request timeout'));
      const control: AttemptControl = {
        signal: controller.signal,
        output() {
          if (firstOutputAt !== 0) {
            timer.refresh();
            return;
          }
          firstOutputAt = Date.now();
          latency.observe(latencyId, firstOutputAt - started);
          clearTimeout(timer);
          timer = setTimeout(onSilence, config.timeouts.streamIdleMs);
          overall = setTimeout(
            () => controller.abort(new DeadlineExceeded('request timeout', `request timeout (REQUEST_TIMEOUT_MS, ${config.timeouts.requestMs} ms)`)),
            Math.max(0, deadline - Date.now()),
          );
        },
        async waitForCaller(ready) {
          waitingForCaller = true;
          let stall: NodeJS.Timeout | undefined;
          const stalled = new Promise<false>((resolve) => {
            stall = setTimeout(() => resolve(false), config.timeouts.clientStallMs);
          });
          try {
            return await Promise.race([ready.then(() => true), stalled]);
          } finally {
            clearTimeout(stall);
            waitingForCaller = false;
            if (firstOutputAt !== 0) timer.refresh();
          }
        },
        responseHeaders(headers) {
          upstreamHeaders = headers;
        },
        whole() {
          clearTimeout(timer);
          timer = setTimeout(onDeadline, Math.max(0, deadline - Date.now()));
        },
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        clearTimeout(overall);
        callerSignal.removeEventListener('abort', onCallerGone);
      };
      const fail = async (error: unknown): Promise<Failure> => {
        cleanup();
        const failure = classifyFailure(error, redact, keys, controller.signal.reason, candidate.model.provider.errorRules, now());
        // Whatever failed, the upstream call is over: release its connection.
        if (!controller.signal.aborted) controller.abort(new AttemptTimeout('attempt over'));
        const outcome = outcomeOf(failure, noCreditWaitMs);
        if (outcome) {
          await health.record(candidate.healthId, outcome, now());
          doneKeys.add(candidate.healthId);
        }
        if (failure.kind === 'model_unavailable' && knowledge && !failure.aboutRequest) {
          // Aliases skip the model for this key (a 410: for every key of its provider) for MODEL_QUARANTINE_MS.
          const gone = failure.status === 410;
          await knowledge.quarantines.add(candidate.healthId, candidate.model.spec.id, failure.reason, gone);
          knowledge.quarantined?.(candidate.model.provider.id, gone ? 'provider' : 'key');
        }
        return failure;
      };

      try {
        const value = await attempt(candidate, control);
        attempts.push(log(200, Date.now() - started));
        // What is handed over now is a stream the caller reads at its own pace: STREAM_MAX_DURATION_MS bounds it from here.
        clearTimeout(overall);
        overall = setTimeout(
          () => controller.abort(new DeadlineExceeded('stream max duration', `stream max duration (STREAM_MAX_DURATION_MS, ${config.timeouts.streamMaxDurationMs} ms)`)),
          Math.max(0, runStarted + config.timeouts.streamMaxDurationMs - Date.now()),
        );
        const at = now();
        const quota = upstreamHeaders && model.provider.readQuota?.(upstreamHeaders, at);
        // Always written: other requests may have recorded failures since this one's plan.
        await health.record(candidate.healthId, quota ? { kind: 'success', quota } : { kind: 'success' }, at);
        let finished = false;
        return {
          routed: {
            value,
            candidate,
            control,
            async finish(error) {
              if (finished) return undefined;
              finished = true;
              if (error === undefined) {
                cleanup();
                return undefined;
              }
              return fail(error);
            },
          },
        };
      } catch (error) {
        const failure = await fail(error);
        attempts.push(log(failure.label, Date.now() - started));
        // A bug of ours: a 500 with the error logged, not a provider failure.
        if (failure.kind === 'internal') throw error instanceof BeforeRequest ? error.error : error;
        return { failure };
      }
    }

    models: while (attempts.length < config.routing.maxAttempts) {
      const candidate = remaining[next++];
      if (!candidate) break;
      const { model } = candidate;
      const provider = model.provider.id;
      if (failedProviders.has(provider)) continue;
      const { usable, count, poolId } = plan.keys.get(provider) as ProviderKeys;
      const open = usable.filter((choice) => !doneKeys.has(choice.healthId) && (plan.pinned || canUse(choice, model)));
      if (open.length === 0) continue;
      // Healthy keys take turns, per pool and model, across requests (and processes, through the shared store).
      const start = open.length === 1 ? 0 : (await health.nextTurn(`${poolId}|${model.spec.id}`, now())) % open.length;

      for (let k = 0; k < open.length; k++) {
        if (attempts.length >= config.routing.maxAttempts) break models;
        const choice = open[(start + k) % open.length] as PoolKey;
        if (callerSignal.aborted) throw new CallerGone();
        const left = deadline - Date.now();
        if (left <= 0) {
          reasons.push('request timeout');
          break models;
        }
        if (choice.tier === 1 && !(await health.claimProbe(choice.healthId, now()))) {
          doneKeys.add(choice.healthId);
          continue;
        }

        const cap = outputCap(model, budget);
        let result = await tryKey(model, choice, count, left, cap);
        if ('failure' in result && result.failure.kind === 'output_budget' && result.failure.maxOutputTokens !== undefined) {
          // The model's own maximum, as its upstream stated it: not the key's fault. Later requests
          // are lowered before the call; this one is tried again, once, with the same key.
          const limit = result.failure.maxOutputTokens;
          learnedOutputLimits.set(model.id, limit);
          const sent = cap ?? budget;
          const retryLeft = deadline - Date.now();
          if (sent !== undefined && limit < sent && attempts.length < config.routing.maxAttempts && retryLeft > 0) {
            if (callerSignal.aborted) throw new CallerGone();
            reasons.push(`${keyName(provider, choice.position, count)}: ${result.failure.reason}`);
            logged.push(`${keyName(provider, choice.position, count)}: ${loggedFailure(result.failure)}`);
            result = await tryKey(model, choice, count, retryLeft, limit);
          }
        }
        if ('routed' in result) return result.routed;
        const { failure } = result;
        if (failure.kind === 'aborted') throw new CallerGone();
        failed = failure;
        if (failure.retryAfterMs !== undefined) lastRetryAfterMs = failure.retryAfterMs;
        reasons.push(`${keyName(provider, choice.position, count)}: ${failureReason(failure, model, choice.position, count)}`);
        logged.push(`${keyName(provider, choice.position, count)}: ${loggedFailure(failure)}`);
        if (failure.kind === 'unsupported') unsupported += 1;
        if (failure.kind === 'deadline') break models;
        if (failure.kind === 'request') {
          throw upstreamRejection(`${provider} rejected the request: ${failure.reason}`, `${provider} rejected the request: ${loggedFailure(failure)}`);
        }
        const step = nextStep(failure.kind);
        if (step === 'next key') continue;
        if (plan.pinned) break models;
        if (step === 'next provider') failedProviders.add(provider);
        if (failure.kind === 'context_too_long') {
          const needed = model.spec.contextWindow;
          remaining = remaining.slice(next).filter((other) => other.model.spec.contextWindow > needed);
          next = 0;
          if (remaining.length === 0) {
            const what = `The request does not fit the context window of any model behind ${plan.target}`;
            throw upstreamRejection(`${what}: ${reasons.join('; ')}`, `${what}: ${logged.join('; ')}`);
          }
        }
        continue models;
      }
    }

    if (failed && unsupported === attempts.length && plan.skipped.length === 0) {
      // Nobody failed: no candidate could take the request as it is.
      throw invalidRequest(
        plan.pinned ? `${plan.candidates[0]?.model.provider.id} ${failed.reason}` : `No model behind ${plan.target} can take this request: ${reasons.join('; ')}`,
      );
    }
    if (plan.pinned && failed && (failed.kind === 'request' || failed.kind === 'context_too_long' || failed.kind === 'output_budget')) {
      const what = `${plan.candidates[0]?.model.provider.id} rejected the request`;
      throw upstreamRejection(`${what}: ${failed.reason}`, `${what}: ${loggedFailure(failed)}`);
    }
    const all = [...reasons, ...plan.skipped];
    const retryMs = lastRetryAfterMs ?? (plan.retryAfterSeconds === undefined ? undefined : plan.retryAfterSeconds * 1000);
    if (plan.pinned) throw new HttpError(502, 'freeway_provider_error', `Provider failed: ${all.join('; ')}`, retryHeader(retryMs));
    throw new HttpError(
      502,
      'freeway_all_providers_failed',
      `All providers failed: ${all.length > 0 ? all.join('; ') : 'no candidate could be tried'}`,
      retryHeader(retryMs),
    );
  }

  return { plan, run, findLive };
}

function retryHeader(ms: number | undefined): Record<string, string> | undefined {
  return ms === undefined ? undefined : { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) };
}
