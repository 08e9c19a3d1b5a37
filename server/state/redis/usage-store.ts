import type { Redis } from 'ioredis';
import { DAY_MS, USAGE_DAYS, dayExpiry, type UsageRecord, type UsageStore } from '../usage-records.ts';
import { defineScript, dropPastBoundLua } from './client.ts';

/*
 * Usage per key in Redis: one hash per key and UTC day, `freeway:usage:<provider>:<HMAC>:<day>`,
 * whose fields are `<model>|requests`, `<model>|answers`, `<model>|in`, `<model>|out` and
 * `<model>|failed:<kind>`, each a count raised with HINCRBY (atomic, so instances add up).
 * A hash expires when its day is no longer shown: the end of the sixth day after it. An index (a
 * sorted set by last write, `freeway:usage-index`) holds the hashes to USAGE_MAX_RECORDS: past it the
 * least recently written go, as in memory, so that callers sending a new key each time cannot grow
 * Redis beyond the setting.
 */

/** Drops from the index what is older than the days shown, then the least recently written hashes past the bound. */
const trimLua = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])${dropPastBoundLua('KEYS[1]', 'ARGV[2]')}
return 1`;

type Counter = 'requests' | 'answers' | 'in' | 'out';

function fieldsOf(record: UsageRecord): Array<[field: string, count: number]> {
  const fields: Array<[string, number]> = [];
  const add = (name: string, count: number): void => {
    if (count > 0) fields.push([`${record.model}|${name}`, count]);
  };
  add('requests', record.requests);
  add('answers', record.answers);
  add('in', record.inputTokens);
  add('out', record.outputTokens);
  for (const [kind, count] of Object.entries(record.failures)) add(`failed:${kind}`, count);
  return fields;
}

interface Counts {
  requests: number;
  answers: number;
  in: number;
  out: number;
  failures: Record<string, number>;
}

/** A hash's fields back into one record per model. */
function recordsOf(id: string, day: string, hash: Record<string, string>): UsageRecord[] {
  const models = new Map<string, Counts>();
  for (const [field, raw] of Object.entries(hash)) {
    const cut = field.lastIndexOf('|');
    const count = Number(raw);
    if (cut <= 0 || !Number.isFinite(count)) continue;
    const model = field.slice(0, cut);
    const name = field.slice(cut + 1);
    let counts = models.get(model);
    if (!counts) models.set(model, (counts = { requests: 0, answers: 0, in: 0, out: 0, failures: {} }));
    if (name.startsWith('failed:')) counts.failures[name.slice('failed:'.length)] = count;
    else if (name in counts && name !== 'failures') counts[name as Counter] = count;
  }
  return [...models].map(([model, counts]) => ({
    id,
    day,
    model,
    requests: counts.requests,
    answers: counts.answers,
    failures: counts.failures,
    inputTokens: counts.in,
    outputTokens: counts.out,
  }));
}

/** Throws the first error of a pipeline's replies: ioredis resolves `exec` with them instead. */
function firstError(replies: Array<[Error | null, unknown]> | null): void {
  if (replies === null) throw new Error('the Redis pipeline was discarded');
  for (const [error] of replies) if (error) throw error;
}

export function createRedisUsageStore(client: Redis, maxRecords: number, prefix = 'freeway:usage:'): UsageStore {
  const trim = defineScript<number>(client, 'freewayTrimUsage', trimLua);
  const index = `${prefix.replace(/:$/, '')}-index`;
  return {
    async add(records, now) {
      if (records.length === 0) return;
      const pipeline = client.pipeline();
      const expiries = new Map<string, number>();
      for (const record of records) {
        const key = `${prefix}${record.id}:${record.day}`;
        for (const [field, count] of fieldsOf(record)) pipeline.hincrby(key, field, count);
        expiries.set(key, dayExpiry(record.day));
      }
      for (const [key, at] of expiries) {
        pipeline.pexpireat(key, at);
        pipeline.zadd(index, now, key);
      }
      firstError(await pipeline.exec());
      await trim(index, now - USAGE_DAYS * DAY_MS, maxRecords);
    },
    async get(ids, days) {
      if (ids.length === 0) return [];
      const pipeline = client.pipeline();
      for (const id of ids) for (const day of days) pipeline.hgetall(`${prefix}${id}:${day}`);
      const replies = await pipeline.exec();
      firstError(replies);
      return ids.map((id, i) =>
        days.flatMap((day, d) => recordsOf(id, day, (replies?.[i * days.length + d]?.[1] ?? {}) as Record<string, string>)),
      );
    },
    async close() {},
  };
}
