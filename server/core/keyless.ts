import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderPlugin } from '../../providers/types.ts';
import { freewayError } from './errors.ts';
import { ANONYMOUS, type KeyPool } from './keys.ts';

/**
 * `X-Freeway-Keyless: on` asks every provider that documents calls without a key for them, as if
 * each got its own `anonymous` marker; a provider whose key header the request carries keeps the key.
 * `off` (or no header) asks nothing. Any other value is a 400 naming the header.
 */
export const KEYLESS_HEADER = 'X-Freeway-Keyless';

const keylessName = KEYLESS_HEADER.toLowerCase();

/** Whether a request asks for keyless calls with the header; undefined when it does not send it; a 400 for another value. */
export function keylessRequested(headers: IncomingHttpHeaders): boolean {
  const raw = headers[keylessName];
  if (raw === undefined) return false;
  const value = (Array.isArray(raw) ? raw.join(',') : raw).trim().toLowerCase();
  if (value === 'on') return true;
  if (value === 'off' || value === '') return false;
  throw freewayError('FREEWAY_INVALID_KEY_HEADER', { problem: `${KEYLESS_HEADER} must be \`on\` or \`off\`.` });
}

/** Adds the `anonymous` marker for every keyless provider the request sent no key header for, when the header asks. */
export function addKeylessPools(headers: IncomingHttpHeaders, plugins: readonly ProviderPlugin[], keys: Map<string, KeyPool>): void {
  if (!keylessRequested(headers)) return;
  for (const plugin of plugins) if (plugin.anonymous && !keys.has(plugin.id)) keys.set(plugin.id, [ANONYMOUS]);
}
