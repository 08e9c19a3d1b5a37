import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { detachedString } from './detached-string.ts';

/**
 * The times of one client's accepted requests inside the window, oldest first,
 * in a ring buffer that grows on demand up to the limit.
 */
interface Log {
  /** A plain array of doubles: for the many clients with one or two hits, a fraction of a typed array's size. */
  times: number[];
  start: number;
  count: number;
}

export interface SlidingWindowStore extends Store {
  /** Number of clients currently tracked (for tests and metrics). */
  readonly size: number;
}

/** Longest key kept as it is; longer ones are cut (the rate limit's keys are IPv4 addresses and IPv6 addresses or prefixes, at most 39 characters). */
export const MAX_STORE_KEY_LENGTH = 64;

/** A key cut to MAX_STORE_KEY_LENGTH, copied so that the window does not keep the long key alive. */
export const boundedKey = (key: string): string => (key.length > MAX_STORE_KEY_LENGTH ? detachedString(key.slice(0, MAX_STORE_KEY_LENGTH)) : key);

/**
 * A true sliding window for express-rate-limit: a request is accepted when
 * fewer than `limit` requests were accepted in the last `windowMs`. Refused
 * requests are not logged, so a client that keeps retrying is let in again as
 * soon as its oldest request leaves the window. Stale clients are dropped
 * every `cleanupEveryMs` (5 minutes), and at most `maxClients` are kept: a
 * new client past that evicts the least recently seen one, which starts
 * afresh if it comes back.
 */
export function createSlidingWindowStore(cleanupEveryMs = 300_000, now: () => number = Date.now, maxClients = 100_000): SlidingWindowStore {
  // In order of last use (a Map keeps insertion order): the first entry is the least recently seen.
  const logs = new Map<string, Log>();
  let windowMs = 60_000;
  let limit = 100;
  let cleanup: NodeJS.Timeout | undefined;

  function drop(log: Log, cutoff: number): void {
    while (log.count > 0 && (log.times[log.start] as number) <= cutoff) {
      log.start = (log.start + 1) % log.times.length;
      log.count -= 1;
    }
  }

  function push(log: Log, time: number): void {
    if (log.count === log.times.length) {
      // Full: put the ring in order, then grow by one (count never passes the limit).
      if (log.start !== 0) {
        const ordered: number[] = [];
        for (let i = 0; i < log.count; i++) ordered.push(log.times[(log.start + i) % log.times.length] as number);
        log.times = ordered;
        log.start = 0;
      }
      log.times.push(time);
    } else {
      log.times[(log.start + log.count) % log.times.length] = time;
    }
    log.count += 1;
  }

  const resetTime = (log: Log): Date =>
    new Date(log.count === 0 ? now() + windowMs : (log.times[log.start] as number) + windowMs);

  return {
    localKeys: true,
    get size() {
      return logs.size;
    },
    init(options: Options) {
      windowMs = options.windowMs;
      limit = typeof options.limit === 'number' ? options.limit : limit;
      clearInterval(cleanup);
      cleanup = setInterval(() => {
        const cutoff = now() - windowMs;
        for (const [key, log] of logs) {
          drop(log, cutoff);
          if (log.count === 0) logs.delete(key);
        }
      }, cleanupEveryMs);
      cleanup.unref();
    },
    get(key: string): ClientRateLimitInfo | undefined {
      const log = logs.get(boundedKey(key));
      if (!log) return undefined;
      drop(log, now() - windowMs);
      return { totalHits: log.count, resetTime: resetTime(log) };
    },
    increment(rawKey: string): ClientRateLimitInfo {
      const key = boundedKey(rawKey);
      const time = now();
      const log = logs.get(key);
      if (!log) {
        if (logs.size >= maxClients) {
          const oldest = logs.keys().next();
          if (!oldest.done) logs.delete(oldest.value);
        }
        // A literal of one: an array grown from [] by push would reserve room for 17.
        const first: Log = { times: [time], start: 0, count: 1 };
        logs.set(key, first);
        return { totalHits: 1, resetTime: resetTime(first) };
      }
      logs.delete(key);
      drop(log, time - windowMs);
      // Reinserted last: the most recently seen.
      logs.set(key, log);
      if (log.count >= limit) return { totalHits: log.count + 1, resetTime: resetTime(log) };
      push(log, time);
      return { totalHits: log.count, resetTime: resetTime(log) };
    },
    decrement(key: string) {
      const log = logs.get(boundedKey(key));
      if (log && log.count > 0) log.count -= 1;
    },
    resetKey(key: string) {
      logs.delete(boundedKey(key));
    },
    resetAll() {
      logs.clear();
    },
    shutdown() {
      clearInterval(cleanup);
      logs.clear();
    },
  };
}
