import type { Alias, CatalogModel } from '../../catalog/catalog.ts';
import type { Capability } from '../../providers/types.ts';
import type { Config } from '../config.ts';
import { HttpError, invalidRequest } from '../http/errors.ts';
import { type HealthStore, type KeyHasher, type Outcome, viewHealth } from './health.ts';
import type { KeySet } from './keys.ts';
import type { LatencyTracker } from './latency.ts';
import type { Redactor } from '../http/redact.ts';
import { AttemptTimeout, classifyFailure, type Failure } from './upstream-errors.ts';

export interface Candidate {
  readonly model: CatalogModel;
  readonly key: string;
  /** `provider:hmac(key)`, the health record's id. */
  readonly healthId: string;
  /** 0 healthy, 1 half-open: the attempt is the key's probe. */
  readonly tier: 0 | 1;
}

export interface AttemptLog {
  readonly provider: string;
  readonly model: string;
  /** Upstream HTTP status, `ok`, or what went wrong without one (`timeout`, `connection`, ...). */
  readonly status: number | string;
  readonly ms: number;
}

export interface AttemptControl {
  readonly signal: AbortSignal;
  /** Call for every piece of output; the first stops the first-token timer, each one restarts the idle timer. */
  output(): void;
}

export interface Routed<T> {
  readonly value: T;
  readonly candidate: Candidate;
  readonly control: AttemptControl;
  /** Ends the attempt: clears its timers and, given an error, records it and returns it classified. */
  finish(error?: unknown): Promise<Failure | undefined>;
}

export interface Plan {
  /** `free:…` or `{provider}/{modelId}`, for messages. */
  readonly target: string;
  readonly pinned: boolean;
  readonly candidates: readonly Candidate[];
  /** Candidates left out for their health, as `provider: reason` for the 502 message. */
  readonly skipped: readonly string[];
  readonly retryAfterSeconds: number | undefined;
}

export type AttemptFn<T> = (candidate: Candidate, control: AttemptControl) => Promise<T>;

export interface RouterDeps {
  readonly config: Pick<Config, 'maxAttempts' | 'requestTimeoutMs' | 'firstTokenTimeoutMs' | 'streamIdleTimeoutMs' | 'routing' | 'exploreShare'>;
  readonly health: HealthStore;
  readonly hashKey: KeyHasher;
  readonly latency: LatencyTracker;
  readonly redact: Redactor;
  readonly random?: () => number;
  /** The clock health is judged by; tests move it to skip cooldowns. */
  readonly now?: () => number;
}

export interface Router {
  plan(entry: Alias | CatalogModel, keys: KeySet, needs: readonly Capability[]): Promise<Plan>;
  /** Tries the plan's candidates in order; every attempt is appended to `attempts`, which the caller owns. */
  run<T>(plan: Plan, keys: KeySet, attempt: AttemptFn<T>, callerSignal: AbortSignal, attempts: AttemptLog[]): Promise<Routed<T>>;
}

/** Thrown when the caller disconnected; there is nobody left to answer. */
export class CallerGone extends Error {
  override readonly name = 'CallerGone';
}

function outcomeOf(failure: Failure): Outcome | undefined {
  switch (failure.kind) {
    case 'rate_limited':
      return { kind: 'rate_limited', retryAfterMs: failure.retryAfterMs, reason: failure.reason };
    case 'invalid_key':
      return { kind: 'invalid_key', reason: failure.reason };
    case 'server':
    case 'bad_response':
    case 'timeout':
    case 'connection':
      return { kind: 'failure', reason: failure.reason };
    default:
      // The model, the request or the caller: nothing wrong with the key.
      return undefined;
  }
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

export function createRouter(deps: RouterDeps): Router {
  const { config, health, hashKey, latency, redact } = deps;
  const random = deps.random ?? Math.random;
  const now = deps.now ?? Date.now;

  async function plan(entry: Alias | CatalogModel, keys: KeySet, needs: readonly Capability[]): Promise<Plan> {
    const pinned = !('models' in entry);
    if (pinned) {
      const key = keys.get(entry.provider.id);
      if (key === undefined) {
        throw new HttpError(401, 'authentication_error', `${entry.id} needs the ${entry.provider.header} header.`);
      }
      return {
        target: entry.id,
        pinned,
        candidates: [{ model: entry, key, healthId: hashKey(entry.provider.id, key), tier: 0 }],
        skipped: [],
        retryAfterSeconds: undefined,
      };
    }
    const able = needs.length === 0 ? entry.models : entry.models.filter((model) => hasAll(model, needs));
    const keyed = able.filter((model) => keys.has(model.provider.id));
    if (keyed.length === 0) {
      const what = needs.length === 0 ? entry.id : `${entry.id} with ${needs.join(' and ')}`;
      throw new HttpError(401, 'authentication_error', `No provider key for ${what}. Send one of: ${headerList(able)}.`);
    }
    const healthIds = new Map<string, string>();
    for (const model of keyed) {
      const id = model.provider.id;
      if (!healthIds.has(id)) healthIds.set(id, hashKey(id, keys.get(id) as string));
    }
    const ids = [...healthIds.values()];
    const records = await health.get(ids);
    const at = now();
    const views = new Map(ids.map((id, i) => [id, viewHealth(records[i], at)]));

    const ready: Array<Candidate & { order: number; ms: number }> = [];
    const skipped: string[] = [];
    let retryAfterSeconds: number | undefined;
    keyed.forEach((model, order) => {
      const healthId = healthIds.get(model.provider.id) as string;
      const view = views.get(healthId);
      if (!view || view.tier === 2) {
        if (view && !skipped.some((line) => line.startsWith(`${model.provider.id}:`))) {
          skipped.push(`${model.provider.id}: ${skipReason(view.state, view.retryAfter, view.reason)}`);
          if (view.retryAfter !== undefined) retryAfterSeconds = Math.min(retryAfterSeconds ?? Infinity, view.retryAfter);
        }
        return;
      }
      const ms = config.routing === 'latency' ? latency.get(`${healthId}|${model.spec.id}`) ?? Infinity : 0;
      ready.push({ model, key: keys.get(model.provider.id) as string, healthId, tier: view.tier, order, ms });
    });
    // A half-open key keeps its place: the request that reaches it is its probe.
    ready.sort((a, b) => a.ms - b.ms || a.order - b.order);
    if (config.routing === 'latency' && ready.length > 1 && random() < config.exploreShare) {
      // Keep the estimates of the others fresh: now and then one of them goes first.
      const pick = 1 + Math.floor(random() * (ready.length - 1));
      const [explored] = ready.splice(pick, 1);
      if (explored) ready.unshift(explored);
    }
    return { target: entry.id, pinned, candidates: ready, skipped, retryAfterSeconds };
  }

  async function run<T>(plan: Plan, keys: KeySet, attempt: AttemptFn<T>, callerSignal: AbortSignal, attempts: AttemptLog[]): Promise<Routed<T>> {
    const deadline = Date.now() + config.requestTimeoutMs;
    const reasons: string[] = [];
    // Keys that failed in this request: their other models are not tried.
    const failedKeys = new Set<string>();
    let remaining = plan.candidates;
    let next = 0;
    let failed: Failure | undefined;
    let lastRetryAfterMs: number | undefined;

    while (attempts.length < config.maxAttempts) {
      const candidate = remaining[next++];
      if (!candidate) break;
      if (failedKeys.has(candidate.healthId)) continue;
      if (callerSignal.aborted) throw new CallerGone();
      const left = deadline - Date.now();
      if (left <= 0) {
        reasons.push('request timeout');
        break;
      }
      if (candidate.tier === 1 && !(await health.claimProbe(candidate.healthId, now()))) continue;

      const started = Date.now();
      const controller = new AbortController();
      const onCallerGone = (): void => controller.abort(callerSignal.reason);
      callerSignal.addEventListener('abort', onCallerGone, { once: true });
      let firstOutputAt = 0;
      const onSilence = (): void => controller.abort(new AttemptTimeout(firstOutputAt ? 'stream idle' : 'first token'));
      let timer = setTimeout(onSilence, Math.min(config.firstTokenTimeoutMs, left));
      const control: AttemptControl = {
        signal: controller.signal,
        output() {
          if (firstOutputAt !== 0) {
            timer.refresh();
            return;
          }
          firstOutputAt = Date.now();
          latency.observe(`${candidate.healthId}|${candidate.model.spec.id}`, firstOutputAt - started);
          // After the first token, only silence ends an attempt.
          clearTimeout(timer);
          timer = setTimeout(onSilence, config.streamIdleTimeoutMs);
        },
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        callerSignal.removeEventListener('abort', onCallerGone);
      };
      const fail = async (error: unknown): Promise<Failure> => {
        cleanup();
        const failure = classifyFailure(error, redact, keys.values(), controller.signal.reason);
        const outcome = outcomeOf(failure);
        if (outcome) {
          await health.record(candidate.healthId, outcome, now());
          // The key itself failed: spend the next attempt on another provider
          // rather than on more models behind the same key.
          failedKeys.add(candidate.healthId);
        }
        return failure;
      };

      try {
        const value = await attempt(candidate, control);
        attempts.push({ provider: candidate.model.provider.id, model: candidate.model.spec.id, status: 200, ms: Date.now() - started });
        // Always written: other requests may have recorded failures since this one's plan.
        await health.record(candidate.healthId, { kind: 'success' }, now());
        let finished = false;
        return {
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
        };
      } catch (error) {
        const failure = await fail(error);
        attempts.push({
          provider: candidate.model.provider.id,
          model: candidate.model.spec.id,
          status: failure.status ?? failure.kind,
          ms: Date.now() - started,
        });
        if (failure.kind === 'aborted') throw new CallerGone();
        failed = failure;
        if (failure.retryAfterMs !== undefined) lastRetryAfterMs = failure.retryAfterMs;
        reasons.push(`${candidate.model.provider.id}: ${failure.reason}`);
        if (plan.pinned) break;
        if (failure.kind === 'request') {
          throw invalidRequest(`${candidate.model.provider.id} rejected the request: ${failure.reason}`);
        }
        if (failure.kind === 'context_too_long') {
          const needed = candidate.model.spec.contextWindow;
          remaining = remaining.slice(next).filter((other) => other.model.spec.contextWindow > needed);
          next = 0;
          if (remaining.length === 0) {
            throw invalidRequest(`The request does not fit the context window of any model behind ${plan.target}: ${reasons.join('; ')}`);
          }
        }
      }
    }

    if (plan.pinned && failed) {
      if (failed.kind === 'request' || failed.kind === 'context_too_long') {
        throw invalidRequest(`${plan.candidates[0]?.model.provider.id} rejected the request: ${failed.reason}`);
      }
      throw new HttpError(502, 'freeway_provider_error', `Provider failed: ${reasons.join('; ')}`, retryHeader(lastRetryAfterMs));
    }
    const all = [...reasons, ...plan.skipped];
    const retryMs = lastRetryAfterMs ?? (plan.retryAfterSeconds === undefined ? undefined : plan.retryAfterSeconds * 1000);
    throw new HttpError(
      502,
      'freeway_all_providers_failed',
      `All providers failed: ${all.length > 0 ? all.join('; ') : 'no candidate could be tried'}`,
      retryHeader(retryMs),
    );
  }

  return { plan, run };
}

function retryHeader(ms: number | undefined): Record<string, string> | undefined {
  return ms === undefined ? undefined : { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) };
}
