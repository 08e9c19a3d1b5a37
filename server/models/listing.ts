import type { FetchFunction, ListedModel, ProviderPlugin } from '../../providers/types.ts';
import { matchingRule } from '../../providers/error-rules.ts';
import { authHeadersFor } from '../core/keys.ts';

/** What one model listing with one key came to. */
export type ListingResult =
  | { readonly ok: true; readonly models: readonly ListedModel[] }
  | {
      readonly ok: false;
      /** For logs and /v1/models: never holds the key or the listing's URL (Gemini's carries the key). */
      readonly reason: string;
      /** The provider read the key as invalid (401/403, or the plugin's error table says so). */
      readonly invalidKey: boolean;
    };

export interface ListingLimits {
  /** One page, from the request to the last byte (MODELS_LISTING_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** One page's body (MODELS_LISTING_MAX_BYTES). */
  readonly maxBytes: number;
  /** Pages of one listing (MODELS_LISTING_MAX_PAGES). */
  readonly maxPages: number;
}

/** The most models one listing may hold; a provider that lists more is not believed. */
export const MAX_LISTED_MODELS = 5_000;
/** The most of an error answer read to classify it. */
const MAX_ERROR_BYTES = 16 * 1024;
/** A model id Freeway takes from a listing: printable ASCII without space or comma, at most 200 characters. */
const modelIdShape = /^[\x21-\x2b\x2d-\x7e]{1,200}$/;

class ListingFailed extends Error {
  readonly invalidKey: boolean;
  constructor(message: string, invalidKey = false) {
    super(message);
    this.invalidKey = invalidKey;
  }
}

/** The body as text, refused past `maxBytes`. */
async function readCapped(response: Response, maxBytes: number, what: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ListingFailed(what);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function classifyRefusal(plugin: ProviderPlugin, status: number, body: string): ListingFailed {
  const rule = matchingRule(plugin.errorRules, status, body);
  const kind = rule ? rule.kind : status === 401 || status === 403 ? 'invalid_key' : undefined;
  const invalidKey = kind === 'invalid_key';
  return new ListingFailed(invalidKey ? `the listing refused the key (${status})` : `the listing answered ${status}`, invalidKey);
}

/** One listing with one key: where, with what, within which bounds. */
export interface ListingCall {
  /** The provider's base URL, or its `<ID>_BASE_URL` override. */
  readonly baseURL: string;
  readonly key: string;
  readonly fetch: FetchFunction;
  readonly limits: ListingLimits;
  /** Aborts the listing (the process is closing). */
  readonly signal?: AbortSignal;
}

async function fetchPage(plugin: ProviderPlugin, url: string, { key, fetch, limits, signal }: ListingCall): Promise<unknown> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const response = await fetch(url, {
    method: 'GET',
    headers: { accept: 'application/json', ...authHeadersFor(plugin, key) },
    signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    redirect: 'error',
  });
  if (!response.ok) {
    const body = await readCapped(response, MAX_ERROR_BYTES, 'error answer too large').catch(() => '');
    throw classifyRefusal(plugin, response.status, body);
  }
  const text = await readCapped(response, limits.maxBytes, `the listing is larger than MODELS_LISTING_MAX_BYTES (${limits.maxBytes} bytes)`);
  try {
    return JSON.parse(text);
  } catch {
    throw new ListingFailed('the listing is not JSON');
  }
}

/**
 * Lists the models `key` can use, page by page, as the plugin's `listing` reads
 * them. Whatever goes wrong comes back as a failure: the caller keeps what it knew.
 */
export async function fetchListing(plugin: ProviderPlugin, call: ListingCall): Promise<ListingResult> {
  const { baseURL, key, limits } = call;
  const listing = plugin.listing;
  if (!listing) return { ok: false, reason: 'the provider has no listing', invalidKey: false };
  const models: ListedModel[] = [];
  const seen = new Set<string>();
  try {
    let page: string | undefined;
    for (let pages = 0; ; pages++) {
      if (pages === limits.maxPages) throw new ListingFailed(`the listing has more than MODELS_LISTING_MAX_PAGES (${limits.maxPages}) pages`);
      const body = await fetchPage(plugin, listing.url(baseURL, key, page), call);
      let read;
      try {
        read = listing.read(body);
      } catch {
        throw new ListingFailed('the listing is not in the documented shape');
      }
      for (const model of read.models) {
        if (!modelIdShape.test(model.id)) throw new ListingFailed('the listing holds a model id that is not printable ASCII without spaces or commas, or is longer than 200 characters');
        if (seen.has(model.id)) continue;
        seen.add(model.id);
        models.push(model);
        if (models.length > MAX_LISTED_MODELS) throw new ListingFailed(`the listing holds more than ${MAX_LISTED_MODELS} models`);
      }
      if (read.next === undefined || read.next === '' || read.next === page) break;
      page = read.next;
    }
  } catch (error) {
    if (error instanceof ListingFailed) return { ok: false, reason: error.message, invalidKey: error.invalidKey };
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { ok: false, reason: timedOut ? `the listing took longer than MODELS_LISTING_TIMEOUT_MS (${limits.timeoutMs} ms)` : 'the listing could not be reached', invalidKey: false };
  }
  return { ok: true, models };
}
