import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { dropPastBound } from '../state/bounded-map.ts';

/** What a refusal is told: when the client may try again. */
export interface WindowInfo {
  /** Whole seconds, at least 1, until the oldest counted request leaves the window. */
  readonly retryAfterSeconds: number;
}

export interface WindowLimitOptions {
  readonly windowMs: number;
  /** Requests a client may make in any window of `windowMs`. */
  readonly limit: number;
  /** Where the windows are kept: this process's memory, the cluster primary or Redis (the store interface of express-rate-limit). */
  readonly store: Store;
  /** The client a request counts against. */
  readonly keyOf: (req: Request) => string;
  /**
   * The policy's name in the IETF RateLimit headers, as draft 8 writes them
   * (`RateLimit: "freeway"; r=99; t=60`); no headers when absent.
   */
  readonly policy?: string;
  /** Answers a request past the limit. */
  readonly refuse: (req: Request, res: Response, next: NextFunction, info: WindowInfo) => void;
}

/** Partition keys written at most; a client past it has its key hashed again. */
const MAX_PARTITION_KEYS = 10_000;

/**
 * A request limit per client over a sliding window: each request is counted in
 * the store, and one past the limit is refused. A store that answers at once
 * (this process's memory) costs no turn of the event loop; the shared stores'
 * promises are awaited. A store that fails passes its error on (the shared
 * stores fail open themselves, `state/stores.ts`).
 */
export function windowLimit({ windowMs, limit, store, keyOf, policy, refuse }: WindowLimitOptions): RequestHandler {
  store.init?.({ windowMs, limit } as Options);
  const windowSeconds = Math.ceil(windowMs / 1000);
  // The policy's partition key (`pk`) names the client without showing its address: a hash, written once per client.
  const partitionKeys = new Map<string, string>();
  const partitionKey = (key: string): string => {
    let written = partitionKeys.get(key);
    if (written === undefined) {
      written = Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
      partitionKeys.set(key, written);
      dropPastBound(partitionKeys, MAX_PARTITION_KEYS);
    }
    return written;
  };

  /** Writes the RateLimit headers; the client's standing when this request is past the limit, else undefined. */
  const verdict = (res: Response, key: string, hits: ClientRateLimitInfo): WindowInfo | undefined => {
    const remaining = Math.max(limit - hits.totalHits, 0);
    if (policy !== undefined && !res.headersSent) {
      const resetSeconds = hits.resetTime ? Math.max(0, Math.ceil((hits.resetTime.getTime() - Date.now()) / 1000)) : windowSeconds;
      res.setHeader('RateLimit', `"${policy}"; r=${remaining}; t=${resetSeconds}`);
      res.setHeader('RateLimit-Policy', `"${policy}"; q=${limit}; w=${windowSeconds}; pk=:${partitionKey(key)}:`);
    }
    if (hits.totalHits <= limit) return undefined;
    const resetAt = hits.resetTime?.getTime() ?? Date.now() + windowMs;
    return { retryAfterSeconds: Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)) };
  };
  const settle = (req: Request, res: Response, next: NextFunction, refused: WindowInfo | undefined): void => {
    if (refused) refuse(req, res, next, refused);
    else next();
  };

  return (req, res, next) => {
    const key = keyOf(req);
    let hits: ClientRateLimitInfo | Promise<ClientRateLimitInfo>;
    try {
      hits = store.increment(key);
    } catch (error) {
      next(error);
      return;
    }
    if (hits instanceof Promise) hits.then((answered) => settle(req, res, next, verdict(res, key, answered)), next);
    else settle(req, res, next, verdict(res, key, hits));
  };
}
