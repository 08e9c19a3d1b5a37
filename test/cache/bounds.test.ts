/**
 * What the response cache keeps, how long and how much: sealing under the caller's keys, the
 * memory store's byte bound (least recently used first) and expiry, and over HTTP the TTL, `Age`,
 * usage per key and /metrics.
 */
import { expect } from 'chai';
import { createMemoryCacheStore } from '../../server/cache/index.ts';
import { canonicalKeys, lockOf, open, seal } from '../../server/cache/seal.ts';
import { createTextHasher } from '../../server/state/key-hash.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { testKeys } from '../support/keys.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';
import { GROQ_FIRST } from '../support/current-models.ts';

const SECRET = 'a-secret-of-the-operator-0123456789';
const hasher = createTextHasher(SECRET);
const keysOf = (entries: Record<string, string[]>): Map<string, string[]> => new Map(Object.entries(entries));

describe('response cache: sealing under the caller\'s keys', () => {
  it('names an entry by every key in one canonical order, and leaves requests without a key out', () => {
    const call = JSON.stringify({ target: 'free:auto', prompt: 'hi' });
    const a = canonicalKeys(keysOf({ groq: ['gsk_b', 'gsk_a'], cerebras: ['csk_1'] })) as string[];
    const b = canonicalKeys(keysOf({ cerebras: ['csk_1'], groq: ['gsk_a', 'gsk_b'] })) as string[];
    expect(lockOf(hasher, SECRET, a, call).id).to.equal(lockOf(hasher, SECRET, b, call).id);
    const fewer = canonicalKeys(keysOf({ groq: ['gsk_a', 'gsk_b'] })) as string[];
    expect(lockOf(hasher, SECRET, fewer, call).id).to.not.equal(lockOf(hasher, SECRET, a, call).id);
    expect(lockOf(hasher, SECRET, a, `${call} `).id).to.not.equal(lockOf(hasher, SECRET, a, call).id);
    expect(canonicalKeys(keysOf({}))).to.equal(undefined);
    expect(canonicalKeys(keysOf({ ovhcloud: ['anonymous'] }))).to.equal(undefined);
  });

  it('opens an entry only with the same keys and secret, and never a changed one', () => {
    const call = JSON.stringify({ prompt: 'the prompt' });
    const mine = lockOf(hasher, SECRET, ['groq', 'gsk_mine'], call);
    const sealed = seal(mine, 'the answer');
    expect(sealed.toString('latin1')).to.not.include('the answer');
    expect(open(mine, sealed)).to.equal('the answer');
    // Another caller who knows the id (and the prompt) but not the keys.
    expect(open({ id: mine.id, key: lockOf(hasher, SECRET, ['groq', 'gsk_other'], call).key }, sealed)).to.equal(undefined);
    expect(open(lockOf(createTextHasher('another-secret-0123456789'), 'another-secret-0123456789', ['groq', 'gsk_mine'], call), sealed)).to.equal(undefined);
    // The id is authenticated: the same ciphertext does not open under another entry's id.
    expect(open({ ...mine, id: `${mine.id}x` }, sealed)).to.equal(undefined);
    const changed = Buffer.from(sealed);
    changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 1;
    expect(open(mine, changed)).to.equal(undefined);
    expect(open(mine, Buffer.alloc(10))).to.equal(undefined);
  });
});

describe('response cache: the memory store', () => {
  it('holds at most CACHE_MAX_BYTES, drops the least recently used first and counts what it drops', async () => {
    let evicted = 0;
    const max = 4_096;
    const store = createMemoryCacheStore(max, (count) => (evicted += count));
    const value = Buffer.alloc(500, 1);
    await store.set('first', value, 60_000);
    for (let i = 0; i < 100; i++) {
      await store.set(`entry-${i}`, value, 60_000);
      // The first entry is used all along: it is never the least recently used.
      expect(await store.get('first'), `after ${i}`).to.not.equal(undefined);
      expect(await store.bytes()).to.be.at.most(max);
    }
    expect(await store.get('entry-0')).to.equal(undefined);
    expect(await store.get('entry-99')).to.not.equal(undefined);
    expect(evicted).to.be.greaterThan(90);
    // One value larger than the whole bound is not kept, and drops nothing.
    const before = evicted;
    await store.set('huge', Buffer.alloc(max), 60_000);
    expect(await store.get('huge')).to.equal(undefined);
    expect(evicted).to.equal(before);
    await store.close();
  });

  it('forgets an entry at its expiry', async () => {
    let now = 1_000_000;
    const store = createMemoryCacheStore(1_000_000, () => {}, () => now);
    await store.set('a', Buffer.from('x'), 1_000);
    now += 999;
    expect(await store.get('a')).to.not.equal(undefined);
    now += 1;
    expect(await store.get('a')).to.equal(undefined);
    expect(await store.bytes()).to.equal(0);
    await store.close();
  });
});

const MODEL = `groq/${GROQ_FIRST}`;
const groq = { 'X-Groq-Key': testKeys.groq as string };

async function chat(freeway: RunningFreeway, prompt: string): Promise<Response> {
  const res = await fetch(`${freeway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...groq },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: prompt }] }),
  });
  await res.arrayBuffer();
  return res;
}

async function metricsText(freeway: RunningFreeway): Promise<string> {
  return (await fetch(`${freeway.url}/metrics`)).text();
}

const metric = (text: string, line: RegExp): number => Number(line.exec(text)?.[1] ?? Number.NaN);

describe('response cache over HTTP: TTL, Age, usage per key and /metrics', function () {
  this.timeout(30_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let now = Date.parse('2026-12-01T12:00:00Z');

  before(async function () {
    upstream = await startUpstream((req, res) => openAIText(res, 'Kept for a minute', req));
    freeway = await startFreeway({ env: { CACHE: 'memory', CACHE_TTL_MS: '60000', CACHE_MAX_BYTES: '32kb', GROQ_BASE_URL: upstream.url }, now: () => now });
  });
  after(async function () {
    await freeway.close();
    await upstream.close();
  });

  it('serves a kept answer with its age until CACHE_TTL_MS has passed, then asks the upstream again', async () => {
    expect((await chat(freeway, 'ttl')).headers.get('x-freeway-cache')).to.equal('miss');
    now += 5_000;
    const hit = await chat(freeway, 'ttl');
    expect(hit.headers.get('x-freeway-cache')).to.equal('hit');
    expect(hit.headers.get('age')).to.equal('5');
    now += 55_000;
    const calls = upstream.requests.length;
    expect((await chat(freeway, 'ttl')).headers.get('x-freeway-cache')).to.equal('miss');
    expect(upstream.requests.length).to.equal(calls + 1);
  });

  it('counts a hit in usage per key as a cache hit, no tokens, and in /metrics', async () => {
    const before = await metricsText(freeway);
    await chat(freeway, 'counted');
    await chat(freeway, 'counted');
    await chat(freeway, 'counted');
    const after = await metricsText(freeway);
    const hits = (text: string): number => metric(text, /^freeway_cache_lookups_total\{result="hit"\} (\d+)/m) || 0;
    const misses = (text: string): number => metric(text, /^freeway_cache_lookups_total\{result="miss"\} (\d+)/m) || 0;
    expect(hits(after) - hits(before)).to.equal(2);
    expect(misses(after) - misses(before)).to.equal(1);
    expect(metric(after, /^freeway_cache_bytes (\d+)/m)).to.be.greaterThan(0);
    const providers = (await (await fetch(`${freeway.url}/v1/providers`, { headers: groq })).json()) as { data: Array<{ id: string; keys?: Array<{ usage?: { days: Array<{ models: Array<Record<string, number | string>> }> } }> }> };
    const models = providers.data.find((entry) => entry.id === 'groq')?.keys?.[0]?.usage?.days[0]?.models ?? [];
    const used = models.find((entry) => entry.model === MODEL);
    // Every answer so far: 'ttl' twice and 'counted' once from the upstream (7 + 3 tokens each), the rest from the cache.
    expect(used).to.deep.include({ requests: 3, answers: 3, inputTokens: 21, outputTokens: 9, cacheHits: 3 });
  });

  it('passes on a streamed answer larger than a sixteenth of CACHE_MAX_BYTES whole, and does not keep it', async () => {
    const large = 'long-'.repeat(1_000);
    upstream.handle((req, res) => openAIText(res, large, req));
    try {
      const send = async (): Promise<{ cache: string | null; text: string }> => {
        const res = await fetch(`${freeway.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...groq },
          body: JSON.stringify({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'a large answer' }] }),
        });
        const text = (await res.text())
          .split('\n')
          .filter((line) => line.startsWith('data: {'))
          .map((line) => JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? '')
          .join('');
        return { cache: res.headers.get('x-freeway-cache'), text };
      };
      const first = await send();
      expect(first.text).to.equal(large);
      const second = await send();
      expect(second.cache).to.equal('miss');
      expect(second.text).to.equal(large);
    } finally {
      upstream.handle((req, res) => openAIText(res, 'Kept for a minute', req));
    }
  });

  it('stays within CACHE_MAX_BYTES under a flood of distinct requests, and counts what it drops', async () => {
    for (let i = 0; i < 120; i++) await chat(freeway, `flood ${i} ${'x'.repeat(200)}`);
    const text = await metricsText(freeway);
    expect(metric(text, /^freeway_cache_bytes (\d+)/m)).to.be.at.most(32 * 1024);
    expect(metric(text, /^freeway_cache_evictions_total (\d+)/m)).to.be.greaterThan(0);
    // The most recent is still kept.
    expect((await chat(freeway, `flood 119 ${'x'.repeat(200)}`)).headers.get('x-freeway-cache')).to.equal('hit');
  });
});
