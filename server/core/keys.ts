import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderPlugin } from '../../providers/types.ts';

/** One provider's keys, in the order of its header: one or more, at most MAX_KEYS_PER_HEADER (http/key-headers.ts). */
export type KeyPool = readonly string[];

/** Provider id -> the caller's keys, for the providers whose header was sent. Lives only for the request. */
export type KeySet = ReadonlyMap<string, KeyPool>;

/** Reads a request's key headers (http/key-headers.ts makes one). */
export interface KeyReader {
  (headers: IncomingHttpHeaders): KeySet;
}

/**
 * The header value that asks a provider which documents calls without a key for one
 * (`X-Ovhcloud-Key: anonymous`, in any letter case). It stands in a KeyPool as the only
 * entry, and is a marker, not a key: never hashed (its health id is `provider:anonymous`),
 * never redacted from messages, never sent upstream.
 */
export const ANONYMOUS = 'anonymous';

export const isAnonymous = (key: string): boolean => key === ANONYMOUS;

/** The headers that authenticate one upstream call: the plugin's for a key, none for a call without one. */
export const authHeadersFor = (plugin: Pick<ProviderPlugin, 'authHeaders'>, key: string): Record<string, string> => (isAnonymous(key) ? {} : plugin.authHeaders(key));
