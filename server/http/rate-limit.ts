import type { Request, RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { errorBody, type ErrorBodyFormat } from './errors.ts';
import { createSlidingWindowStore } from '../state/sliding-window-store.ts';

/** SPEC.md's client IP: first x-forwarded-for entry, then x-real-ip, then the socket. */
export function clientIp(req: Request): string {
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string' && forwarded !== '') {
    const comma = forwarded.indexOf(',');
    const first = (comma === -1 ? forwarded : forwarded.slice(0, comma)).trim();
    if (first !== '') return first;
  }
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string' && real.trim() !== '') return real.trim();
  return req.socket.remoteAddress ?? 'unknown';
}

export interface RateLimitOptions {
  readonly max: number;
  readonly windowMs: number;
  readonly store?: Store;
}

export function createRateLimit({ max, windowMs, store }: RateLimitOptions): RequestHandler & { store: Store } {
  const windowStore = store ?? createSlidingWindowStore();
  const middleware = rateLimit({
    windowMs,
    limit: max,
    store: windowStore,
    standardHeaders: false,
    legacyHeaders: false,
    keyGenerator: clientIp,
    // Our key generator follows SPEC.md rather than Express's trust-proxy setting.
    validate: false,
    handler(req, res) {
      const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + windowMs) - Date.now()) / 1000));
      res.setHeader('Retry-After', String(seconds));
      const format = (res.locals.errorBody as ErrorBodyFormat | undefined) ?? errorBody;
      res.status(429).json(format(429, 'rate_limit_error', `Rate limit exceeded. Retry after ${seconds} seconds.`));
    },
  });
  return Object.assign(middleware, { store: windowStore });
}
