import type { Redis } from 'ioredis';
import { BUDGET_WINDOW_MS, KEY_CHECK_KEEP_MS, type KeyCheckRecord, type KeyCheckStore } from '../key-checks.ts';
import { defineScript } from './client.ts';

/*
 * Key checks in Redis: `freeway:check:<provider>:<HMAC>` holds the last answer
 * for an hour; `freeway:checkclaim:<provider>:<HMAC>` exists while a key may not
 * be checked again (SET NX PX: one instance wins); `freeway:checkbudget:<client>`
 * counts a client's checks in a minute that starts with its first. An answer is kept as its
 * result alone: the provider's words stay in the checking instance's answer, never in Redis.
 */
const spendLua = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

function parse(raw: string | null | undefined): KeyCheckRecord | undefined {
  if (!raw) return undefined;
  try {
    const record = JSON.parse(raw) as KeyCheckRecord;
    return typeof record === 'object' && record !== null && typeof record.result === 'string' && typeof record.checkedAt === 'number' ? record : undefined;
  } catch {
    return undefined;
  }
}

export function createRedisKeyCheckStore(client: Redis, prefix = 'freeway:check'): KeyCheckStore {
  const incrementBudget = defineScript<number>(client, 'freewayKeyCheckBudget', spendLua);
  return {
    async get(ids) {
      if (ids.length === 0) return [];
      return (await client.mget(ids.map((id) => `${prefix}:${id}`))).map(parse);
    },
    async claim(id, _now, intervalMs) {
      return (await client.set(`${prefix}claim:${id}`, '1', 'PX', intervalMs, 'NX')) === 'OK';
    },
    async save(id, record) {
      const kept: KeyCheckRecord = { checkedAt: record.checkedAt, result: record.result };
      await client.set(`${prefix}:${id}`, JSON.stringify(kept), 'PX', KEY_CHECK_KEEP_MS);
    },
    async spend(clientId, _now, perMinute) {
      return (await incrementBudget(`${prefix}budget:${clientId}`, BUDGET_WINDOW_MS)) <= perMinute;
    },
    async close() {},
  };
}
