import type { Redis } from 'ioredis';
import type { HealthPolicy, HealthRecord, HealthStore } from '../health-records.ts';
import { defineScript } from './client.ts';

/*
 * Provider health in Redis, one JSON record per `freeway:health:<provider>:<HMAC>`.
 * The ids come from createKeyHasher: a key, or a plain hash of one, never gets here.
 * Records expire an hour after their last write, or when their wait ends if that
 * is later (a daily quota), as the memory store forgets them.
 * A key pool's round-robin turn is a counter, `freeway:turn:<provider>:<HMAC of the
 * pool's key HMACs>|<model>`, that expires an hour after its last use.
 *
 * The state machine stays in TypeScript (the policy handed in). A change is a
 * compare-and-set: the script writes only if the record is still what the
 * change was computed from, and otherwise answers with what is there now.
 */
const compareAndSetLua = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return {0, current} end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return {1, ''}`;

const nextTurnLua = `
local turn = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return turn`;

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

export function createRedisHealthStore(client: Redis, policy: HealthPolicy, prefix = 'freeway:health:', turnPrefix = 'freeway:turn:'): HealthStore {
  const compareAndSet = defineScript<[0 | 1, string]>(client, 'freewayHealthCompareAndSet', compareAndSetLua);
  const incrementTurn = defineScript<number>(client, 'freewayNextTurn', nextTurnLua);

  /** Applies `change` to the record atomically; `undefined` from `change` means leave it. */
  async function update<T>(id: string, now: number, change: (record: HealthRecord | undefined) => { next?: HealthRecord; result: T }): Promise<T> {
    const key = prefix + id;
    let raw = (await client.get(key)) ?? '';
    for (let attempt = 1; ; attempt++) {
      const { next, result } = change(parse(raw));
      if (next === undefined) return result;
      const [written, current] = await compareAndSet(key, raw, JSON.stringify(next), policy.keepFor(next, now));
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
        // A success forgets the past: one write, no read. The healthy record is kept, so the key shows it answered.
        const next = policy.next(undefined, outcome, now);
        await client.set(prefix + id, JSON.stringify(next), 'PX', policy.keepFor(next, now));
        return next;
      }
      return update(id, now, (record) => {
        const next = policy.next(record, outcome, now);
        return { next, result: next };
      });
    },
    async claimProbe(id, now) {
      return update(id, now, (record) => {
        const { claimed, next } = policy.claimProbe(record, now);
        return { next, result: claimed };
      });
    },
    async nextTurn(id) {
      return (await incrementTurn(turnPrefix + id, policy.forgetAfterMs)) - 1;
    },
    async close() {},
  };
}
