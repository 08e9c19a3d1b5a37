import { APICallError } from '@ai-sdk/provider';
import type { FetchFunction, ProviderPlugin } from '../../../providers/types.ts';
import type { Redactor } from '../../core/redact.ts';
import type { KeyCheckResult } from '../../state/key-checks.ts';
import { classifyFailure } from '../../routing/index.ts';
import { authHeadersFor } from '../../core/keys.ts';

/** The most of an error answer read to classify it. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;

export interface KeyCheckAnswer {
  readonly result: KeyCheckResult;
  /** Redacted; absent for `valid`. */
  readonly reason?: string;
  /** For `rate_limited`: how long the provider asked to wait, when it said. */
  readonly retryAfterMs?: number;
}

/** The URL a key is checked with: the plugin's key check, else its listing's first page; undefined when it has neither. */
export function checkUrl(plugin: ProviderPlugin, baseURL: string, key: string): string | undefined {
  if (plugin.keyCheck) return plugin.keyCheck.url(baseURL, key);
  if (plugin.listing) return plugin.listing.url(baseURL, key);
  return undefined;
}

async function readSome(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, maxBytes);
}

/**
 * One documented call that needs a valid key and costs no chat quota, read with
 * the plugin's error table: 2xx is `valid`; what routing would call `invalid_key`,
 * `no_credit` (a 402 too) or `rate_limited` is that; anything else is `failed`.
 */
export interface KeyCheckCall {
  readonly plugin: ProviderPlugin;
  /** The plugin's key check or listing URL, under the provider's base URL. */
  readonly url: string;
  readonly key: string;
  readonly fetch: FetchFunction;
  /** Aborted when KEY_CHECK_TIMEOUT_MS runs out. */
  readonly signal: AbortSignal;
  readonly redact: Redactor;
}

export async function checkOneKey({ plugin, url, key, fetch, signal, redact }: KeyCheckCall): Promise<KeyCheckAnswer> {
  const keys = new Map([[plugin.id, key]]);
  let response: Response;
  try {
    response = await fetch(url, { method: 'GET', headers: { accept: 'application/json', ...authHeadersFor(plugin, key) }, signal });
  } catch (error) {
    return { result: 'failed', reason: signal.aborted ? 'timeout' : redact(`connection error: ${error instanceof Error ? error.message : String(error)}`, keys) };
  }
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel().catch(() => {});
    return { result: 'valid' };
  }
  let body: string;
  try {
    body = await readSome(response, MAX_ERROR_BODY_BYTES);
  } catch {
    return { result: 'failed', reason: signal.aborted ? 'timeout' : 'connection error' };
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const error = new APICallError({ message: messageOf(body), url, requestBodyValues: {}, statusCode: response.status, responseHeaders: headers, responseBody: body });
  const failure = classifyFailure(error, { redact, keys, rules: plugin.errorRules });
  switch (failure.kind) {
    case 'invalid_key':
      return { result: 'invalid_key', reason: failure.reason };
    case 'no_credit':
      return { result: 'no_credit', reason: failure.reason };
    case 'rate_limited':
      // Routing reads a bare 402 as "out of quota for now"; for a key check it says the key has no credit.
      if (response.status === 402) return { result: 'no_credit', reason: failure.reason };
      return failure.retryAfterMs === undefined ? { result: 'rate_limited', reason: failure.reason } : { result: 'rate_limited', reason: failure.reason, retryAfterMs: failure.retryAfterMs };
    default:
      return { result: 'failed', reason: failure.reason };
  }
}

/** The message of an OpenAI- or Google-style error body, else the body. */
function messageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: the body itself
  }
  return body;
}
