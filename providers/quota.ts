import type { QuotaSnapshot } from './types.ts';

/**
 * How a provider writes the time at which a budget is full again:
 * - `duration`: time from now, Go-style (`2m59.56s`, `7.66s`, `1h30m`, `450ms`) or
 *   bare (fractional) seconds (`33011.38`);
 * - `epoch-ms` / `epoch-s`: the moment itself, as a Unix timestamp.
 */
export type ResetFormat = 'duration' | 'epoch-ms' | 'epoch-s';

/** The lower-case names of one provider's rate-limit headers, as its documentation gives them. */
export interface QuotaHeaderNames {
  readonly remainingRequests?: string;
  readonly remainingTokens?: string;
  readonly requestsReset?: string;
  readonly tokensReset?: string;
  /** The key's token budget of the window (a per-minute budget bounds every single request). */
  readonly limitTokens?: string;
  readonly resetFormat: ResetFormat;
}

/** The family most OpenAI-compatible providers use (OpenAI's own names). */
export const openAIQuotaHeaders: QuotaHeaderNames = {
  remainingRequests: 'x-ratelimit-remaining-requests',
  remainingTokens: 'x-ratelimit-remaining-tokens',
  requestsReset: 'x-ratelimit-reset-requests',
  tokensReset: 'x-ratelimit-reset-tokens',
  limitTokens: 'x-ratelimit-limit-tokens',
  resetFormat: 'duration',
};

const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };
const durationPart = /(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/y;
const plainNumber = /^\d+(?:\.\d+)?$/;

/** A Go-style duration (`2m59.56s`, `1h30m`, `450ms`) or bare seconds, in ms; undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const value = text.trim();
  if (value === '') return undefined;
  if (plainNumber.test(value)) return Number(value) * 1000;
  let total = 0;
  let at = 0;
  while (at < value.length) {
    durationPart.lastIndex = at;
    const match = durationPart.exec(value);
    if (!match) return undefined;
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    at = durationPart.lastIndex;
  }
  return total;
}

/** One reset header's value as the epoch ms at which the budget is full again. */
export function parseReset(value: string | undefined, format: ResetFormat, now: number): number | undefined {
  if (value === undefined) return undefined;
  if (format === 'duration') {
    const ms = parseDuration(value);
    return ms === undefined ? undefined : Math.round(now + ms);
  }
  const text = value.trim();
  if (!plainNumber.test(text)) return undefined;
  const number = Number(text);
  switch (format) {
    case 'epoch-ms':
      return Math.round(number);
    case 'epoch-s':
      return Math.round(number * 1000);
  }
}

function count(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!plainNumber.test(text)) return undefined;
  return Number(text);
}

/** One budget's figures, read from one window's headers. */
function readWindow(headers: Readonly<Record<string, string>>, now: number, names: QuotaHeaderNames): QuotaSnapshot {
  const snapshot: { -readonly [K in keyof QuotaSnapshot]: QuotaSnapshot[K] } = {};
  const remainingRequests = names.remainingRequests === undefined ? undefined : count(headers[names.remainingRequests]);
  const remainingTokens = names.remainingTokens === undefined ? undefined : count(headers[names.remainingTokens]);
  const requestsResetAt = names.requestsReset === undefined ? undefined : parseReset(headers[names.requestsReset], names.resetFormat, now);
  const tokensResetAt = names.tokensReset === undefined ? undefined : parseReset(headers[names.tokensReset], names.resetFormat, now);
  if (remainingRequests !== undefined) snapshot.remainingRequests = remainingRequests;
  if (remainingTokens !== undefined) snapshot.remainingTokens = remainingTokens;
  if (requestsResetAt !== undefined) snapshot.requestsResetAt = requestsResetAt;
  if (tokensResetAt !== undefined) snapshot.tokensResetAt = tokensResetAt;
  return snapshot;
}

/** The scarcer of two readings of one budget: fewer left wins; with as many left, the later reset. */
function scarcer(
  a: { remaining?: number; resetAt?: number },
  b: { remaining?: number; resetAt?: number },
): { remaining?: number; resetAt?: number } {
  if (a.remaining === undefined && a.resetAt === undefined) return b;
  if (b.remaining === undefined && b.resetAt === undefined) return a;
  const left = (x: number | undefined): number => x ?? Infinity;
  if (left(a.remaining) !== left(b.remaining)) return left(a.remaining) < left(b.remaining) ? a : b;
  return (a.resetAt ?? 0) >= (b.resetAt ?? 0) ? a : b;
}

/**
 * Reads one provider's rate-limit headers; undefined when the answer carried none.
 * A provider that reports several windows (per minute and per day) is given as
 * several name sets: each budget is reported as its scarcest window.
 */
export function readQuotaHeaders(
  headers: Readonly<Record<string, string>>,
  now: number,
  windows: QuotaHeaderNames | readonly QuotaHeaderNames[],
): QuotaSnapshot | undefined {
  const list: readonly QuotaHeaderNames[] = Array.isArray(windows) ? windows : [windows as QuotaHeaderNames];
  let requests: { remaining?: number; resetAt?: number } = {};
  let tokens: { remaining?: number; resetAt?: number } = {};
  for (const names of list) {
    const window = readWindow(headers, now, names);
    requests = scarcer(requests, { remaining: window.remainingRequests, resetAt: window.requestsResetAt });
    tokens = scarcer(tokens, { remaining: window.remainingTokens, resetAt: window.tokensResetAt });
  }
  const snapshot: { -readonly [K in keyof QuotaSnapshot]: QuotaSnapshot[K] } = {};
  if (requests.remaining !== undefined) snapshot.remainingRequests = requests.remaining;
  if (tokens.remaining !== undefined) snapshot.remainingTokens = tokens.remaining;
  if (requests.resetAt !== undefined) snapshot.requestsResetAt = requests.resetAt;
  if (tokens.resetAt !== undefined) snapshot.tokensResetAt = tokens.resetAt;
  const limits = list.flatMap((names) => {
    const limit = names.limitTokens === undefined ? undefined : count(headers[names.limitTokens]);
    return limit === undefined || limit <= 0 ? [] : [limit];
  });
  if (limits.length > 0) snapshot.limitTokens = Math.min(...limits);
  return Object.keys(snapshot).length === 0 ? undefined : snapshot;
}

/** A plugin's `readQuota` from its documented header names (one set per window it reports). */
export function quotaReader(
  windows: QuotaHeaderNames | readonly QuotaHeaderNames[],
): (headers: Readonly<Record<string, string>>, now: number) => QuotaSnapshot | undefined {
  return (headers, now) => readQuotaHeaders(headers, now, windows);
}
