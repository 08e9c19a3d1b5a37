import type { Redis } from 'ioredis';
import type { StickyStore } from '../conversation-models.ts';
import { defineScript, dropPastBoundLua } from './client.ts';

/*
 * Conversations' models in Redis under `freeway:sticky:<HMAC>`, each expiring STICKY_TTL_MS after
 * the conversation's last answer, and an index (a sorted set by last use) that holds them to
 * STICKY_MAX_ENTRIES: past it the least recently used are dropped. The ids are HMACs under
 * KEY_HASH_SECRET, the values catalog model ids: no content and no plain hash.
 */
const setLua = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], KEYS[1])${dropPastBoundLua('KEYS[2]', 'ARGV[4]')}
return 1`;

export function createRedisStickyStore(client: Redis, maxEntries: number, prefix = 'freeway:sticky:'): StickyStore {
  const set = defineScript<number>(client, 'freewaySetSticky', setLua, 2);
  const index = `${prefix}index`;
  return {
    async get(conversation) {
      return (await client.get(prefix + conversation)) ?? undefined;
    },
    async set(conversation, model, ttlMs) {
      await set(prefix + conversation, index, model, ttlMs, Date.now(), maxEntries);
    },
    async close() {},
  };
}
