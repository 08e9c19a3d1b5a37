import type { IncomingHttpHeaders } from 'node:http';

/** One provider's keys, in the order of its header: one or more, at most MAX_KEYS_PER_HEADER (routing/keys.ts). */
export type KeyPool = readonly string[];

/** Provider id -> the caller's keys, for the providers whose header was sent. Lives only for the request. */
export type KeySet = ReadonlyMap<string, KeyPool>;

/** Reads a request's key headers (routing/keys.ts makes one). */
export interface KeyReader {
  (headers: IncomingHttpHeaders): KeySet;
}
