import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { detachedString } from '../core/detached-string.ts';
import { dropPastBound } from './bounded-map.ts';

/**
 * The times of one client's accepted requests inside the window, oldest first,
 * in a ring buffer that doubles on demand up to the limit.
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
 * A true sliding window (express-rate-limit's store interface): a request is accepted when
 * fewer than `limit` requests were accepted in the last `windowMs`. Refused
 * requests are not logged, so a client that keeps retrying is let in again as
 * soon as its oldest request leaves the window. Stale clients are dropped
 * every `cleanupEveryMs` (5 minutes), and at most `maxClients` are kept: a
 * new client past that evicts the least recently seen one, which starts
 * afresh if it comes back.
 *
 * Most clients in a window have made one request (and a flood of new
 * addresses is nothing else), so such a client is only its key and a number:
 * the time of that request, in ms since the store was made (a small integer,
 * which V8 keeps inside the map entry rather than as an object of its own).
 * A client's second request in the window gives it a Log. At 100,000 clients
 * this is about half the memory, and a flood that evicts clients leaves half
 * the garbage for V8 to collect.
 */
export function createSlidingWindowStore(cleanupEveryMs = 300_000, now: () => number = Date.now, maxClients = 100_000): SlidingWindowStore {
  // In order of last use (a Map keeps insertion order): the first entry is the least recently seen.
  // A number is a client with one request, at that many ms after `epoch`.
  const clients = new Map<string, number | Log>();
  const epoch = now();
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
    if (log.count === log.times.length) grow(log);
    log.times[(log.start + log.count) % log.times.length] = time;
    log.count += 1;
  }

  /**
   * A full ring doubles (up to the limit), in order: a client whose rate keeps
   * rising costs one copy per doubling, not a copy of its whole window per request.
   */
  function grow(log: Log): void {
    const capacity = Math.min(Math.max(limit, log.count + 1), log.count * 2);
    const grown: number[] = [];
    for (let i = 0; i < log.count; i++) grown.push(log.times[(log.start + i) % log.times.length] as number);
    while (grown.length < capacity) grown.push(0);
    log.times = grown;
    log.start = 0;
  }

  const resetTime = (log: Log): Date =>
    new Date(log.count === 0 ? now() + windowMs : (log.times[log.start] as number) + windowMs);

  /** Hits in the window and when the oldest leaves it, for either kind of entry. */
  function info(entry: number | Log, time: number): ClientRateLimitInfo {
    if (typeof entry !== 'number') {
      drop(entry, time - windowMs);
      return { totalHits: entry.count, resetTime: resetTime(entry) };
    }
    const at = epoch + entry;
    return at > time - windowMs ? { totalHits: 1, resetTime: new Date(at + windowMs) } : { totalHits: 0, resetTime: new Date(time + windowMs) };
  }

  return {
    localKeys: true,
    get size() {
      return clients.size;
    },
    init(options: Options) {
      windowMs = options.windowMs;
      limit = typeof options.limit === 'number' ? options.limit : limit;
      clearInterval(cleanup);
      cleanup = setInterval(() => {
        const cutoff = now() - windowMs;
        for (const [key, entry] of clients) {
          if (typeof entry === 'number') {
            if (epoch + entry <= cutoff) clients.delete(key);
            continue;
          }
          drop(entry, cutoff);
          if (entry.count === 0) clients.delete(key);
        }
      }, cleanupEveryMs);
      cleanup.unref();
    },
    get(key: string): ClientRateLimitInfo | undefined {
      const entry = clients.get(boundedKey(key));
      return entry === undefined ? undefined : info(entry, now());
    },
    increment(rawKey: string): ClientRateLimitInfo {
      const key = boundedKey(rawKey);
      const time = now();
      const entry = clients.get(key);
      if (entry === undefined) {
        clients.set(key, time - epoch);
        dropPastBound(clients, maxClients);
        return { totalHits: 1, resetTime: new Date(time + windowMs) };
      }
      // Reinserted last: the most recently seen.
      clients.delete(key);
      if (typeof entry === 'number') {
        const at = epoch + entry;
        if (at <= time - windowMs) {
          clients.set(key, time - epoch);
          return { totalHits: 1, resetTime: new Date(time + windowMs) };
        }
        if (limit <= 1) {
          clients.set(key, entry);
          return { totalHits: 2, resetTime: new Date(at + windowMs) };
        }
        // A literal of two: an array grown from [] by push would reserve room for 17.
        clients.set(key, { times: [at, time], start: 0, count: 2 });
        return { totalHits: 2, resetTime: new Date(at + windowMs) };
      }
      drop(entry, time - windowMs);
      clients.set(key, entry);
      if (entry.count >= limit) return { totalHits: entry.count + 1, resetTime: resetTime(entry) };
      push(entry, time);
      return { totalHits: entry.count, resetTime: resetTime(entry) };
    },
    decrement(key: string) {
      const bounded = boundedKey(key);
      const entry = clients.get(bounded);
      if (typeof entry === 'number') clients.delete(bounded);
      else if (entry && entry.count > 0) entry.count -= 1;
    },
    resetKey(key: string) {
      clients.delete(boundedKey(key));
    },
    resetAll() {
      clients.clear();
    },
    shutdown() {
      clearInterval(cleanup);
      clients.clear();
    },
  };
}
