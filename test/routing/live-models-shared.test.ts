/**
 * Live model lists and quarantines shared through Redis by two Freeway instances,
 * and the bounds of the stores that hold them (docs/models.md).
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import type { ProviderPlugin } from '../../providers/types.ts';
import { createBoundedMap } from '../../server/state/bounded-map.ts';
import { createMemoryKnowledgeStore, MAX_FIELDS } from '../../server/state/knowledge.ts';
import { loadConfig } from '../../server/config/index.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { testKeys } from '../support/keys.ts';
import { chatModels, groqWithListing, heldListing, listings, modelNotFound, provider } from '../support/live-models.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';
import { openAIError, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

const secret = 'test-secret-for-key-hashes-0123456789';
const key = testKeys.groq as string;
const otherKey = 'gsk_Qw7LiveListOtherKeyZx93PdRt5Vb2Nc8Hm4';

function chat(freeway: RunningFreeway, model: string, value: string): Promise<Response> {
  return fetch(`${freeway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Groq-Key': value },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('live model lists through Redis', () => {
  let redis: RunningRedis;
  let groq: ProviderPlugin;
  let upstream: FakeUpstream;
  const running: RunningFreeway[] = [];

  async function instance(): Promise<RunningFreeway> {
    const freeway = await startFreeway({ plugins: [groq], env: { GROQ_BASE_URL: upstream.url, REDIS_URL: redis.url, KEY_HASH_SECRET: secret, MODELS_LIVE: 'on', MODEL_QUARANTINE_MS: '21600000' } });
    running.push(freeway);
    return freeway;
  }

  before(async function () {
    skipWithoutRedis(this);
    redis = await startRedis();
    groq = await groqWithListing();
  });
  after(async () => {
    await redis?.kill();
  });
  beforeEach(async () => {
    upstream = await startUpstream();
  });
  afterEach(async () => {
    for (const freeway of running.splice(0)) await freeway.close();
    await upstream.close();
  });

  it('20 concurrent first requests with a new key, on two instances sharing one Redis, cause one listing call', async () => {
    const { handler, release } = heldListing(['shared-live-model']);
    upstream.handle(handler);
    const [a, b] = [await instance(), await instance()];
    const fresh = 'gsk_Rd4SharedListingKeyTp82Lm5Qx7Vn3Jk9';
    const answers = Array.from({ length: 20 }, (_, i) => chat(i % 2 === 0 ? (a as RunningFreeway) : (b as RunningFreeway), 'free:auto', fresh));
    for (let i = 0; i < 300 && listings(upstream.requests) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    for (const res of await Promise.all(answers)) expect(res.status).to.equal(200);
    expect(listings(upstream.requests)).to.equal(1);
    // The other instance uses what the first learnt.
    expect((await chat(b as RunningFreeway, 'free:auto', fresh)).headers.get('x-freeway-model')).to.equal('groq/shared-live-model');
    expect(listings(upstream.requests)).to.equal(1);

    // Redis holds no key, and no plain hash of one.
    const peek = new Redis(redis.url);
    try {
      const names = await peek.keys('freeway:models:*');
      expect(names.length).to.be.greaterThan(0);
      const everything = JSON.stringify([names, await Promise.all(names.map(async (name) => ((await peek.type(name)) === 'hash' ? peek.hgetall(name) : peek.get(name))))]);
      expect(everything).to.not.include(fresh);
      expect(everything).to.not.include(fresh.slice(4, 20));
    } finally {
      peek.disconnect();
    }
  });

  it('a 404 model is not called again for that key, and a 410 model not for any key, on the other instance too', async () => {
    upstream.handle(
      provider(
        () => ['missing-model', 'retired-model', 'steady-model'],
        (model, req, res) => {
          if (model === 'missing-model') modelNotFound(res, model);
          else if (model === 'retired-model') openAIError(res, 410, 'This model has been retired.');
          else openAIText(res, 'Hello', req);
        },
      ),
    );
    const [a, b] = [await instance(), await instance()];
    expect((await chat(a as RunningFreeway, 'free:auto', key)).headers.get('x-freeway-model')).to.equal('groq/steady-model');
    expect(chatModels(upstream.requests)).to.deep.equal(['missing-model', 'retired-model', 'steady-model']);
    upstream.requests.length = 0;
    await chat(b as RunningFreeway, 'free:auto', key);
    expect(chatModels(upstream.requests)).to.deep.equal(['steady-model']);
    upstream.requests.length = 0;
    await chat(b as RunningFreeway, 'free:auto', otherKey);
    expect(chatModels(upstream.requests)).to.deep.equal(['missing-model', 'steady-model']);
  });
});

describe('live model lists shared between workers', () => {
  it('20 concurrent first requests with a new key, on two workers sharing the primary\'s store, cause one listing call', async () => {
    const groq = await groqWithListing();
    const upstream = await startUpstream();
    // The cluster primary serves its workers the same memory store over IPC (server/cluster/), and one KEY_HASH_SECRET.
    const shared = createMemoryKnowledgeStore(100, 1024 ** 2);
    const workers: RunningFreeway[] = [];
    try {
      const { handler, release } = heldListing(['shared-live-model']);
      upstream.handle(handler);
      for (let i = 0; i < 2; i++) {
        workers.push(await startFreeway({ plugins: [groq], knowledgeStore: shared, env: { GROQ_BASE_URL: upstream.url, MODELS_LIVE: 'on', MODELS_FIRST_WAIT_MS: '60000', KEY_HASH_SECRET: secret } }));
      }
      const answers = Array.from({ length: 20 }, (_, i) => chat(workers[i % 2] as RunningFreeway, 'free:auto', key));
      for (let i = 0; i < 300 && listings(upstream.requests) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      release();
      const replies = await Promise.all(answers);
      for (const res of replies) expect(res.status).to.equal(200);
      expect(listings(upstream.requests)).to.equal(1);
      // Both waited for the one listing, and route on it.
      expect(new Set(replies.map((res) => res.headers.get('x-freeway-model')))).to.deep.equal(new Set(['groq/shared-live-model']));
    } finally {
      for (const worker of workers) await worker.close();
      await shared.close();
      await upstream.close();
    }
  });
});

describe('bounds of the model stores', () => {
  it('a bounded map drops the least recently written entry past its count or its bytes, and expired entries when read', () => {
    const map = createBoundedMap<string>(3, 100);
    for (const id of ['a', 'b', 'c', 'd']) map.set(id, id, 10, 1_000);
    expect(map.size).to.equal(3);
    expect(map.get('a', 0)).to.equal(undefined);
    map.set('big', 'x', 80, 1_000);
    expect(map.bytes).to.be.at.most(100);
    expect(map.get('big', 0)).to.equal('x');
    expect(map.get('big', 1_000)).to.equal(undefined);
    map.set('huge', 'y', 101, 1_000);
    expect(map.get('huge', 0)).to.equal(undefined);
  });

  it('the memory store keeps at most MODELS_MAX_KEYS entries and MODELS_MAX_BYTES, claims once, and caps a record\'s fields', async () => {
    const store = createMemoryKnowledgeStore(10, 4_000);
    try {
      for (let i = 0; i < 50; i++) await store.set(`list:groq:${i}`, 'x'.repeat(100), 60_000);
      const held = (await store.get(Array.from({ length: 50 }, (_, i) => `list:groq:${i}`))).filter((value) => value !== undefined);
      expect(held.length).to.be.at.most(10);
      expect(held.length * (2 * 100 + 64)).to.be.at.most(4_000);
      expect(await store.claim('lock:groq:a', 60_000)).to.equal(true);
      expect(await store.claim('lock:groq:a', 60_000)).to.equal(false);
    } finally {
      await store.close();
    }
    const roomy = createMemoryKnowledgeStore(10, 1024 ** 2);
    try {
      for (let i = 0; i < MAX_FIELDS + 10; i++) await roomy.setField('q:groq:b', `model-${i}`, '1|gone', 60_000);
      const [fields] = await roomy.fields(['q:groq:b']);
      expect(Object.keys(fields ?? {})).to.have.length(MAX_FIELDS);
      expect(fields).to.not.have.property('model-0');
    } finally {
      await roomy.close();
    }
  });

  it('the new settings are checked at start-up', async () => {
    const plugins = [await groqWithListing()];
    expect(() => loadConfig({ MODELS_LIVE: 'maybe' }, plugins)).to.throw('MODELS_LIVE must be one of on, off, got "maybe"');
    expect(() => loadConfig({ MODELS_FIRST_WAIT_MS: '-1' }, plugins)).to.throw(/MODELS_FIRST_WAIT_MS must be an integer from 0 to 60000/);
    expect(() => loadConfig({ MODEL_QUARANTINE_MS: 'soon' }, plugins)).to.throw(/MODEL_QUARANTINE_MS must be an integer >= 0/);
    const config = loadConfig({}, plugins);
    expect(config.models).to.deep.include({ live: true, refreshMs: 3_600_000, firstWaitMs: 1_500, quarantineMs: 21_600_000, noCreditWaitMs: 86_400_000 });
  });
});
