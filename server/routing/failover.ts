import type { CatalogModel } from '../../catalog/catalog.ts';
import { freewayError, type HttpError } from '../core/errors.ts';
import type { Outcome } from '../state/health.ts';
import type { Failure } from './upstream-errors.ts';

/** Failover policy: what a failure means for the key's health, what is tried next, and what the caller is told. Pure. */

/** What a failure records against the key; undefined when the key is not at fault. */
export function outcomeOf(failure: Failure, noCreditWaitMs: number): Outcome | undefined {
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

export type NextStep = 'next key' | 'next provider' | 'next model';

/** What moving on after a failure means for the rest of the request. */
export function nextStep(kind: Failure['kind']): NextStep {
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

/**
 * A key the provider refused (401/403, or no credit left), in words that say it
 * is not a passing fault: what the provider said, and the header to fix.
 */
export function refusedKey(kind: 'invalid_key' | 'no_credit', reason: string, header: string, position: number, count: number, earlier = false): string {
  const which = count > 1 ? `key ${position} of ${header}` : header;
  const when = earlier ? ' earlier' : '';
  return kind === 'no_credit'
    ? `the provider refused the key${when}: it has no credit left (${reason}): add credit or fix ${which}`
    : `the provider refused the key${when} (${reason}): fix ${which}`;
}

/** A failure as its reason in the 502 message; a refused key says what to fix. */
export function failureReason(failure: Failure, model: CatalogModel, position: number, count: number): string {
  return failure.kind === 'invalid_key' || failure.kind === 'no_credit'
    ? refusedKey(failure.kind, failure.reason, model.provider.header, position, count)
    : failure.reason;
}

/** Why a key was left out of the plan: `rate limited, retry after 30s (429 ...)`. */
export function skipReason(state: string, retryAfter: number | undefined, reason: string | undefined): string {
  const wait = retryAfter === undefined ? '' : `, retry after ${retryAfter}s`;
  const why = reason ? ` (${reason})` : '';
  return `${state.replace('_', ' ')}${wait}${why}`;
}

export const keyName = (provider: string, position: number, count: number): string => (count > 1 ? `${provider} key ${position}` : provider);

/** A failure as the log line may show it: its status and the upstream's error type, nothing the upstream wrote about the request. */
export const loggedFailure = (failure: Failure): string => `${failure.label}${failure.errorType === undefined ? '' : ` ${failure.errorType}`}`;

/** A 400 that passes on what an upstream said of the request; the log line gets the failure's status and type, without the upstream's words. */
export const upstreamRejection = (provider: string, failure: Failure): HttpError =>
  freewayError('FREEWAY_UPSTREAM_REJECTED', { provider, reason: failure.reason }, { logReason: `${provider} rejected the request: ${loggedFailure(failure)}` });

export function retryHeader(ms: number | undefined): Record<string, string> | undefined {
  return ms === undefined ? undefined : { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) };
}

/** The most output tokens to send `model`, when its declared or learned maximum is below the request's budget. */
export function outputCap(model: CatalogModel, budget: number | undefined, learned: number | undefined): number | undefined {
  if (budget === undefined) return undefined;
  const declared = model.spec.maxOutputTokens;
  const limit = declared === undefined ? learned : learned === undefined ? declared : Math.min(declared, learned);
  return limit !== undefined && limit < budget ? limit : undefined;
}

/** What one request's failover has met so far. */
export interface Failures {
  /** `provider[ key n]: reason`, for the caller's message. */
  readonly reasons: string[];
  /** The same, as the log line may show them (see loggedFailure). */
  readonly logged: string[];
  /** Attempts whose provider could not express the request at all. */
  unsupported: number;
  last: Failure | undefined;
  lastRetryAfterMs: number | undefined;
}

export const noFailures = (): Failures => ({ reasons: [], logged: [], unsupported: 0, last: undefined, lastRetryAfterMs: undefined });

/** Notes a failure of `provider`'s key at `position` of `count`; `final` records it as the request's last failure. */
export function noteFailure(failures: Failures, failure: Failure, model: CatalogModel, position: number, count: number, final = true): void {
  const name = keyName(model.provider.id, position, count);
  failures.reasons.push(`${name}: ${final ? failureReason(failure, model, position, count) : failure.reason}`);
  failures.logged.push(`${name}: ${loggedFailure(failure)}`);
  if (!final) return;
  failures.last = failure;
  if (failure.retryAfterMs !== undefined) failures.lastRetryAfterMs = failure.retryAfterMs;
  if (failure.kind === 'unsupported') failures.unsupported += 1;
}

/** The 400 for a request that fits the context window of no model left to try. */
export function contextTooLong(target: string, failures: Failures): HttpError {
  const logReason = `The request does not fit the context window of any model behind ${target}: ${failures.logged.join('; ')}`;
  return freewayError('FREEWAY_CONTEXT_TOO_LONG', { target, reasons: failures.reasons.join('; ') }, { logReason });
}

export interface PlanSummary {
  readonly target: string;
  readonly pinned: boolean;
  /** The pinned model's provider id (the first candidate's). */
  readonly provider: string | undefined;
  readonly skipped: readonly string[];
  readonly retryAfterSeconds: number | undefined;
}

/** The error for a request whose candidates are all spent: a 400 when the request is at fault, else a 502 naming every reason. */
export function exhausted(plan: PlanSummary, failures: Failures, attempts: number): HttpError {
  const failed = failures.last;
  if (failed && failures.unsupported === attempts && plan.skipped.length === 0) {
    // Nobody failed: no candidate could take the request as it is.
    return plan.pinned
      ? freewayError('FREEWAY_PINNED_UNSUPPORTED', { provider: plan.provider ?? '', reason: failed.reason })
      : freewayError('FREEWAY_UNSUPPORTED_REQUEST', { target: plan.target, reasons: failures.reasons.join('; ') });
  }
  if (plan.pinned && failed && (failed.kind === 'request' || failed.kind === 'context_too_long' || failed.kind === 'output_budget')) {
    return upstreamRejection(plan.provider ?? '', failed);
  }
  const all = [...failures.reasons, ...plan.skipped];
  const retryMs = failures.lastRetryAfterMs ?? (plan.retryAfterSeconds === undefined ? undefined : plan.retryAfterSeconds * 1000);
  const headers = retryHeader(retryMs);
  if (plan.pinned) return freewayError('FREEWAY_PROVIDER_FAILED', { reasons: all.join('; ') }, { headers });
  return freewayError('FREEWAY_ALL_PROVIDERS_FAILED', { reasons: all.length > 0 ? all.join('; ') : 'no candidate could be tried' }, { headers });
}
