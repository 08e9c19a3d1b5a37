import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderPlugin } from '../../providers/types.ts';
import { HttpError } from '../http/errors.ts';

/** Provider id -> the caller's key, for the providers whose header was sent. Lives only for the request. */
export type KeySet = ReadonlyMap<string, string>;

export interface KeyReader {
  (headers: IncomingHttpHeaders): KeySet;
}

/** Builds the per-request key reader; header names are lower-cased once, here. */
export function createKeyReader(plugins: readonly ProviderPlugin[]): KeyReader {
  const lookups = plugins.map((plugin) => ({ plugin, header: plugin.header.toLowerCase() }));
  return (headers) => {
    const keys = new Map<string, string>();
    for (const { plugin, header } of lookups) {
      const raw = headers[header];
      if (typeof raw !== 'string') continue;
      const value = raw.trim();
      if (value === '') continue;
      const problem = plugin.checkKey?.(value);
      if (problem) throw new HttpError(400, 'invalid_request_error', problem);
      keys.set(plugin.id, value);
    }
    return keys;
  };
}
