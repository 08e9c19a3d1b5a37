import type { CatalogModel } from '../../catalog/catalog.ts';
import { freewayError, type HttpError } from '../core/errors.ts';
import type { Outcome } from '../state/health-records.ts';
import type { Lesson } from '../models/learning.ts';
import { BeforeRequest, type Failure, type FailureKind } from './upstream-errors.ts';

/**
 * Failover policy, in one place: what a failed attempt records, what the request
 * tries next, and what the caller is told. `failoverTable` is the policy as data
 * (docs/routing.md's failover table is written from it, and
 * test/routing/failover-golden.test.ts pins it); `decide` reads it for one
 * failure, and the router carries out what it decides. Pure.
 */

/** What the request does after a failed attempt. */
export type Step =
  /** The alias's next model, with the keys not yet spent. */
  | { readonly kind: 'next model' }
  /** The next model of another provider: this provider's other models would most likely meet the same fault. */
  | { readonly kind: 'next provider' }
  /** The same model with the provider's next key, if the header carried one; else the next model. */
  | { readonly kind: 'next key' }
  /** The same model and key once more, with the output budget lowered to the model's stated maximum. */
  | { readonly kind: 'lower budget'; readonly maxOutputTokens: number }
  /** The next model whose context window is larger than this one's; a 400 when none is left. */
  | { readonly kind: 'larger window' }
  /** The request ends with this error: a 400, a bug's 500, or nobody left to answer (`CallerGone`). */
  | { readonly kind: 'reject'; readonly error: unknown }
  /** Nothing more is tried: the request ends with what it met (`exhausted`). */
  | { readonly kind: 'stop' };

export type StepKind = Step['kind'];

/** What a failure leaves behind for later requests (models/learning.ts keeps it); the failure's reason goes with it. */
export type FailureRecord = Omit<Lesson, 'reason'>;

export interface Decision {
  readonly step: Step;
  readonly record: FailureRecord;
}

/** One row of the policy: for one kind of failure, what is recorded and what comes next, for an alias and for a pinned model. */
export interface PolicyRow {
  /** The failure in words. */
  readonly failure: string;
  /** What the key's health records; absent: nothing, the key is not at fault. */
  readonly health?: Exclude<Outcome['kind'], 'success'>;
  /** Besides health: the model is quarantined, its output maximum learnt, or the key's per-request limit for it. */
  readonly learns?: 'quarantine' | 'output limit' | 'request limit';
  readonly alias: StepKind;
  readonly pinned: StepKind;
  /** For a conditional step (`lower budget`): what comes next when its condition does not hold. */
  readonly otherwise?: { readonly alias: StepKind; readonly pinned: StepKind };
}

/** The failover policy: every kind of failure, and what it means. */
export const failoverTable: { readonly [Kind in FailureKind]: PolicyRow } = {
  rate_limited: { failure: '429, or a quota error the provider documents', health: 'rate_limited', alias: 'next key', pinned: 'next key' },
  invalid_key: { failure: '401 or 403: the key is wrong, revoked or not allowed', health: 'invalid_key', alias: 'next key', pinned: 'next key' },
  no_credit: { failure: '402, or a documented "credit exhausted"', health: 'no_credit', alias: 'next key', pinned: 'next key' },
  server: { failure: '5xx and other upstream faults', health: 'failure', alias: 'next provider', pinned: 'stop' },
  bad_response: { failure: 'an answer that is not the provider\'s API (or more than MAX_RESPONSE_BYTES)', health: 'failure', alias: 'next provider', pinned: 'stop' },
  timeout: { failure: 'no first token within FIRST_TOKEN_TIMEOUT_MS, or STREAM_IDLE_TIMEOUT_MS of silence', health: 'failure', alias: 'next provider', pinned: 'stop' },
  connection: { failure: 'no connection, or the connection broke', health: 'failure', alias: 'next provider', pinned: 'stop' },
  unsupported: { failure: 'the provider\'s mapping cannot express the request (nothing was sent)', alias: 'next provider', pinned: 'stop' },
  model_unavailable: { failure: '404 or 410: the provider does not serve the model (any more)', learns: 'quarantine', alias: 'next model', pinned: 'stop' },
  context_too_long: { failure: 'the request does not fit the model\'s context window', alias: 'larger window', pinned: 'stop' },
  output_budget: {
    failure: 'the output budget is above the model\'s maximum',
    learns: 'output limit',
    alias: 'lower budget',
    pinned: 'lower budget',
    otherwise: { alias: 'next model', pinned: 'stop' },
  },
  request_too_large: {
    failure: "the request is larger than the key's per-request token budget for the model (Groq's 413 on tokens per minute)",
    learns: 'request limit',
    alias: 'next key',
    pinned: 'next key',
  },
  request: { failure: 'the request itself is wrong: any provider would refuse it', alias: 'reject', pinned: 'reject' },
  deadline: { failure: 'REQUEST_TIMEOUT_MS or STREAM_MAX_DURATION_MS ran out while the upstream was answering', alias: 'stop', pinned: 'stop' },
  internal: { failure: 'a bug of Freeway\'s, before anything was sent', alias: 'reject', pinned: 'reject' },
  aborted: { failure: 'the caller went away', alias: 'reject', pinned: 'reject' },
};

/** Thrown when the caller disconnected; there is nobody left to answer. */
export class CallerGone extends Error {
  override readonly name = 'CallerGone';
}

/** Everything a decision is made from. */
export interface FailureContext {
  readonly failure: Failure;
  /** What the attempt threw, for a `reject` that passes it on (a bug's own error). */
  readonly thrown: unknown;
  readonly pinned: boolean;
  /** The failed model's provider id, for the caller's message. */
  readonly provider: string;
  /** The output budget the attempt sent, if it sent one. */
  readonly budgetSent: number | undefined;
  /** Whether the attempt was already the retry with a lowered budget. */
  readonly budgetLowered: boolean;
  readonly attemptsLeft: number;
  readonly msLeft: number;
  /** NO_CREDIT_WAIT_MS, for a `no_credit` record. */
  readonly noCreditWaitMs: number;
}

/** What a failure records against the key: the row's health outcome, with what the failure says. */
function healthOutcome(row: PolicyRow, failure: Failure, noCreditWaitMs: number): Outcome | undefined {
  const { reason } = failure;
  // A shared store (Redis) keeps only this: the status or Freeway's label, and the provider's error type.
  const shared = loggedFailure(failure);
  switch (row.health) {
    case undefined:
      return undefined;
    case 'rate_limited':
      return { kind: 'rate_limited', retryAfterMs: failure.retryAfterMs, reason, shared };
    case 'no_credit':
      return { kind: 'no_credit', reason, shared, waitMs: noCreditWaitMs };
    case 'invalid_key':
    case 'failure':
      return { kind: row.health, reason, shared };
  }
}

function recordOf(row: PolicyRow, context: FailureContext): FailureRecord {
  const { failure } = context;
  const health = healthOutcome(row, failure, context.noCreditWaitMs);
  // A 404 "no endpoint supports what you asked" is about the request, not the model.
  const quarantine = row.learns === 'quarantine' && !failure.aboutRequest ? (failure.status === 410 ? 'provider' : 'key') : undefined;
  const outputLimit = row.learns === 'output limit' ? failure.maxOutputTokens : undefined;
  const requestLimit = row.learns === 'request limit' ? failure.requestLimit : undefined;
  return {
    ...(health && { health }),
    ...(quarantine && { quarantine }),
    ...(outputLimit !== undefined && { outputLimit }),
    ...(requestLimit !== undefined && { requestLimit }),
  };
}

/** The error a `reject` ends the request with. */
function rejection(context: FailureContext): unknown {
  switch (context.failure.kind) {
    case 'aborted':
      return new CallerGone();
    case 'internal':
      // A bug of ours: a 500 with the error logged, not a provider failure.
      return context.thrown instanceof BeforeRequest ? context.thrown.error : context.thrown;
    default:
      return upstreamRejection(context.provider, context.failure);
  }
}

/** Whether a refused budget can be tried again: a stated maximum below what was sent, on a first try, with an attempt and time left. */
function canLowerBudget(context: FailureContext): number | undefined {
  const limit = context.failure.maxOutputTokens;
  const sent = context.budgetSent;
  if (limit === undefined || sent === undefined || limit >= sent || context.budgetLowered) return undefined;
  return context.attemptsLeft > 0 && context.msLeft > 0 ? limit : undefined;
}

function stepOf(kind: StepKind, context: FailureContext): Step {
  switch (kind) {
    case 'reject':
      return { kind, error: rejection(context) };
    case 'lower budget': {
      const limit = canLowerBudget(context);
      if (limit !== undefined) return { kind, maxOutputTokens: limit };
      const row = failoverTable[context.failure.kind];
      const otherwise = (context.pinned ? row.otherwise?.pinned : row.otherwise?.alias) ?? 'stop';
      return stepOf(otherwise, context);
    }
    default:
      return { kind };
  }
}

/** The policy for one failure: what to record, and what the request does next. Total: every failure kind has its row. */
export function decide(context: FailureContext): Decision {
  const row = failoverTable[context.failure.kind];
  return { step: stepOf(context.pinned ? row.pinned : row.alias, context), record: recordOf(row, context) };
}

/** How a refused key is named: `key 2 of X-Groq-Key` for a key of a pool, else the header. */
export interface RefusedKey {
  readonly kind: 'invalid_key' | 'no_credit';
  /** What the provider said. */
  readonly reason: string;
  readonly header: string;
  readonly position: number;
  readonly count: number;
  /** Refused by an earlier request (the key is being skipped), not by this one. */
  readonly earlier?: boolean;
}

/**
 * A key the provider refused (401/403, or no credit left), in words that say it
 * is not a passing fault: what the provider said, and the header to fix.
 */
export function refusedKey({ kind, reason, header, position, count, earlier = false }: RefusedKey): string {
  const which = count > 1 ? `key ${position} of ${header}` : header;
  const when = earlier ? ' earlier' : '';
  return kind === 'no_credit'
    ? `the provider refused the key${when}: it has no credit left (${reason}): add credit or fix ${which}`
    : `the provider refused the key${when} (${reason}): fix ${which}`;
}

/** A failure as its reason in the 502 message; a refused key says what to fix. */
export function failureReason(failure: Failure, model: CatalogModel, position: number, count: number): string {
  return failure.kind === 'invalid_key' || failure.kind === 'no_credit'
    ? refusedKey({ kind: failure.kind, reason: failure.reason, header: model.provider.header, position, count })
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

/** One failed attempt, as the request's failures note it. */
export interface NotedFailure {
  readonly failure: Failure;
  readonly model: CatalogModel;
  /** The key's position in its header, and how many keys the header carried. */
  readonly position: number;
  readonly count: number;
  /**
   * False for a first try that is tried again (a refused output budget): its reason is
   * named, but the retry decides the request's outcome.
   */
  readonly final: boolean;
}

export function noteFailure(failures: Failures, { failure, model, position, count, final }: NotedFailure): void {
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

/** Whether every candidate tried failed to connect and none was skipped: the network, not the providers. */
const noneReached = (reasons: readonly string[], skipped: readonly string[]): boolean => skipped.length === 0 && reasons.length > 0 && reasons.every((reason) => reason.includes(': connection error'));

/** The error for a request whose candidates are all spent: a 400 when the request is at fault, else a 502 naming every reason. */
export function exhausted(plan: PlanSummary, failures: Failures, attempts: number): HttpError {
  const failed = failures.last;
  if (failed && failures.unsupported === attempts && plan.skipped.length === 0) {
    // Nobody failed: no candidate could take the request as it is.
    return plan.pinned
      ? freewayError('FREEWAY_PINNED_UNSUPPORTED', { provider: plan.provider ?? '', reason: failed.reason })
      : freewayError('FREEWAY_UNSUPPORTED_REQUEST', { target: plan.target, reasons: failures.reasons.join('; ') });
  }
  if (plan.pinned && failed && (failed.kind === 'request' || failed.kind === 'context_too_long' || failed.kind === 'output_budget' || failed.kind === 'request_too_large')) {
    return upstreamRejection(plan.provider ?? '', failed);
  }
  const all = [...failures.reasons, ...plan.skipped];
  const retryMs = failures.lastRetryAfterMs ?? (plan.retryAfterSeconds === undefined ? undefined : plan.retryAfterSeconds * 1000);
  const headers = retryHeader(retryMs);
  if (plan.pinned) return freewayError('FREEWAY_PROVIDER_FAILED', { reasons: all.join('; ') }, { headers });
  const reasons = all.length > 0 ? all.join('; ') : 'no candidate could be tried';
  return freewayError('FREEWAY_ALL_PROVIDERS_FAILED', { reasons: noneReached(failures.reasons, plan.skipped) ? `${reasons}. No provider could be reached from this machine: check its network and DNS` : reasons }, { headers });
}
