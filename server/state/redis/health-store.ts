import type { Redis } from 'ioredis';
import { HEALTH_TIMINGS, nextHealth, type HealthRecord, type HealthStore } from '../../routing/health.ts';
import { defineScript } from './client.ts';

/*
 * Provider health in Redis, one JSON record per `freeway:health:<provider>:<HMAC>`.
 * The ids come from createKeyHasher: a key, or a plain hash of one, never gets here.
 * Records expire an hour after their last write, as the memory store forgets them.
 *
 * The state machine stays in TypeScript (health.ts). A change is a
 * compare-and-set: the script writes only if the record is still what the
 * change was computed from, and otherwise answers with what is there now.
 */
const compareAndSetLua = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return {0, current} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return {1, ''}`;

const maxTries = 8;

function parse(raw: string | null | undefined): HealthRecord | undefined {
  if (!raw) return undefined;
  try {
    const record = JSON.parse(raw) as HealthRecord;
    return typeof record === 'object' && record !== null && typeof record.state === 'string' ? record : undefined;
  } catch {
    return undefined;
  }
}

export function createRedisHealthStore(client: Redis, prefix = 'freeway:health:'): HealthStore {
  const compareAndSet = defineScript<[0 | 1, string]>(client, 'freewayHealthCompareAndSet', compareAndSetLua);

  /** Applies `change` to the record atomically; `undefined` from `change` means leave it. */
  async function update<T>(id: string, change: (record: HealthRecord | undefined) => { next?: HealthRecord; result: T }): Promise<T> {
    const key = prefix + id;
    let raw = (await client.get(key)) ?? '';
    for (let attempt = 1; ; attempt++) {
      const { next, result } = change(parse(raw));
      if (next === undefined) return result;
      const [written, current] = await compareAndSet(key, raw, JSON.stringify(next), HEALTH_TIMINGS.forgetAfterMs);
      if (written === 1) return result;
      if (attempt === maxTries) throw new Error('health record kept changing under concurrent writers');
      raw = current;
    }
  }

  return {
    async get(ids) {
      if (ids.length === 0) return [];
      const raws = await client.mget(ids.map((id) => prefix + id));
      return raws.map(parse);
    },
    async record(id, outcome, now) {
      if (outcome.kind === 'success') {
        // A success forgets the past, and an empty record means the same as none: one DEL, no read.
        await client.del(prefix + id);
        return nextHealth(undefined, outcome, now);
      }
      return update(id, (record) => {
        const next = nextHealth(record, outcome, now);
        return { next, result: next };
      });
    },
    async claimProbe(id, now) {
      return update(id, (record) => {
        if (!record || record.state !== 'down' || record.until > now) return { result: true };
        if (record.probeUntil > now) return { result: false };
        return { next: { ...record, probeUntil: now + HEALTH_TIMINGS.probeTimeoutMs }, result: true };
      });
    },
    async close() {},
  };
}
