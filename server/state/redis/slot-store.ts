import type { Redis } from 'ioredis';
import type { SlotStore } from '../slots.ts';
import { newLease } from '../slots.ts';
import { defineScript } from './client.ts';

/*
 * Concurrency slots in Redis: one sorted set per key, `freeway:slots:<health id>`, its members
 * the leases, scored by when each expires. Taking a slot drops the expired leases first, so a
 * crashed instance's slots come back on their own; the set itself expires with its last lease.
 */
const takeLua = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

export function createRedisSlotStore(client: Redis, prefix = 'freeway:slots:'): SlotStore {
  const take = defineScript<number>(client, 'freewayTakeSlot', takeLua, 1);
  return {
    async take(id, limit, leaseMs) {
      const at = Date.now();
      const lease = newLease();
      return (await take(prefix + id, at, limit, at + leaseMs, lease, leaseMs)) === 1 ? lease : undefined;
    },
    async renew(id, lease, leaseMs) {
      await client.zadd(prefix + id, 'XX', Date.now() + leaseMs, lease);
      await client.pexpire(prefix + id, leaseMs);
    },
    async give(id, lease) {
      await client.zrem(prefix + id, lease);
    },
    async close() {},
  };
}
