import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Options, Store } from 'express-rate-limit';
import { Redis } from 'ioredis';
import { loadConfig } from '../../server/config/index.ts';
import type { HealthStore, Outcome } from '../../server/state/health-records.ts';
import { createKeyHasher } from '../../server/state/key-hash.ts';
import { createMemoryHealthStore, HEALTH_TIMINGS, healthPolicy, viewHealth } from '../../server/routing/health-policy.ts';
import { createSlidingWindowStore } from '../../server/state/sliding-window-store.ts';
import { createLogger } from '../../server/http/process-logger.ts';
import { closeRedis, connectRedis } from '../../server/state/redis/client.ts';
import { createRedisHealthStore } from '../../server/state/redis/health-store.ts';
import { createRedisRateLimitStore } from '../../server/state/redis/rate-limit-store.ts';
import { createRedisUsageStore } from '../../server/state/redis/usage-store.ts';
import { createRedisSlotStore } from '../../server/state/redis/slot-store.ts';
import { createMemoryUsageStore, dayExpiry, type UsageRecord } from '../../server/state/usage-records.ts';
import { failOpen, withHealthFallback } from '../../server/state/stores.ts';
import { createThrottledWarn } from '../../server/state/warn-every.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { headerFor, keyHeaders, testKeys } from '../support/keys.ts';
import { freePort } from '../support/process.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';
import { openAIError, startUpstream, type FakeUpstream, type UpstreamHandler } from '../support/upstream.ts';
import { G1, GROQ_FIRST } from '../support/current-models.ts';

const secret = 'test-secret-for-key-hashes-0123456789';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A Redis client for the test's own looks into the server. */
function inspector(redis: RunningRedis): Redis {
  return new Redis(redis.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
}

/** Polls `check` until it holds, or fails after `ms`. */
async function eventually(what: string, check: () => Promise<boolean>, ms = 8_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for: ${what}`);
}

/** Waits until `url` writes its rate-limit hits to Redis (connected, or connected again). */
async function usingRedis(url: string, peek: Redis): Promise<void> {
  await eventually('Freeway writing to Redis', async () => {
    const ip = freshIp();
    await models(url, ip);
    return (await peek.exists(`freeway:rl:${ip['x-forwarded-for']}`)) === 1;
  });
}

let ipCounter = 0;
/** A client address of its own, so that each test starts with an empty window. */
const freshIp = (): Record<string, string> => ({ 'x-forwarded-for': `198.51.100.${++ipCounter}` });

async function models(url: string, headers: Record<string, string>): Promise<number> {
  const res = await fetch(`${url}/v1/models`, { headers });
  await res.arrayBuffer();
  return res.status;
}

describe('configuration for Redis and workers', () => {
  it('REDIS_URL without KEY_HASH_SECRET is a start-up error that says why', async () => {
    const plugins = await providerPlugins();
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }, plugins)).to.throw(/KEY_HASH_SECRET .*required when REDIS_URL is set/);
    expect(() => loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', KEY_HASH_SECRET: 'short' }, plugins)).to.throw(/at least 16 characters/);
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', KEY_HASH_SECRET: secret }, plugins);
    expect(config.state.redisUrl).to.equal('redis://127.0.0.1:6379');
    expect(config.state.keyHashSecret).to.equal(secret);
  });

  it('rejects a REDIS_URL that is not a redis URL, without echoing it', async () => {
    const plugins = await providerPlugins();
    let message = '';
    try {
      loadConfig({ REDIS_URL: 'http://user:hunter2-password@host', KEY_HASH_SECRET: secret }, plugins);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.match(/REDIS_URL must start with redis:\/\//);
    expect(message).not.to.include('hunter2');
  });

  it('WORKERS is 1 by default, a count, or auto', async () => {
    const plugins = await providerPlugins();
    expect(loadConfig({}, plugins).server.workers).to.equal(1);
    expect(loadConfig({ WORKERS: '3' }, plugins).server.workers).to.equal(3);
    const { availableParallelism } = await import('node:os');
    expect(loadConfig({ WORKERS: 'auto' }, plugins).server.workers).to.equal(availableParallelism());
    expect(() => loadConfig({ WORKERS: '0' }, plugins)).to.throw(/WORKERS must be auto or an integer >= 1/);
    expect(() => loadConfig({ WORKERS: 'many' }, plugins)).to.throw(/WORKERS/);
  });
});

describe('Redis stores (against a real redis-server)', function () {
  this.timeout(20_000);
  let redis: RunningRedis;
  let client: Redis;
  /** A second connection, as another instance would have. */
  let other: Redis;
  let peek: Redis;

  before(async function () {
    skipWithoutRedis(this);
    redis = await startRedis();
    client = new Redis(redis.url);
    other = new Redis(redis.url);
    peek = inspector(redis);
  });
  after(async () => {
    client?.disconnect();
    other?.disconnect();
    peek?.disconnect();
    await redis?.kill();
  });
  beforeEach(async () => {
    await peek.flushall();
  });

  describe('sliding-window rate limit', () => {
    let clock = 0;
    const options = (limit: number, windowMs: number) => ({ limit, windowMs }) as Options;

    function pair(limit: number, windowMs: number): { memory: Store; shared: Store } {
      const memory = createSlidingWindowStore(300_000, () => clock);
      const shared = createRedisRateLimitStore(client, { now: () => clock });
      memory.init?.(options(limit, windowMs));
      shared.init?.(options(limit, windowMs));
      return { memory, shared };
    }

    it('answers exactly as the memory store through 1500 random steps (increment, get, decrement, reset)', async () => {
      clock = 5_000_000;
      const { memory, shared } = pair(4, 1_000);
      let seed = 42;
      const random = (): number => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const keys = ['a', 'b', 'c'];
      let refused = 0;
      for (let step = 0; step < 1500; step++) {
        // Often the same millisecond, sometimes a long pause.
        const r = random();
        clock += r < 0.3 ? 0 : r < 0.9 ? Math.floor(random() * 120) : Math.floor(random() * 1_500);
        const key = keys[Math.floor(random() * keys.length)] as string;
        const op = random();
        const where = `step ${step}, key ${key}`;
        if (op < 0.75) {
          const [m, s] = [await memory.increment(key), await shared.increment(key)];
          expect(s.totalHits, `${where}: increment hits`).to.equal(m.totalHits);
          expect(s.resetTime?.getTime(), `${where}: increment reset`).to.equal(m.resetTime?.getTime());
          if (m.totalHits > 4) refused += 1;
        } else if (op < 0.93) {
          const [m, s] = [await memory.get?.(key), await shared.get?.(key)];
          // Redis may have expired a quiet key that memory still holds empty; both mean "no hits".
          expect(s?.totalHits ?? 0, `${where}: get hits`).to.equal(m?.totalHits ?? 0);
          if ((m?.totalHits ?? 0) > 0) expect(s?.resetTime?.getTime(), `${where}: get reset`).to.equal(m?.resetTime?.getTime());
        } else if (op < 0.98) {
          await memory.decrement(key);
          await shared.decrement(key);
        } else {
          await memory.resetKey(key);
          await shared.resetKey(key);
        }
      }
      expect(refused, 'the run exercised refusals').to.be.above(50);
      await memory.shutdown?.();
    });

    it('refused requests are not stored, and the key expires one window after the newest accepted hit', async () => {
      clock = 9_000_000;
      const { shared } = pair(2, 30_000);
      await shared.increment('ip');
      clock += 10;
      await shared.increment('ip');
      for (let i = 0; i < 5; i++) expect((await shared.increment('ip')).totalHits).to.equal(3);
      expect(await peek.zcard('freeway:rl:ip')).to.equal(2);
      const ttl = await peek.pttl('freeway:rl:ip');
      expect(ttl).to.be.within(29_000, 30_000);
    });

    it('counts hits in the same millisecond from two instances separately', async () => {
      clock = 7_000_000;
      const two = createRedisRateLimitStore(other, { now: () => clock });
      two.init?.(options(10, 1_000));
      const one = pair(10, 1_000).shared;
      const hits = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two).increment('same')));
      expect(hits.map((info) => info.totalHits).sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect((await one.increment('same')).totalHits).to.equal(11);
    });

    it('is atomic under concurrency: of 200 simultaneous hits from four stores exactly the limit pass', async () => {
      const stores = Array.from({ length: 4 }, (_, i) => createRedisRateLimitStore(i % 2 ? client : other));
      for (const store of stores) store.init?.(options(37, 60_000));
      const hits = await Promise.all(Array.from({ length: 200 }, (_, i) => (stores[i % 4] as Store).increment('burst')));
      expect(hits.filter((info) => info.totalHits <= 37)).to.have.length(37);
    });

    it("uses Redis's clock when none is given", async () => {
      const store = createRedisRateLimitStore(client);
      store.init?.(options(5, 60_000));
      const info = await store.increment('clock');
      expect(info.resetTime?.getTime()).to.be.closeTo(Date.now() + 60_000, 2_000);
    });
  });

  describe('provider health', () => {
    const failure: Outcome = { kind: 'failure', reason: '500 boom' };
    const limited: Outcome = { kind: 'rate_limited', retryAfterMs: 20_000, reason: '429 slow down' };
    const invalid: Outcome = { kind: 'invalid_key', reason: '401 bad key' };
    const success: Outcome = { kind: 'success' };

    it('records and claims probes exactly as the memory store', async () => {
      const memory = createMemoryHealthStore();
      const shared = createRedisHealthStore(client, healthPolicy);
      const outcomes: Outcome[] = [failure, failure, success, failure, failure, failure, limited, invalid, failure, failure, failure, failure];
      let now = 1_000_000;
      for (const [i, outcome] of outcomes.entries()) {
        for (const id of ['groq:x', 'cerebras:y']) {
          const [m, s] = [await memory.record(id, outcome, now), await shared.record(id, outcome, now)];
          expect(s, `outcome ${i}`).to.deep.equal(m);
          // Past the down cooldown: both let exactly one probe through.
          const later = now + 400_000;
          expect(await shared.claimProbe(id, later), `probe ${i}`).to.equal(await memory.claimProbe(id, later));
          expect(await shared.claimProbe(id, later), `second probe ${i}`).to.equal(await memory.claimProbe(id, later));
          // A success leaves a healthy record in both: the same view.
          const [[mr], [sr]] = [await memory.get([id]), await shared.get([id])];
          for (const at of [now, now + 25_000, later, later + 40_000]) {
            expect(viewHealth(sr, at), `view ${i} at +${at - now}`).to.deep.equal(viewHealth(mr, at));
          }
        }
        now += 1_000;
      }
      await memory.close();
    });

    it('keeps records under freeway:health:<id> for an hour; a success replaces the record with a healthy one, kept an hour', async () => {
      const store = createRedisHealthStore(client, healthPolicy);
      await store.record('groq:abc', limited, Date.now());
      const ttl = await peek.pttl('freeway:health:groq:abc');
      expect(ttl).to.be.within(HEALTH_TIMINGS.forgetAfterMs - 5_000, HEALTH_TIMINGS.forgetAfterMs);
      const view = await store.record('groq:abc', success, Date.now());
      expect(view).to.include({ state: 'healthy', consecutiveFailures: 0 });
      expect(JSON.parse((await peek.get('freeway:health:groq:abc')) ?? '{}')).to.include({ state: 'healthy', consecutiveFailures: 0 });
      expect(await peek.pttl('freeway:health:groq:abc')).to.be.within(HEALTH_TIMINGS.forgetAfterMs - 5_000, HEALTH_TIMINGS.forgetAfterMs);
    });

    it('lets exactly one of many simultaneous probe claims from two instances through', async () => {
      const [one, two] = [createRedisHealthStore(client, healthPolicy), createRedisHealthStore(other, healthPolicy)];
      const start = 2_000_000;
      for (let i = 0; i < 3; i++) await one.record('groq:probe', failure, start + i);
      const at = start + HEALTH_TIMINGS.downCooldownMs + 10;
      const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : two).claimProbe('groq:probe', at)));
      expect(claims.filter(Boolean)).to.have.length(1);
    });

    it('loses no update when two instances record failures at once', async () => {
      const [one, two] = [createRedisHealthStore(client, healthPolicy), createRedisHealthStore(other, healthPolicy)];
      await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? one : two).record('groq:race', failure, 3_000_000 + i)));
      const [record] = await one.get(['groq:race']);
      expect(record).to.include({ state: 'down', consecutiveFailures: 6 });
    });
  });

  describe('concurrency slots', () => {
    it('two instances share a key\'s slots: of 20 simultaneous takes exactly the limit pass; a lease given back or expired frees its slot', async () => {
      const [one, two] = [createRedisSlotStore(client), createRedisSlotStore(other)];
      const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).take('zai:k', 2, 30_000)));
      const leases = taken.filter((lease): lease is string => lease !== undefined);
      expect(leases).to.have.length(2);
      expect(await peek.zcard('freeway:slots:zai:k')).to.equal(2);
      await two.give('zai:k', leases[0] as string);
      expect(await one.take('zai:k', 2, 30_000)).to.be.a('string');
      expect(await one.take('zai:k', 2, 30_000)).to.equal(undefined);
      // A lease nobody renews (its instance crashed) expires, and its slot is free again.
      const short = await one.take('zai:short', 1, 200);
      expect(short).to.be.a('string');
      expect(await two.take('zai:short', 1, 200)).to.equal(undefined);
      await eventually('the lease to expire', async () => (await two.take('zai:short', 1, 200)) !== undefined);
    });
  });

  describe('usage per key', () => {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const counts = (id: string, model: string, day: string, extra: Partial<UsageRecord> = {}): UsageRecord => ({
      id,
      day,
      model,
      requests: 1,
      answers: 0,
      failures: {},
      inputTokens: 0,
      outputTokens: 0,
      ...extra,
    });
    const batches: UsageRecord[][] = [
      [counts('groq:a', 'groq/openai/gpt-oss-120b', today, { answers: 1, inputTokens: 7, outputTokens: 3 }), counts('groq:b', 'groq/openai/gpt-oss-20b', today)],
      [counts('groq:a', 'groq/openai/gpt-oss-120b', today, { failures: { rate_limited: 1 } }), counts('groq:a', 'cloudflare/@cf/meta/llama-3.3-70b', yesterday, { answers: 1 })],
      [counts('groq:a', 'groq/openai/gpt-oss-120b', today, { requests: 2, failures: { rate_limited: 1, timeout: 1 } })],
    ];
    const sorted = (records: readonly UsageRecord[]): UsageRecord[] => [...records].sort((x, y) => `${x.day}${x.model}`.localeCompare(`${y.day}${y.model}`));

    it('two instances add to the same counts, which read as the memory store\'s', async () => {
      const memory = createMemoryUsageStore();
      const [one, two] = [createRedisUsageStore(client, 1000), createRedisUsageStore(other, 1000)];
      for (const [i, batch] of batches.entries()) {
        await memory.add(batch, Date.now());
        await (i % 2 ? one : two).add(batch, Date.now());
      }
      const ids = ['groq:a', 'groq:b', 'groq:none'];
      const days = [today, yesterday];
      const [fromMemory, fromRedis] = [await memory.get(ids, days), await one.get(ids, days)];
      expect(fromRedis.map(sorted)).to.deep.equal(fromMemory.map(sorted));
      expect(sorted(fromRedis[0] ?? [])[1]).to.deep.include({ requests: 4, answers: 1, failures: { rate_limited: 2, timeout: 1 }, inputTokens: 7, outputTokens: 3 });
      await memory.close();
    });

    it('keeps one hash per key and day under freeway:usage:<id>:<day>, expiring when the day is seven days old', async () => {
      await createRedisUsageStore(client, 1000).add(batches[1] as UsageRecord[], Date.now());
      expect((await peek.keys('freeway:usage:*')).sort()).to.deep.equal([`freeway:usage:groq:a:${today}`, `freeway:usage:groq:a:${yesterday}`].sort());
      expect(await peek.hgetall(`freeway:usage:groq:a:${today}`)).to.deep.equal({ 'groq/openai/gpt-oss-120b|requests': '1', 'groq/openai/gpt-oss-120b|failed:rate_limited': '1' });
      for (const day of [today, yesterday]) {
        const ttl = await peek.pttl(`freeway:usage:groq:a:${day}`);
        // Redis reads its clock once per event loop turn, so its TTL may run a few ms behind ours.
        expect(ttl).to.be.within(dayExpiry(day) - Date.now() - 5_000, dayExpiry(day) - Date.now() + 1_000);
      }
    });

    it('holds at most USAGE_MAX_RECORDS keys\' days: a caller sending a new key each time pushes out the least recently written', async () => {
      const store = createRedisUsageStore(client, 3, 'freeway:bounded-usage:');
      for (let i = 0; i < 10; i++) await store.add([counts(`groq:flood${i}`, 'groq/openai/gpt-oss-20b', today)], Date.now() + i);
      expect((await peek.keys('freeway:bounded-usage:*')).sort()).to.deep.equal([7, 8, 9].map((i) => `freeway:bounded-usage:groq:flood${i}:${today}`));
      expect(await peek.zcard('freeway:bounded-usage-index')).to.equal(3);
      const [gone, kept] = await store.get(['groq:flood0', 'groq:flood9'], [today]);
      expect([gone, kept?.map((record) => record.requests)]).to.deep.equal([[], [1]]);
    });
  });
});

describe('Redis stores when Redis does not answer (no server needed)', () => {
  it('the rate limit lets requests through with one warning, and health lives in memory meanwhile', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger('info', sink);
    const warn = createThrottledWarn(logger, 60_000);
    const deadPort = await freePort();
    const dead = connectRedis(`redis://127.0.0.1:${deadPort}`, logger, warn);
    const windows = failOpen(createRedisRateLimitStore(dead), warn, 'Redis');
    windows.init?.({ limit: 1, windowMs: 60_000 } as Options);
    for (let i = 0; i < 5; i++) expect((await windows.increment('ip')).totalHits).to.equal(1);
    const health: HealthStore = withHealthFallback(createRedisHealthStore(dead, healthPolicy), healthPolicy, warn, 'Redis');
    await health.record('groq:k', { kind: 'rate_limited', retryAfterMs: 5_000, reason: '429' }, Date.now());
    const [record] = await health.get(['groq:k']);
    expect(record?.state).to.equal('rate_limited');
    await closeRedis(dead);
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 40);
    expect(warnings.some((line) => /Rate limit not enforced/.test(line.msg))).to.equal(true);
    expect(warnings.some((line) => /memory/.test(line.msg))).to.equal(true);
    // Throttled: five refusals to answer, one rate-limit warning.
    expect(warnings.filter((line) => /Rate limit not enforced/.test(line.msg))).to.have.length(1);
  });
});

describe('two Freeway instances on one Redis', function () {
  this.timeout(30_000);
  let redis: RunningRedis;
  let peek: Redis;
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let a: RunningFreeway;
  let b: RunningFreeway;

  const start = (url: string): Promise<RunningFreeway> =>
    startFreeway({
      env: { REDIS_URL: url, KEY_HASH_SECRET: secret, RATE_LIMIT_MAX: '3', GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url },
    });

  before(async function () {
    skipWithoutRedis(this);
    redis = await startRedis();
    peek = inspector(redis);
    [groq, cerebras] = await Promise.all([startUpstream(), startUpstream()]);
    [a, b] = await Promise.all([start(redis.url), start(redis.url)]);
    await usingRedis(a.url, peek);
    await usingRedis(b.url, peek);
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all([groq?.close(), cerebras?.close()]);
    peek?.disconnect();
    await redis?.kill();
  });
  beforeEach(() => {
    groq.handle(faults.ok('from groq'));
    cerebras.handle(faults.ok('from cerebras'));
    groq.requests.length = 0;
    cerebras.requests.length = 0;
  });

  it('share one rate-limit window: 2 requests through A and 2 through B, the 4th is refused', async () => {
    const ip = freshIp();
    expect(await models(a.url, ip)).to.equal(200);
    expect(await models(a.url, ip)).to.equal(200);
    expect(await models(b.url, ip)).to.equal(200);
    const refused = await fetch(`${b.url}/v1/models`, { headers: ip });
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(await models(a.url, ip)).to.equal(429);
    // Another client is not affected.
    expect(await models(b.url, freshIp())).to.equal(200);
  });

  it('share provider health: a 429 seen through A makes B skip that key', async () => {
    groq.handle(faults.rateLimited(45));
    const keys = keyHeaders('groq', 'cerebras');
    const first = await postChat(a.url, hello('free:auto'), { ...keys, ...freshIp() });
    expect(first.status).to.equal(200);
    expect(first.headers.get('x-freeway-attempts')).to.match(/^groq\/\S+ 429 \d+ms, cerebras\/\S+ 200 \d+ms$/);
    expect(groq.requests).to.have.length(1);

    const health = await getHealth(b.url, keys);
    expect(health.providers.groq).to.include({ state: 'rate_limited' });
    expect(health.providers.groq.retryAfter).to.be.within(40, 45);
    expect(health.providers.cerebras).to.include({ state: 'healthy' });

    const second = await postChat(b.url, hello('free:auto'), { ...keys, ...freshIp() });
    expect(second.status).to.equal(200);
    expect(second.headers.get('x-freeway-provider')).to.equal('cerebras');
    expect(second.headers.get('x-freeway-attempts')).not.to.include('groq');
    expect(groq.requests, 'B did not try the rate-limited key').to.have.length(1);
  });

  it('share usage per key: requests through A and through B are counted together, and either shows them', async () => {
    const key = { [headerFor('groq')]: 'gsk_UsageSharedKeyOfThisTest0123456789' };
    for (const url of [a.url, b.url, a.url]) expect((await postChat(url, hello(`groq/${GROQ_FIRST}`), { ...key, ...freshIp() })).status).to.equal(200);
    const usageThrough = async (url: string): Promise<unknown> => {
      const body = (await (await fetch(`${url}/v1/providers`, { headers: { ...key, ...freshIp() } })).json()) as { data: Array<{ id: string; keys?: Array<{ usage?: { days: Array<{ models: unknown[] }> } }> }> };
      return body.data.find((entry) => entry.id === 'groq')?.keys?.[0]?.usage?.days[0]?.models;
    };
    // A wrote its own counts before it answered; B's are written within 100 ms.
    await eventually('B\'s counts in Redis', async () => JSON.stringify(await usageThrough(a.url)).includes('"requests":3'));
    const expected = [{ model: `groq/${GROQ_FIRST}`, requests: 3, answers: 3, failures: {}, inputTokens: 21, outputTokens: 9 }];
    expect(await usageThrough(a.url)).to.deep.equal(expected);
    expect(await usageThrough(b.url)).to.deep.equal(expected);
  });

  it('a success through B clears what A recorded, for both', async () => {
    const keys = { [headerFor('groq')]: 'gsk_AnotherKeyForTheClearTest0123456789' };
    groq.handle(faults.serverError(503));
    await postChat(a.url, hello('free:auto'), { ...keys, ...freshIp() });
    expect((await getHealth(b.url, keys)).providers.groq).to.include({ state: 'healthy', consecutiveFailures: 1 });
    groq.handle(faults.ok());
    expect((await postChat(b.url, hello('free:auto'), { ...keys, ...freshIp() })).status).to.equal(200);
    expect((await getHealth(a.url, keys)).providers.groq).to.include({ state: 'healthy', consecutiveFailures: 0 });
  });

  describe('with several keys in one header', () => {
    const second = 'gsk_SecondKeyGroqForRedis0123456789abcdef';
    const pool = { [headerFor('groq')]: `gsk_FirstKeyGroqForRedis0123456789abcdef,${second}` };
    const keyOf = (req: { headers: Record<string, unknown> }): number => (String(req.headers.authorization) === `Bearer ${second}` ? 2 : 1);
    /** Answers by the key that came with the call. */
    const byKey = (one: UpstreamHandler, two: UpstreamHandler): UpstreamHandler => (req, res) => (keyOf(req) === 1 ? one(req, res) : two(req, res));

    it('the keys take turns across both instances: ten requests, alternately through A and B, five each', async () => {
      const keys = { [headerFor('groq')]: `gsk_TurnsKeyOne0123456789abcdef,gsk_TurnsKeyTwo0123456789abcdef` };
      for (let i = 0; i < 10; i++) {
        const res = await postChat((i % 2 ? b : a).url, hello('free:auto'), { ...keys, ...freshIp() });
        expect(res.status).to.equal(200);
      }
      // Turns kept in each process would give A and B the same key on their first call.
      const seen = groq.requests.map((req) => String(req.headers.authorization).slice(-24));
      expect(seen.filter((key) => key.includes('KeyOne'))).to.have.length(5);
      expect(seen.filter((key) => key.includes('KeyTwo'))).to.have.length(5);
      expect(seen.every((key, i) => i === 0 || key !== seen[i - 1]), seen.join(' ')).to.equal(true);
      // One counter for this set of keys and model, named by an HMAC of the keys' HMACs.
      const hashKey = createKeyHasher(secret);
      const ids = ['gsk_TurnsKeyOne0123456789abcdef', 'gsk_TurnsKeyTwo0123456789abcdef'].map((key) => hashKey('groq', key));
      const turn = `freeway:turn:${hashKey('groq', ids.sort().join(','))}|${GROQ_FIRST}`;
      expect(await peek.get(turn)).to.equal('10');
      expect(await peek.pttl(turn)).to.be.within(HEALTH_TIMINGS.forgetAfterMs - 5_000, HEALTH_TIMINGS.forgetAfterMs);
    });

    it('a 17th key, an empty entry or a repeated key is the same 400 on every instance, and nothing reaches Redis or the upstream', async () => {
      const many = Array.from({ length: 17 }, (_, i) => `gsk_RefusedPoolKey${String(i).padStart(2, '0')}abcdefghij`);
      const cases: Array<[string, string]> = [
        [many.join(','), 'X-Groq-Key: key 17 is one too many; at most 16 keys are allowed.'],
        [`${many[0]},,${many[1]}`, 'X-Groq-Key: key 2 is empty.'],
        [`${many[0]}, ${many[1]}, ${many[0]}`, 'X-Groq-Key: key 3 repeats key 1.'],
      ];
      const turnsBefore = (await peek.keys('freeway:turn:*')).sort();
      for (const [value, message] of cases) {
        for (const instance of [a, b]) {
          const res = await postChat(instance.url, hello('free:auto'), { [headerFor('groq')]: value, ...freshIp() });
          expect(res.status).to.equal(400);
          expect(res.json.error).to.deep.equal({ message, type: 'invalid_request_error', code: 400 });
        }
      }
      expect(groq.requests).to.have.length(0);
      expect((await peek.keys('freeway:turn:*')).sort()).to.deep.equal(turnsBefore);
    });

    it('a 429 on key 1 through A: the same model answers with key 2, and B leaves key 1 out', async () => {
      groq.handle(byKey(faults.rateLimited(45), faults.ok('from key 2')));
      const first = await postChat(a.url, hello('free:auto'), { ...pool, ...freshIp() });
      expect(first.status).to.equal(200);
      expect(first.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} key 1 429 \\d+ms, groq\\/${G1} key 2 200 \\d+ms$`));
      expect((await getHealth(b.url, pool)).providers.groq.map((entry: { key: number; state: string }) => [entry.key, entry.state])).to.deep.equal([
        [1, 'rate_limited'],
        [2, 'healthy'],
      ]);
      for (let i = 0; i < 3; i++) {
        const res = await postChat(b.url, hello('free:auto'), { ...pool, ...freshIp() });
        expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} key 2 200 \\d+ms$`));
      }
      expect(groq.requests.map(keyOf)).to.deep.equal([1, 2, 2, 2, 2]);
    });

    it('a key that reported no requests left through A is not called through B until its reset', async () => {
      const keys = { [headerFor('groq')]: `gsk_QuotaKeyOne0123456789abcdef,gsk_QuotaKeyTwo0123456789abcdef` };
      const one = (req: { headers: Record<string, unknown> }): boolean => String(req.headers.authorization).includes('KeyOne');
      const spent: UpstreamHandler = (req, res) => {
        // Groq's headers and format, with a short reset so that the test can wait for it.
        res.setHeader('x-ratelimit-remaining-requests', '0');
        res.setHeader('x-ratelimit-reset-requests', '1.5s');
        res.setHeader('x-ratelimit-remaining-tokens', '17000');
        res.setHeader('x-ratelimit-reset-tokens', '0.4s');
        return faults.ok('last one')(req, res);
      };
      groq.handle((req, res) => (one(req) ? spent(req, res) : faults.ok('key two')(req, res)));
      await postChat(a.url, hello('free:auto'), { ...keys, ...freshIp() });
      expect(groq.requests.filter(one)).to.have.length(1);
      const [entry] = (await getHealth(b.url, keys)).providers.groq;
      expect(entry).to.include({ key: 1, state: 'rate_limited', consecutiveFailures: 0 });
      expect(entry.quota).to.include({ remainingRequests: 0 });
      for (let i = 0; i < 4; i++) await postChat((i % 2 ? a : b).url, hello('free:auto'), { ...keys, ...freshIp() });
      expect(groq.requests.filter(one), 'key 1 sat out on both').to.have.length(1);
      await sleep(1_600);
      groq.handle(faults.ok());
      for (let i = 0; i < 2; i++) await postChat(b.url, hello('free:auto'), { ...keys, ...freshIp() });
      expect(groq.requests.filter(one), 'key 1 back after its reset').to.have.length(2);
    });

    it('a daily-quota 429 keeps the key out on every instance, and Redis keeps it past the hour', async () => {
      const keys = { [headerFor('groq')]: `gsk_DailyKeyOne0123456789abcdef,gsk_DailyKeyTwo0123456789abcdef` };
      const one = (req: { headers: Record<string, unknown> }): boolean => String(req.headers.authorization).includes('KeyOne');
      const fiveHours = 5 * 3_600;
      groq.handle((req, res) =>
        one(req)
          ? openAIError(res, 429, 'Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01hxyz` service tier `on_demand` on tokens per day (TPD): Limit 100000, Used 99654, Requested 1299.', { 'retry-after': String(fiveHours) })
          : faults.ok('key two')(req, res),
      );
      await postChat(a.url, hello('free:auto'), { ...keys, ...freshIp() });
      const [entry] = (await getHealth(b.url, keys)).providers.groq;
      expect(entry).to.include({ key: 1, state: 'rate_limited' });
      expect(entry.retryAfter).to.be.within(fiveHours - 5, fiveHours);
      const id = createKeyHasher(secret)('groq', 'gsk_DailyKeyOne0123456789abcdef');
      expect(await peek.pttl(`freeway:health:${id}`)).to.be.above(HEALTH_TIMINGS.forgetAfterMs + 3_600_000);
      for (let i = 0; i < 3; i++) await postChat(b.url, hello('free:auto'), { ...keys, ...freshIp() });
      expect(groq.requests.filter(one)).to.have.length(1);
    });
  });

  it('nothing in Redis holds a key or a plain hash of one (every key and value scanned)', async () => {
    // Upstreams that quote the caller's key back in their errors, for every OpenAI-style provider we can point here.
    groq.handle((req, res) => openAIError(res, 429, `Rate limit for ${String(req.headers.authorization)} reached`));
    cerebras.handle((req, res) => openAIError(res, 401, `Invalid API key ${String(req.headers.authorization)}`));
    const all = keyHeaders(...Object.keys(testKeys));
    const pair = keyHeaders('groq', 'cerebras');
    await postChat(a.url, hello('free:auto'), { ...pair, ...freshIp() });
    await postChat(b.url, hello('groq/llama-3.3-70b-versatile'), { ...pair, ...freshIp() });
    // A pool: turn counters and per-key records.
    await postChat(a.url, hello('free:auto'), { [headerFor('groq')]: `gsk_PoolFirstKey0123456789abcdef,gsk_PoolSecondKey0123456789abcdef`, ...freshIp() });
    await getHealth(a.url, all);
    await models(b.url, { ...all, ...freshIp() });
    // Each writes its usage counts before it answers GET /v1/providers.
    for (const url of [a.url, b.url]) await (await fetch(`${url}/v1/providers`, { headers: { ...all, ...freshIp() } })).arrayBuffer();

    const forbidden: string[] = [];
    for (const key of [...Object.values(testKeys), 'gsk_PoolFirstKey0123456789abcdef', 'gsk_PoolSecondKey0123456789abcdef']) {
      for (const value of [key, ...key.split(':')]) {
        forbidden.push(value);
        for (const algorithm of ['sha256', 'sha1', 'md5', 'sha512']) {
          for (const encoding of ['hex', 'base64', 'base64url'] as const) forbidden.push(createHash(algorithm).update(value).digest(encoding));
        }
      }
    }
    forbidden.push(secret);

    const seen: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await peek.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const type = await peek.type(key);
        let values: string[];
        if (type === 'string') values = [(await peek.get(key)) ?? ''];
        else if (type === 'zset') values = await peek.zrange(key, '0', '-1', 'WITHSCORES');
        else if (type === 'hash') values = Object.entries(await peek.hgetall(key)).flat();
        else if (type === 'list') values = await peek.lrange(key, 0, -1);
        else if (type === 'set') values = await peek.smembers(key);
        else values = [`unexpected type ${type}`];
        seen.push(key, ...values);
      }
    } while (cursor !== '0');

    const healthKeys = seen.filter((entry) => entry.startsWith('freeway:health:'));
    expect(healthKeys.length, 'the test wrote health records').to.be.at.least(2);
    const hashKey = createKeyHasher(secret);
    expect(healthKeys).to.include(`freeway:health:${hashKey('groq', testKeys.groq as string)}`);
    expect(seen.some((entry) => entry.startsWith('freeway:rl:'))).to.equal(true);
    expect(seen.some((entry) => entry.startsWith('freeway:turn:groq:'))).to.equal(true);
    expect(seen.some((entry) => entry.startsWith('freeway:usage:groq:'))).to.equal(true);
    expect(seen.join('\n')).to.include('[REDACTED]');
    for (const entry of seen) {
      expect(entry, 'only freeway data').not.to.include('unexpected type');
      for (const bad of forbidden) {
        if (entry.includes(bad)) expect.fail(`Redis holds a key or a hash of one: ${entry.slice(0, 80)}`);
      }
    }
  });
});

describe('Freeway when Redis goes away and comes back', function () {
  this.timeout(40_000);
  let redis: RunningRedis | undefined;
  let port: number;
  let peek: Redis | undefined;
  let upstream: FakeUpstream;
  let a: RunningFreeway | undefined;
  let b: RunningFreeway | undefined;

  /** Freeway on `port`, once connected to the Redis there, or at once with `awaitRedis: false` while there is none. */
  const start = (awaitRedis = true): Promise<RunningFreeway> =>
    startFreeway({ env: { REDIS_URL: `redis://127.0.0.1:${port}`, KEY_HASH_SECRET: secret, RATE_LIMIT_MAX: '3', GROQ_BASE_URL: upstream.url }, awaitRedis });

  const reconnected = (instance: RunningFreeway): Promise<void> => usingRedis(instance.url, peek as Redis);

  before(async function () {
    skipWithoutRedis(this);
    port = await freePort();
    upstream = await startUpstream();
  });
  afterEach(async () => {
    await Promise.all([a?.close(), b?.close()]);
    a = b = undefined;
    peek?.disconnect();
    peek = undefined;
    await redis?.kill();
    redis = undefined;
  });
  after(() => upstream?.close());

  it('keeps serving when Redis is killed (rate limit open with a warning, health in memory), then shares again once it is back', async () => {
    redis = await startRedis(port);
    peek = inspector(redis);
    [a, b] = await Promise.all([start(), start()]);
    await reconnected(a);
    await reconnected(b);

    peek.disconnect();
    await redis.kill();
    redis = undefined;

    upstream.handle(faults.ok('still here'));
    const ip = freshIp();
    for (let i = 0; i < 6; i++) {
      const res = await postChat((i % 2 ? a : b).url, hello('free:auto'), { ...keyHeaders('groq'), ...ip });
      expect(res.status, `request ${i} with Redis down`).to.equal(200);
      expect(res.json.choices[0].message.content).to.equal('still here');
    }
    const warnings = a.logs.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 40);
    expect(warnings.map((line) => line.msg).join('\n')).to.match(/Rate limit not enforced/);

    // Health falls back to each instance's memory.
    upstream.handle(faults.rateLimited(20));
    const limited = await postChat(a.url, hello('free:auto'), { ...keyHeaders('groq'), ...freshIp() });
    expect(limited.status).to.equal(429);
    expect((await getHealth(a.url, keyHeaders('groq'))).providers.groq).to.include({ state: 'rate_limited' });

    // Redis back on the same port, empty: both reconnect and share one window again.
    redis = await startRedis(port);
    peek = inspector(redis);
    await reconnected(a);
    await reconnected(b);
    const shared = freshIp();
    expect(await models(a.url, shared)).to.equal(200);
    expect(await models(b.url, shared)).to.equal(200);
    expect(await models(a.url, shared)).to.equal(200);
    expect(await models(b.url, shared)).to.equal(429);
    expect(a.logs.some((line) => line.includes('Redis connection back'))).to.equal(true);
  });

  it('starts while Redis is down, serves, and uses Redis once it appears', async () => {
    a = await start(false);
    const ip = freshIp();
    upstream.handle(faults.ok());
    for (let i = 0; i < 5; i++) expect(await models(a.url, ip)).to.equal(200);
    expect((await postChat(a.url, hello('free:auto'), { ...keyHeaders('groq'), ...freshIp() })).status).to.equal(200);
    redis = await startRedis(port);
    peek = inspector(redis);
    await reconnected(a);
  });
});
