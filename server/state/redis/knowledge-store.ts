import type { Redis } from 'ioredis';
import { MAX_FIELDS, type KnowledgeStore } from '../knowledge.ts';
import { defineScript } from './client.ts';

/*
 * Model lists, listing locks and quarantines in Redis under `freeway:models:<id>`,
 * where an id holds a provider id and a key's HMAC (createKeyHasher), never a key
 * or a plain hash of one. Every entry expires.
 */
const setFieldLua = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('HLEN', KEYS[1]) > tonumber(ARGV[4]) then
  local first = redis.call('HKEYS', KEYS[1])[1]
  if first ~= ARGV[1] then redis.call('HDEL', KEYS[1], first) end
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`;

export function createRedisKnowledgeStore(client: Redis, prefix = 'freeway:models:'): KnowledgeStore {
  const setField = defineScript<number>(client, 'freewaySetModelField', setFieldLua);
  return {
    outlivesProcess: true,
    async get(ids) {
      if (ids.length === 0) return [];
      const raws = await client.mget(ids.map((id) => prefix + id));
      return raws.map((raw) => raw ?? undefined);
    },
    async set(id, value, ttlMs) {
      await client.set(prefix + id, value, 'PX', ttlMs);
    },
    async claim(id, ttlMs) {
      return (await client.set(prefix + id, '1', 'PX', ttlMs, 'NX')) === 'OK';
    },
    async fields(ids) {
      if (ids.length === 0) return [];
      const pipeline = client.pipeline();
      for (const id of ids) pipeline.hgetall(prefix + id);
      const results = (await pipeline.exec()) ?? [];
      return results.map(([error, value]) => {
        if (error) throw error;
        const fields = value as Record<string, string> | null;
        return fields && Object.keys(fields).length > 0 ? fields : undefined;
      });
    },
    async setField(id, field, value, ttlMs) {
      await setField(prefix + id, field, value, ttlMs, MAX_FIELDS);
    },
    async close() {},
  };
}
