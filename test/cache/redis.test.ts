/**
 * The response cache in Redis (CACHE=redis): two Freeway instances share kept answers, Redis
 * holds ids and ciphertext only (a dump of it holds no prompt, answer or key, nor does a health
 * record of an upstream error that quoted the request), and CACHE_MAX_BYTES bounds it.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createKeyHasher } from '../../server/state/key-hash.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { testKeys } from '../support/keys.ts';
import { freePort } from '../support/process.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';
import { json, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';
import { GROQ_FIRST } from '../support/current-models.ts';

const MODEL = `groq/${GROQ_FIRST}`;
const SECRET = 'shared-secret-of-both-instances-0123';
const ANSWER = 'A confidential answer about the quarterly figures';
const key = (n: number): string => `${(testKeys.groq as string).slice(0, -4)}${String(n).padStart(4, '0')}`;

async function chat(freeway: RunningFreeway, prompt: string, groqKey: string, stream = false): Promise<{ status: number; cache: string | null; body: string }> {
  const res = await fetch(`${freeway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Groq-Key': groqKey },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: prompt }], stream }),
  });
  return { status: res.status, cache: res.headers.get('x-freeway-cache'), body: await res.text() };
}

/** Every byte Redis holds under Freeway's keys, names included, as one latin1 text. */
async function dump(peek: Redis): Promise<string> {
  let all = '';
  for (const name of await peek.keys('*')) {
    all += `${name}\n`;
    const type = await peek.type(name);
    if (type === 'string') all += (await peek.getBuffer(name))?.toString('latin1') ?? '';
    else if (type === 'zset') all += (await peek.zrange(name, '0', '-1')).join('\n');
    else if (type === 'hash') all += JSON.stringify(await peek.hgetall(name));
    else if (type === 'set') all += (await peek.smembers(name)).join('\n');
    else if (type === 'list') all += (await peek.lrange(name, 0, -1)).join('\n');
    all += '\n';
  }
  return all;
}

describe('response cache in Redis (CACHE=redis)', function () {
  this.timeout(40_000);
  let redis: RunningRedis;
  let peek: Redis;
  let upstream: FakeUpstream;
  let first: RunningFreeway;
  let second: RunningFreeway;
  const maxBytes = 24 * 1024;

  before(async function () {
    skipWithoutRedis(this);
    redis = await startRedis();
    peek = new Redis(redis.url);
    upstream = await startUpstream((req, res) => openAIText(res, ANSWER, req));
    const env = { CACHE: 'redis', REDIS_URL: redis.url, KEY_HASH_SECRET: SECRET, GROQ_BASE_URL: upstream.url, CACHE_MAX_BYTES: `${maxBytes / 1024}kb`, MODEL_QUARANTINE_MS: '3600000' };
    [first, second] = await Promise.all([startFreeway({ env }), startFreeway({ env })]);
    // The cache's connection may come up after the others: wait until each instance keeps answers in Redis.
    for (const [i, freeway] of [first, second].entries()) {
      const deadline = Date.now() + 8_000;
      for (let n = 0; ; n++) {
        const before = await peek.zcard('freeway:cache:index');
        await chat(freeway, `warm-up ${i} ${n}`, key(9000 + i));
        if ((await peek.zcard('freeway:cache:index')) > before) break;
        if (Date.now() > deadline) throw new Error('Freeway never kept an answer in Redis');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
  after(async () => {
    await first?.close();
    await second?.close();
    peek?.disconnect();
    await upstream?.close();
    await redis?.kill();
  });

  it('two instances share kept answers: an answer kept by one is a hit on the other, streamed and whole', async () => {
    const miss = await chat(first, 'Shared between instances', key(1));
    expect(miss.cache).to.equal('miss');
    const calls = upstream.requests.length;
    const hit = await chat(second, 'Shared between instances', key(1));
    expect(hit.cache).to.equal('hit');
    expect(JSON.parse(hit.body).choices[0].message.content).to.equal(ANSWER);
    const streamed = await chat(second, 'Shared between instances', key(1), true);
    expect(streamed.cache).to.equal('hit');
    expect(streamed.body).to.include('quarterly figures');
    expect(upstream.requests.length).to.equal(calls);
    // The same request with another key is another entry, which the first key's answer cannot serve.
    expect((await chat(second, 'Shared between instances', key(2))).cache).to.equal('miss');
    expect(upstream.requests.length).to.equal(calls + 1);
  });

  it('a dump of Redis holds no prompt, no answer and no key, and health keeps no upstream words', async () => {
    const prompt = 'My secret plan is to acquire Initech';
    await chat(first, prompt, key(3));
    await chat(first, prompt, key(3), true);
    // An upstream that quotes the request in its error: the key's health record in Redis must not carry it.
    upstream.handle((_req, res) => json(res, 500, { error: { message: `internal error while reading your message: ${prompt}`, type: 'server_error' } }));
    const failed = await chat(first, `${prompt} again`, key(4));
    expect(failed.status).to.equal(502);
    // The caller's own answer still tells what the upstream said.
    expect(failed.body).to.include('internal error while reading your message');
    upstream.handle((req, res) => openAIText(res, ANSWER, req));
    const health = await peek.keys('freeway:health:*');
    expect(health.length).to.be.greaterThan(0);
    const text = await dump(peek);
    expect(text).to.include('freeway:cache:');
    for (const secret of [prompt, 'Initech', ANSWER, 'quarterly', key(3), key(4), key(1), SECRET]) expect(text, secret).to.not.include(secret);
    const record = JSON.parse((await peek.get(`freeway:health:${createKeyHasher(SECRET)('groq', key(4))}`)) ?? '{}') as { reason?: string };
    expect(record.reason).to.match(/^500( server_error)?$/);
  });

  it('a model quarantined on an upstream 404 that quotes the request keeps its status in Redis, not the words', async () => {
    const prompt = 'Merger talks with Globex';
    upstream.handle((_req, res) => json(res, 404, { error: { message: `The model does not exist; you asked: ${prompt}`, type: 'invalid_request_error', code: 'model_not_found' } }));
    // Through an alias: a model its key cannot reach is set aside (quarantined) for the alias's next requests.
    const failed = await fetch(`${first.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Groq-Key': key(5) },
      body: JSON.stringify({ model: 'free:auto', messages: [{ role: 'user', content: prompt }] }),
    });
    expect(failed.status).to.equal(502);
    // The caller's own answer still says what the upstream said.
    expect(await failed.text()).to.include('The model does not exist');
    upstream.handle((req, res) => openAIText(res, ANSWER, req));
    const quarantines = await peek.keys('freeway:models:q:*');
    expect(quarantines.length).to.be.greaterThan(0);
    const text = await dump(peek);
    for (const words of [prompt, 'Globex', 'does not exist']) expect(text, words).to.not.include(words);
    const fields = Object.values(await peek.hgetall(quarantines[0] as string));
    expect(fields.some((value) => /^\d+\|404( invalid_request_error)?$/.test(value)), JSON.stringify(fields)).to.equal(true);
  });

  it('holds the cache within CACHE_MAX_BYTES in Redis under a flood of distinct requests', async () => {
    for (let i = 0; i < 80; i++) await chat(i % 2 === 0 ? first : second, `flood ${i} ${'y'.repeat(300)}`, key(5));
    const counted = Number(await peek.get('freeway:cache:bytes'));
    expect(counted).to.be.at.most(maxBytes);
    let held = 0;
    for (const name of await peek.zrange('freeway:cache:index', '0', '-1')) held += (await peek.strlen(name)) + name.length;
    expect(held).to.be.at.most(counted);
    expect((await chat(first, `flood 79 ${'y'.repeat(300)}`, key(5))).cache).to.equal('hit');
  });
});

describe('response cache with CACHE=redis while Redis does not answer', function () {
  this.timeout(20_000);

  it("keeps answers in the process's memory, says so in the log, and serves hits from it", async () => {
    const upstream = await startUpstream((req, res) => openAIText(res, ANSWER, req));
    const port = await freePort();
    const freeway = await startFreeway({
      env: { CACHE: 'redis', REDIS_URL: `redis://127.0.0.1:${port}`, KEY_HASH_SECRET: SECRET, GROQ_BASE_URL: upstream.url },
      awaitRedis: false,
    });
    try {
      expect((await chat(freeway, 'Redis is away', key(6))).cache).to.equal('miss');
      const calls = upstream.requests.length;
      const hit = await chat(freeway, 'Redis is away', key(6), true);
      expect(hit.cache).to.equal('hit');
      expect(hit.body).to.include('quarterly figures');
      expect(upstream.requests.length).to.equal(calls);
      await freeway.logged(/Response cache kept in this process's memory: Redis did not answer/);
    } finally {
      await freeway.close();
      await upstream.close();
    }
  });
});
