import { isIP, isIPv4 } from 'node:net';
import type { Request, RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { errorBody, type ErrorBodyFormat } from './errors.ts';
import { createSlidingWindowStore } from '../state/sliding-window-store.ts';

/** Longest bucket key: an IPv6 address written out in full with an IPv4 tail (45 characters). */
export const MAX_CLIENT_KEY_LENGTH = 45;

/**
 * An address as a rate-limit bucket key, or undefined when it is not an IP
 * address. IPv4-mapped IPv6 (`::ffff:203.0.113.7`) is the IPv4 address, IPv6
 * is lower-cased without a zone, so one client has one bucket however a proxy
 * wrote its address.
 */
export function bucketKey(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return undefined;
  const zone = address.indexOf('%');
  let key = (zone === -1 ? address : address.slice(0, zone)).toLowerCase();
  if (key.startsWith('::ffff:') && isIPv4(key.slice(7))) key = key.slice(7);
  return key.length <= MAX_CLIENT_KEY_LENGTH ? key : undefined;
}

/**
 * The client a request counts against, as Express's `trust proxy` sees it:
 * the nearest address in the X-Forwarded-For chain that is not a trusted
 * proxy (req.ips); X-Real-IP when a trusted peer sent it without
 * X-Forwarded-For; else the socket's address. A forwarded value that is not
 * an IP address is never a key: the nearer address that reported it is.
 */
export function clientIp(req: Request): string {
  const socketAddress = req.socket.remoteAddress;
  // Furthest first, ending with the nearest proxy; empty unless the socket's peer is trusted.
  const chain = req.ips;
  for (const address of chain) {
    const key = bucketKey(address);
    if (key !== undefined) return key;
  }
  if (chain.length === 0 && req.headers['x-forwarded-for'] === undefined && socketAddress !== undefined) {
    const real = req.headers['x-real-ip'];
    const trusted = req.app.get('trust proxy fn') as (address: string, hop: number) => boolean;
    if (typeof real === 'string' && trusted(socketAddress, 0)) {
      const key = bucketKey(real.trim());
      if (key !== undefined) return key;
    }
  }
  return bucketKey(socketAddress) ?? 'unknown';
}

export interface RateLimitOptions {
  readonly max: number;
  readonly windowMs: number;
  readonly store?: Store;
  /** Told of every refusal (the metrics count them). */
  readonly onRefused?: () => void;
}

export function createRateLimit({ max, windowMs, store, onRefused }: RateLimitOptions): RequestHandler & { store: Store } {
  const windowStore = store ?? createSlidingWindowStore();
  const middleware = rateLimit({
    windowMs,
    limit: max,
    store: windowStore,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: clientIp,
    // clientIp applies Express's trust proxy setting itself, X-Real-IP included.
    validate: false,
    handler(req, res) {
      const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
      res.setHeader('Retry-After', String(seconds));
      onRefused?.();
      const format = (res.locals.errorBody as ErrorBodyFormat | undefined) ?? errorBody;
      res.status(429).json(format(429, 'rate_limit_error', `Rate limit exceeded. Retry after ${seconds} seconds.`));
    },
  });
  return Object.assign(middleware, { store: windowStore });
}
