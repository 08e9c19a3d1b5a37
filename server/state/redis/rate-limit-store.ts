import { randomBytes } from 'node:crypto';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { boundedKey } from '../sliding-window-store.ts';
import { defineScript } from './client.ts';

/*
 * The in-memory sliding window (state/sliding-window-store.ts), in Redis:
 * one sorted set per client whose scores are the times of its accepted
 * requests. A request is accepted when fewer than `limit` members are newer
 * than `now - window`; refused requests are not added. The set expires one
 * window after its newest member, when nothing in it counts any more.
 *
 * As in memory, at most `maxClients` clients are kept: a sorted set of clients
 * by the time they were last seen (`<prefix>~clients`) finds the least recently
 * seen, whose window is deleted. Its name is built inside the script, which a
 * single Redis (what Freeway connects to) allows.
 *
 * KEYS: the client's window, the clients index.
 * ARGV: now (ms; empty = Redis's clock, which all instances share), window ms,
 * limit, a member tag unique to this request, max clients, key prefix, client.
 * Reply: {hits, resetTime} where hits is limit + 1 when refused, as in memory.
 */
const nowLua = `
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window = tonumber(ARGV[2])`;

const incrementLua = `${nowLua}
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local hits = redis.call('ZCARD', KEYS[1])
if hits < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
end
hits = hits + 1
-- The clients index: client -> time last seen. Clients not seen for a window have
-- no window left; past the cap, the least recently seen lose theirs.
redis.call('ZADD', KEYS[2], now, ARGV[7])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
redis.call('PEXPIRE', KEYS[2], window)
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if excess > 0 then
  local evicted = redis.call('ZPOPMIN', KEYS[2], excess)
  for i = 1, #evicted, 2 do redis.call('DEL', ARGV[6] .. evicted[i]) end
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
if oldest then return {hits, tonumber(oldest) + window} end
return {hits, now + window}`;

const getLua = `${nowLua}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
if oldest then return {redis.call('ZCARD', KEYS[1]), tonumber(oldest) + window} end
return {0, now + window}`;

export interface RedisRateLimitOptions {
  readonly prefix?: string;
  /** Most clients with a window at once (RATE_LIMIT_MAX_CLIENTS). */
  readonly maxClients?: number;
  /** For tests: a clock instead of Redis's own. */
  readonly now?: () => number;
}

/** express-rate-limit's Store on Redis. Errors reach the caller; `failOpen` (stores.ts) decides what they mean. */
export function createRedisRateLimitStore(client: Redis, options: RedisRateLimitOptions = {}): Store {
  const prefix = options.prefix ?? 'freeway:rl:';
  const clientsKey = `${prefix}~clients`;
  const maxClients = options.maxClients ?? 100_000;
  const increment = defineScript<[number, number]>(client, 'freewayRateLimitIncrement', incrementLua, 2);
  const get = defineScript<[number, number] | null>(client, 'freewayRateLimitGet', getLua);
  const clock = options.now;
  // Members must be unique even for two hits in the same millisecond from different instances.
  const tag = randomBytes(6).toString('base64url');
  let sequence = 0;
  let windowMs = 60_000;
  let limit = 100;

  return {
    localKeys: false,
    prefix,
    init(init: Options) {
      windowMs = init.windowMs;
      limit = typeof init.limit === 'number' ? init.limit : limit;
    },
    async get(key: string): Promise<ClientRateLimitInfo | undefined> {
      const reply = await get(prefix + boundedKey(key), clock ? clock() : '', windowMs);
      return reply ? { totalHits: reply[0], resetTime: new Date(reply[1]) } : undefined;
    },
    async increment(rawKey: string): Promise<ClientRateLimitInfo> {
      const key = boundedKey(rawKey);
      sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
      const [totalHits, resetTime] = await increment(prefix + key, clientsKey, clock ? clock() : '', windowMs, limit, tag + sequence, maxClients, prefix, key);
      return { totalHits, resetTime: new Date(resetTime) };
    },
    async decrement(key: string) {
      // The newest hit goes, as in memory.
      await client.zpopmax(prefix + boundedKey(key));
    },
    async resetKey(rawKey: string) {
      const key = boundedKey(rawKey);
      await client.multi().del(prefix + key).zrem(clientsKey, key).exec();
    },
    async resetAll() {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length > 0) await client.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    },
  };
}
