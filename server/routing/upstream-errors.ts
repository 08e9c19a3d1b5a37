import { APICallError, InvalidPromptError, UnsupportedFunctionalityError } from '@ai-sdk/provider';
import type { ErrorRule, UpstreamErrorKind } from '../../providers/types.ts';
import { matchingRule } from '../../providers/error-rules.ts';
import type { Redactor, RequestKeys } from '../core/redact.ts';
import { detachedString } from '../core/detached-string.ts';

/**
 * Why an attempt at one provider did not produce an answer: what a plugin's error
 * rules can say of an upstream answer (`UpstreamErrorKind`), and what only Freeway sees.
 */
export type FailureKind =
  | UpstreamErrorKind
  | 'bad_response' // the upstream answered something that is not its API
  | 'timeout'
  | 'connection'
  | 'deadline' // REQUEST_TIMEOUT_MS or STREAM_MAX_DURATION_MS ran out while the upstream was still answering
  | 'unsupported' // this provider's mapping cannot express the request; another provider may
  | 'internal' // a bug of ours, raised before anything was sent upstream
  | 'aborted'; // the caller went away

export interface Failure {
  readonly kind: FailureKind;
  readonly status: number | undefined;
  /** The attempt's outcome in X-Freeway-Attempts and the log: `429`, `timeout`, `200 then bad stream`. */
  readonly label: number | string;
  /** Redacted, at most ~300 characters: `429 Rate limit reached`, `timeout`, `connection error`. */
  readonly reason: string;
  readonly retryAfterMs: number | undefined;
  /** For `output_budget`: the most output tokens the model takes, when the upstream said. */
  readonly maxOutputTokens?: number;
  /** For `request_too_large`: the most tokens one request may hold with this key and model, when the upstream said. */
  readonly requestLimit?: number;
  /**
   * For `model_unavailable`: the answer is about the request, not the model (OpenRouter's "No endpoints
   * found that support tool use" or "... matching your data policy"), so the model is not quarantined.
   */
  readonly aboutRequest?: boolean;
  /** The error type (or status, or code) of the upstream's JSON error body, when it has one that reads as a word: `invalid_request_error`, `INVALID_ARGUMENT`. */
  readonly errorType?: string;
}

const errorWord = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/**
 * The upstream error body's type, for a log line that must not quote the
 * message: `error.type`, else `error.status` (Google), else a string
 * `error.code`, else a top-level `type`; only a word, never free text.
 */
function upstreamErrorType(body: string): string | undefined {
  if (body === '' || body.length > 65_536 || body.trimStart()[0] !== '{') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const top = parsed as { error?: { type?: unknown; status?: unknown; code?: unknown }; type?: unknown };
  const error = typeof top.error === 'object' && top.error !== null ? top.error : undefined;
  for (const candidate of [error?.type, error?.status, error?.code, top.type]) {
    if (typeof candidate === 'string' && errorWord.test(candidate)) return candidate;
  }
  return undefined;
}

/** "No endpoints found" for what the request asks, not for the model. */
const aboutTheRequest = /no endpoints found (?:that|matching)|data policy/i;

const MAX_REASON_LENGTH = 300;

/** Thrown into an attempt's AbortController when a Freeway timer (not the caller) ends it. */
export class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
}

/**
 * Thrown into an attempt's AbortController when the whole request or stream ran
 * out of time while the upstream was still answering: a bound of Freeway's, not
 * the upstream's silence, so the key's health is left alone.
 */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
  /** `request timeout` or `stream max duration`; the message says which setting and its value. */
  readonly label: string;
  constructor(label: string, message: string) {
    super(message);
    this.label = label;
  }
}

/** Wraps what an attempt threw before any HTTP request left for the upstream. */
export class BeforeRequest extends Error {
  override readonly name = 'BeforeRequest';
  readonly error: unknown;
  constructor(error: unknown) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
    this.error = error;
  }
}

/** The upstream answered more than MAX_RESPONSE_BYTES for a caller that did not stream. */
export class ResponseTooLarge extends Error {
  override readonly name = 'ResponseTooLarge';
}

export const AFTER_OK = '200 then bad stream';

const contextTooLong = /context[ _-]?(length|window)|maximum context|too many tokens|prompt is too long|reduce the length|input is too long|exceeds the (maximum|max)/i;
const modelUnavailable = /model.*(not found|does not exist|decommissioned|deprecated|not supported|unavailable|no endpoints|not available)|(unknown|invalid) model|no endpoints found/i;
/**
 * A refused output budget: the field, then what is wrong with its value. Groq: "`max_tokens` must be
 * less than or equal to `32768`"; OpenAI and OpenAI-compatible servers: "max_tokens is too large: 8192.
 * This model supports at most 4096 completion tokens"; vLLM: "'max_tokens' or 'max_completion_tokens'
 * is too large: 64000. This model's maximum context length is ..."; "`max_completion_tokens` ... integer
 * above maximum value, expected a value <= 12288"; Gemini: "maxOutputTokens value of 128000 but the
 * supported range is from 1 (inclusive) to 65537 (exclusive)". Tested before the context-length
 * pattern, as some of these name the context window too.
 */
const outputBudget =
  /\b(?:max_tokens|max_completion_tokens|max_output_tokens|max_new_tokens|maxOutputTokens|max_tokens_to_sample)\b[^.]*?(?:must be (?:less than or equal to|<=|at most|less than|lower than|smaller than|between)|is too (?:large|high|big)|cannot exceed|must not exceed|exceeds the (?:maximum|max|limit)|above (?:the )?maximum|greater than the maximum|supported range)/i;
/** The maximum a refused budget message states (not the value that was asked for). */
const statedMaximum = /(?:less than or equal to|<=|at most|cannot exceed|must not exceed|maximum (?:value|allowed) (?:is|of))\s*[`'"]?(\d{1,9})\b|between \d+ and (\d{1,9})\b|to (\d{1,9}) \(exclusive\)/i;
const quota = /quota|rate.?limit|resource.?exhausted|too many requests/i;
/**
 * A request larger than a per-minute token budget can ever hold (Groq: "Request too large for model `x` ... on
 * tokens per minute (TPM): Limit 8000, Requested 34041, please reduce your message size"): about the request,
 * not a spent quota. Tested before the quota pattern, which its `rate_limit_exceeded` code would match.
 */
const requestTooLarge = /request too large\b[^]*?tokens per minute|on tokens per minute \(TPM\): Limit \d+, Requested/i;
/** The limit such an answer states. */
const statedRequestLimit = /\bLimit (\d{1,9}),/;
const retryInText = /(?:retry|try again) (?:in|after) (\d+(?:\.\d+)?)\s*(ms|s|sec|seconds?|m|min|minutes?)?\b|"retryDelay":\s*"(\d+(?:\.\d+)?)s"/i;

/** A reason fit to keep in a health record for an hour: one line, at most MAX_REASON_LENGTH characters, holding nothing of the body it came from. */
function shortReason(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return detachedString(flat.length > MAX_REASON_LENGTH ? `${flat.slice(0, MAX_REASON_LENGTH - 1)}…` : flat);
}

/** Retry-After as a delay: seconds, an HTTP date, or OpenAI-style `retry-after-ms`. */
function retryAfterFromHeaders(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers['retry-after'];
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function retryAfterFromText(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const match = retryInText.exec(text);
  if (!match) return undefined;
  if (match[3]) return Number(match[3]) * 1000;
  const value = Number(match[1]);
  const unit = (match[2] ?? 's').toLowerCase();
  if (unit === 'ms') return value;
  if (unit.startsWith('m')) return value * 60_000;
  return value * 1000;
}

function kindOfStatus(status: number, text: string): FailureKind {
  // Payment Required: a trial or credit that ran out does not come back by itself.
  if (status === 402) return 'no_credit';
  if (status === 401 || status === 403) return quota.test(text) ? 'rate_limited' : 'invalid_key';
  // 410 Gone: the provider retired the model.
  if (status === 404 || status === 410) return 'model_unavailable';
  if (status === 400 || status === 413 || status === 422 || status === 429) {
    if (requestTooLarge.test(text)) return 'request_too_large';
  }
  if (status === 429) return 'rate_limited';
  if (status === 400 || status === 413 || status === 422) {
    if (outputBudget.test(text)) return 'output_budget';
    if (contextTooLong.test(text)) return 'context_too_long';
    if (modelUnavailable.test(text)) return 'model_unavailable';
    if (quota.test(text)) return 'rate_limited';
    return 'request';
  }
  return 'server';
}

/** The per-request token limit a `request_too_large` answer states, if it states one. */
function limitIn(text: string): number | undefined {
  const match = statedRequestLimit.exec(text);
  const limit = match ? Number(match[1]) : undefined;
  return limit !== undefined && Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}

/** The output limit a refused budget message states, if it states one. */
export function statedOutputLimit(text: string): number | undefined {
  const match = statedMaximum.exec(text);
  if (!match) return undefined;
  const limit = match[3] !== undefined ? Number(match[3]) - 1 : Number(match[1] ?? match[2]);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}

function isAbort(error: unknown): error is Error {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** What a failure is read with besides the error itself. */
export interface ClassifyOptions {
  /** Redacts the request's keys from the reason. */
  readonly redact: Redactor;
  readonly keys: RequestKeys;
  /** The attempt signal's abort reason, which tells a Freeway timeout from the caller going away. */
  readonly signalReason?: unknown;
  /** The provider's documented error answers, tried before the generic reading. */
  readonly rules?: readonly ErrorRule[];
  readonly now?: number;
}

/** A failure with the reason redacted and cut to one short line. */
interface FailureFields {
  readonly kind: FailureKind;
  readonly label: number | string;
  readonly reason: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly maxOutputTokens?: number;
}

/** A system error code as Node names it (`ENOTFOUND`, `ECONNREFUSED`, `UND_ERR_SOCKET`): no text of the answer, no address. */
const systemCode = /^[A-Z][A-Z0-9_]{2,31}$/;

/** Codes of a failed name lookup: no network, no DNS. */
const lookupCodes = new Set(['ENOTFOUND', 'EAI_AGAIN']);

/**
 * `connection error`, with the system's code when the error's causes carry one, and what it means in words:
 * `connection error (ENOTFOUND): this machine could not look the provider up` (no network, DNS, a proxy),
 * `connection error (ECONNREFUSED): this machine could not reach the provider` (nothing listens where
 * `<ID>_BASE_URL` points, or a firewall). No part of the answer or address is quoted.
 */
function connectionReason(error: unknown): string {
  let at: unknown = error;
  for (let depth = 0; depth < 4 && at instanceof Error; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && systemCode.test(code)) {
      return `connection error (${code}): this machine could not ${lookupCodes.has(code) ? 'look the provider up' : 'reach the provider'}`;
    }
    at = at.cause;
  }
  return 'connection error: this machine could not reach the provider';
}

/** Any error an AI SDK model call can throw -> what happened, for routing, health and the caller's message. */
export function classifyFailure(error: unknown, { redact, keys, signalReason, rules = [], now = Date.now() }: ClassifyOptions): Failure {
  const failure = ({ kind, label, reason, status, retryAfterMs, maxOutputTokens }: FailureFields): Failure => {
    const made: Failure = { kind, status, label, reason: shortReason(redact(reason, keys)), retryAfterMs };
    return maxOutputTokens === undefined ? made : { ...made, maxOutputTokens };
  };
  if (signalReason instanceof DeadlineExceeded) return failure({ kind: 'deadline', label: signalReason.label, reason: signalReason.message });
  if (signalReason instanceof AttemptTimeout) return failure({ kind: 'timeout', label: 'timeout', reason: 'timeout' });
  if (signalReason !== undefined || isAbort(error)) return failure({ kind: 'aborted', label: 'aborted', reason: 'aborted' });
  if (error instanceof BeforeRequest) {
    // Nothing reached the provider: whatever went wrong says nothing about its key.
    const inner = error.error;
    const message = inner instanceof Error ? inner.message : String(inner);
    if (UnsupportedFunctionalityError.isInstance(inner) || InvalidPromptError.isInstance(inner)) {
      return failure({ kind: 'unsupported', label: 'unsupported', reason: `cannot take this request: ${message}` });
    }
    return failure({ kind: 'internal', label: 'internal error', reason: `internal error: ${message}` });
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === undefined) return failure({ kind: 'connection', label: 'connection', reason: connectionReason(error) });
    if (status >= 200 && status < 300) {
      // The AI SDK's "Failed to process successful response": say what was wrong with it.
      const cause = error.cause instanceof Error ? error.cause.message : error.message;
      return failure({ kind: 'bad_response', label: AFTER_OK, reason: `${AFTER_OK}: ${cause}`, status });
    }
    const message = error.message || error.responseBody || '';
    const body = error.responseBody ?? '';
    const headers = error.responseHeaders ?? {};
    const rule = matchingRule(rules, status, body || message);
    const kind = rule ? rule.kind : kindOfStatus(status, `${message} ${body}`);
    let retryAfterMs: number | undefined;
    if (kind === 'rate_limited') {
      const at = rule?.retryAt?.({ status, headers, body }, now);
      retryAfterMs =
        at !== undefined
          ? Math.max(0, at - now)
          : retryAfterFromHeaders(headers, now) ?? retryAfterFromText(body) ?? retryAfterFromText(message);
    }
    let maxOutputTokens: number | undefined;
    if (kind === 'output_budget') {
      maxOutputTokens = rule?.maxOutputTokens?.({ status, headers, body }) ?? statedOutputLimit(body || message) ?? statedOutputLimit(message);
    }
    const text = looksLikeHtml(message) ? 'non-JSON error page' : message;
    const made = failure({ kind, label: status, reason: `${status} ${text}`, status, retryAfterMs, maxOutputTokens });
    if (kind === 'request_too_large') {
      const limit = rule?.requestLimit?.({ status, headers, body }) ?? limitIn(body || message) ?? limitIn(message);
      if (limit !== undefined) return { ...made, requestLimit: limit };
    }
    const classified = kind === 'model_unavailable' && aboutTheRequest.test(`${message} ${body}`) ? { ...made, aboutRequest: true } : made;
    if (status < 400 || status >= 500) return classified;
    const errorType = upstreamErrorType(body);
    return errorType === undefined ? classified : { ...classified, errorType };
  }
  if (error instanceof TypeError && /fetch failed|terminated|socket|ECONN|network/i.test(error.message)) {
    return failure({ kind: 'connection', label: 'connection', reason: connectionReason(error) });
  }
  const event = errorEventMessage(error);
  if (event !== undefined) {
    // An error event in an answer that had started with HTTP 200 (`data: {"error": {...}}`).
    const kind = quota.test(event) ? 'rate_limited' : 'server';
    return failure({ kind, label: '200 then error event', reason: `error event: ${event}`, retryAfterMs: kind === 'rate_limited' ? retryAfterFromText(event) : undefined });
  }
  const message = error instanceof Error ? error.message : String(error);
  return failure({ kind: 'bad_response', label: AFTER_OK, reason: `${AFTER_OK}: ${message}` });
}

/** The message of an upstream's error event, which the AI SDK passes on as the plain object it parsed. */
function errorEventMessage(error: unknown): string | undefined {
  if (error === null || typeof error !== 'object' || error instanceof Error) {
    return typeof error === 'string' && error !== '' ? error : undefined;
  }
  const body = error as { message?: unknown; error?: unknown };
  if (typeof body.message === 'string') return body.message;
  if (typeof body.error === 'string') return body.error;
  if (body.error !== null && typeof body.error === 'object') return errorEventMessage(body.error);
  try {
    return JSON.stringify(error).slice(0, MAX_REASON_LENGTH);
  } catch {
    return undefined;
  }
}

function looksLikeHtml(text: string): boolean {
  const start = text.trimStart().slice(0, 15).toLowerCase();
  return start.startsWith('<!doctype') || start.startsWith('<html');
}
