import type { Request, RequestHandler } from 'express';
import { BlockList, isIP } from 'node:net';
import type { ProviderPlugin } from '../../providers/types.ts';
import { freewayError } from '../core/errors.ts';
import { KEYLESS_HEADER, keylessRequested } from '../core/keyless.ts';
import { ANONYMOUS } from '../core/keys.ts';
import { createSlidingWindowStore } from '../state/sliding-window-store.ts';
import { windowLimit } from './window-limit.ts';

/**
 * Calls without a key spend this instance's address's allowance at the provider, for
 * everyone who uses it. Who may ask for them is the operator's choice (ANONYMOUS), and
 * each client may make only ANONYMOUS_PER_MINUTE of them, so that one caller cannot
 * spend the allowance for everyone.
 */

export interface AnonymousAccessOptions {
  readonly plugins: readonly ProviderPlugin[];
  /** ANONYMOUS: `local` lets callers on loopback and private addresses ask, `on` anyone, `off` nobody. */
  readonly mode: 'off' | 'local' | 'on';
  /** ANONYMOUS_PER_MINUTE. */
  readonly perMinute: number;
  /** The rate limit's client of a request (its address, or its IPv6 prefix). */
  readonly clientOf: (req: Request) => string;
  /** RATE_LIMIT_MAX_CLIENTS: the most clients whose anonymous calls are counted at once. */
  readonly maxClients: number;
}

/** Loopback, private (RFC 1918), link-local and unique local addresses. */
const localRanges = new BlockList();
for (const [network, prefix] of [['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['169.254.0.0', 16]] as const) localRanges.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) localRanges.addSubnet(network, prefix, 'ipv6');

const MAPPED_IPV4 = '::ffff:';

/** Whether a caller's address (as TRUST_PROXY resolves it) is on this machine or its private network. */
export function isLocalAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.toLowerCase().startsWith(MAPPED_IPV4) && isIP(address.slice(MAPPED_IPV4.length)) === 4 ? address.slice(MAPPED_IPV4.length) : address;
  const family = isIP(plain);
  return family !== 0 && localRanges.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}

/** The header of the first plugin with anonymous access that the request asks for it with, if any. */
function anonymousHeader(req: Request, headers: readonly { readonly name: string; readonly header: string }[]): string | undefined {
  for (const { name, header } of headers) {
    const value = req.headers[name];
    if (typeof value === 'string' && value.trim().toLowerCase() === ANONYMOUS) return header;
  }
  return undefined;
}

/**
 * Whether `X-Freeway-Keyless: on` makes a keyless call possible: some provider with anonymous access has no
 * key header in the request. A value other than on or off is left to the key reader, which answers its 400.
 */
function keylessAsked(req: Request, headers: readonly { readonly name: string }[]): boolean {
  let asked: boolean;
  try {
    asked = keylessRequested(req.headers);
  } catch {
    return false;
  }
  return asked && headers.some(({ name }) => typeof req.headers[name] !== 'string' || req.headers[name].trim() === '');
}

/**
 * Whether a request may call a provider without a key: a POST to a route that calls one (chat,
 * Responses, Messages, Gemini's calls, embeddings, transcription). Listings, `/v1/providers` (its
 * `?check=1` calls no one for anonymous access) and token counts, estimated here, call nobody.
 */
function mayCallProvider(req: Request): boolean {
  if (req.method !== 'POST') return false;
  const path = req.path;
  return !path.endsWith('/count_tokens') && !path.endsWith(':countTokens');
}

/** The names of `names` as a sentence's list: `A`, `A and B`, `A, B and C`. */
const listed = (names: readonly string[]): string => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);

/**
 * For a 401 that names the key headers that would serve a request which sent none: the keyless providers among
 * them, when this caller may ask for calls without a key and did not say either way (no X-Freeway-Keyless
 * header). A new user who sends no header learns of the keyless providers from the answer, not only from the README.
 */
export function keylessHint({ plugins, mode }: Pick<AnonymousAccessOptions, 'plugins' | 'mode'>): (req: Request, message: string) => string {
  const keyless = new Map(plugins.filter((plugin) => plugin.anonymous).map((plugin) => [plugin.header, plugin.name]));
  const headerName = KEYLESS_HEADER.toLowerCase();
  return (req, message) => {
    if (keyless.size === 0 || mode === 'off' || req.headers[headerName] !== undefined) return '';
    if (mode === 'local' && !isLocalAddress(req.ip)) return '';
    const names = message.split(/[\s,.]+/).flatMap((word) => keyless.get(word) ?? []);
    return names.length === 0 ? '' : ` Or send \`${KEYLESS_HEADER}: on\` to call ${listed(names)} without a key.`;
  };
}

export function anonymousAccess({ plugins, mode, perMinute, clientOf, maxClients }: AnonymousAccessOptions): RequestHandler {
  const headers = plugins.filter((plugin) => plugin.anonymous).map((plugin) => ({ name: plugin.header.toLowerCase(), header: plugin.header }));
  const limit = windowLimit({
    windowMs: 60_000,
    limit: perMinute,
    store: createSlidingWindowStore(undefined, undefined, maxClients),
    keyOf: clientOf,
    refuse(_req, _res, next, { retryAfterSeconds: seconds }) {
      next(freewayError('FREEWAY_ANONYMOUS_RATE_LIMITED', { seconds, perMinute }, { headers: { 'Retry-After': String(seconds) } }));
    },
  });
  return (req, res, next) => {
    if (headers.length === 0) return next();
    const header = anonymousHeader(req, headers);
    if (header !== undefined) {
      if (mode === 'off') return next(freewayError('FREEWAY_ANONYMOUS_OFF', { header }));
      if (mode === 'local' && !isLocalAddress(req.ip)) return next(freewayError('FREEWAY_ANONYMOUS_NOT_LOCAL', { header }));
      // ANONYMOUS_PER_MINUTE counts calls that may reach a provider, not reads that call no one.
      return mayCallProvider(req) ? limit(req, res, next) : next();
    }
    if (!keylessAsked(req, headers)) return next();
    if (mode === 'off') return next(freewayError('FREEWAY_KEYLESS_OFF', {}));
    if (mode === 'local' && !isLocalAddress(req.ip)) return next(freewayError('FREEWAY_KEYLESS_NOT_LOCAL', {}));
    return mayCallProvider(req) ? limit(req, res, next) : next();
  };
}
