import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Warn } from '../warn-every.ts';

export interface RedisClientOptions {
  /** A command without a reply within this time fails, and Freeway carries on without Redis for it. */
  readonly commandTimeoutMs?: number;
}

/**
 * A Redis connection that never holds a request up: while it is down every
 * command fails at once (no offline queue, nothing resent) and the callers
 * fall back; it keeps reconnecting in the background, from start on.
 */
export function connectRedis(url: string, logger: Logger, warn: Warn, options: RedisClientOptions = {}): Redis {
  // Loaded only when REDIS_URL is set: it is ~65 ms of start-up that everyone else need not pay.
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    // In-flight commands fail when the connection drops instead of waiting for a reconnect.
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    connectionName: 'freeway',
  });
  let wasReady = false;
  let lost = false;
  client.on('error', (error: Error) => warn('redis', 'Redis unavailable; serving without it until it is back', error));
  client.on('ready', () => {
    if (lost) logger.info('Redis connection back: rate limits and health are shared again');
    else if (!wasReady) logger.info('Redis connected: rate limits and health are shared');
    wasReady = true;
    lost = false;
  });
  client.on('close', () => {
    if (wasReady && !lost) warn('redis', 'Redis connection lost; serving without it until it is back');
    lost = wasReady;
  });
  client.connect().catch(() => {
    // Reported through 'error'; the client keeps retrying on its own.
  });
  return client;
}

export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // fall through
    }
  }
  client.disconnect();
}

export type ScriptCall<T> = (key: string, ...args: Array<string | number>) => Promise<T>;

/**
 * A Lua script, sent once and then run by its SHA (ioredis resends it after a
 * Redis restart). Its first `numberOfKeys` arguments are KEYS, the rest ARGV.
 */
export function defineScript<T>(client: Redis, name: string, lua: string, numberOfKeys = 1): ScriptCall<T> {
  client.defineCommand(name, { numberOfKeys, lua });
  const command = (client as unknown as Record<string, ScriptCall<T>>)[name];
  if (!command) throw new Error(`ioredis did not define ${name}`);
  return (key, ...args) => command.call(client, key, ...args);
}

/**
 * Lua lines that hold a sorted-set index to a bound: past `max` entries the lowest-scored (least recently
 * used) are popped and the keys they name deleted. `index` and `max` are Lua expressions (`KEYS[2]`, `ARGV[4]`).
 */
export const dropPastBoundLua = (index: string, max: string): string => `
local over = redis.call('ZCARD', ${index}) - tonumber(${max})
if over > 0 then
  local dropped = redis.call('ZPOPMIN', ${index}, over)
  for i = 1, #dropped, 2 do redis.call('DEL', dropped[i]) end
end`;
