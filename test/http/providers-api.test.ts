import { expect } from 'chai';
import { kindAliasFamilies } from '../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { providerPlugins } from '../support/plugins.ts';
import { testKeys } from '../support/keys.ts';
import { openAIError, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { checkablePlugins, keyCheckAnswers, keyFor } from '../support/checkable.ts';
import { skipWithoutRedis, startRedis, type RunningRedis } from '../support/redis.ts';
import { createMemoryKeyCheckStore } from '../../server/state/key-checks.ts';

interface KeyEntry {
  position: number;
  state: string;
  retryAfter: number | null;
  quota: unknown;
  checkedAt: number | null;
  usableModels: number;
  usableAliases: string[];
  consecutiveFailures: number;
  reason: string | null;
  check?: { status: string; message?: string };
}
interface ProviderEntry {
  id: string;
  name: string;
  header: string;
  keyUrl: string;
  tier: string;
  tierSource: string;
  aliases: string[];
  models: number;
  keyHint: string | null;
  signUp: ProviderPlugin['signUp'] | null;
  anonymous: ProviderPlugin['anonymous'] | null;
  keys?: KeyEntry[];
}
interface ProvidersBody {
  object: 'list';
  data: ProviderEntry[];
  check?: { budgetSpent: boolean; message?: string };
}

/** The embedding and transcription models of a plugin that are not deprecated, and the aliases of their kind (one family each) they join. */
function otherKinds(plugin: ProviderPlugin): { aliases: string[]; models: number } {
  const models = [...(plugin.embeddingModels ?? []), ...(plugin.transcriptionModels ?? [])].filter((model) => model.deprecated !== true);
  const aliases = kindAliasFamilies.filter(([, , family]) => models.some((model) => model.family.id === family)).map(([id]) => id);
  return { aliases, models: models.length };
}

/** Aliases a provider can serve and its usable model count, every kind, computed here from the plugin, not from Freeway's code. */
function expectedOffer(plugin: ProviderPlugin): { aliases: string[]; models: number } {
  const chat = plugin.models.filter((model) => (model.kind ?? 'chat') === 'chat' && model.deprecated !== true);
  const aliases = ['free:auto'];
  for (const capability of ['fast', 'reasoning', 'long-context', 'vision', 'tool-use'] as const) {
    if (chat.some((model) => model.capabilities.includes(capability))) aliases.push(`free:${capability}`);
  }
  const other = otherKinds(plugin);
  return { aliases: [...(chat.length > 0 ? aliases : []), ...other.aliases], models: chat.length + other.models };
}

describe('GET /v1/providers', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let clock = Date.now();
  const start = async (env: Record<string, string> = {}): Promise<RunningFreeway> => {
    const plugins = await checkablePlugins();
    const urls: Record<string, string> = {};
    for (const plugin of plugins) urls[`${plugin.id.toUpperCase()}_BASE_URL`] = upstream.url + '/' + plugin.id;
    return startFreeway({ plugins, env: { ...urls, ...env }, now: () => clock });
  };
  const get = async (query = '', headers: Record<string, string> = {}, on: RunningFreeway = freeway): Promise<ProvidersBody> => {
    const response = await fetch(`${on.url}/v1/providers${query}`, { headers });
    const text = await response.text();
    expect(response.status, text).to.equal(200);
    return JSON.parse(text) as ProvidersBody;
  };
  const provider = (body: ProvidersBody, id: string): ProviderEntry => {
    const found = body.data.find((entry) => entry.id === id);
    if (!found) throw new Error(`no ${id} in the answer`);
    return found;
  };

  before(async function () {
    const answer = await keyCheckAnswers();
    upstream = await startUpstream((req, res) => {
      const id = req.path.split('/')[1] ?? '';
      if (!answer(id, req, res)) res.writeHead(500).end();
    });
    freeway = await start();
  });
  after(async function () {
    await freeway.close();
    await upstream.close();
  });
  beforeEach(function () {
    upstream.requests.length = 0;
    clock += 3_600_000;
  });

  it('without keys lists every discovered plugin: name, header, where to get a key, tier and its source, aliases, curated model count (every kind)', async function () {
    const plain = await startFreeway();
    try {
      const body = await get('', {}, plain);
      const plugins = await providerPlugins();
      expect(body.object).to.equal('list');
      expect(body.data.map((entry) => entry.id).sort()).to.deep.equal(plugins.map((plugin) => plugin.id).sort());
      for (const plugin of plugins) {
        const entry = provider(body, plugin.id);
        expect(entry).to.include({ name: plugin.name, header: plugin.header, keyUrl: plugin.keyUrl, tier: plugin.tier.tier, tierSource: plugin.tier.source, models: plugin.models.length + (plugin.embeddingModels?.length ?? 0) + (plugin.transcriptionModels?.length ?? 0) });
        expect(entry.aliases, plugin.id).to.deep.equal(expectedOffer(plugin).aliases);
        expect(entry.signUp, plugin.id).to.deep.equal(plugin.signUp ?? null);
        expect(entry.anonymous, plugin.id).to.deep.equal(plugin.anonymous ?? null);
        expect(entry).to.not.have.property('keys');
      }
      // A key's look, for the console's fields: the literal start of the key pattern, or the plugin's own hint.
      expect(provider(body, 'groq').keyHint).to.equal('gsk_…');
      expect(provider(body, 'openrouter').keyHint).to.equal('sk-or-…');
      expect(provider(body, 'cloudflare').keyHint).to.equal('account_id:api_token');
      expect(provider(body, 'mistral').keyHint, 'no key pattern: nothing to hint').to.equal(null);
      expect(upstream.requests).to.have.length(0);
    } finally {
      await plain.close();
    }
  });

  it('with keys: each key by position, unchecked before anything is known, with what it can use; never any key material', async function () {
    const first = keyFor('groq', 'good');
    const second = keyFor('groq', 'invalid');
    const body = await get('', { 'X-Groq-Key': `${first}, ${second}` });
    const groq = provider(body, 'groq');
    const plugin = (await providerPlugins()).find((candidate) => candidate.id === 'groq') as ProviderPlugin;
    const offer = expectedOffer(plugin);
    expect(groq.keys).to.deep.equal([
      { position: 1, state: 'unchecked', retryAfter: null, quota: null, checkedAt: null, usableModels: offer.models, usableAliases: offer.aliases, consecutiveFailures: 0, reason: null, usage: { days: [] } },
      { position: 2, state: 'unchecked', retryAfter: null, quota: null, checkedAt: null, usableModels: offer.models, usableAliases: offer.aliases, consecutiveFailures: 0, reason: null, usage: { days: [] } },
    ]);
    for (const entry of body.data) if (entry.id !== 'groq') expect(entry).to.not.have.property('keys');
    const text = JSON.stringify(body);
    expect(text).to.not.include(first.slice(4, 16));
    expect(text).to.not.include(second.slice(4, 16));
    expect(upstream.requests, 'no check without ?check=1').to.have.length(0);
  });

  it('?check=1 calls the listing with the key and reads 200 as a valid key: healthy, checkedAt set', async function () {
    const key = keyFor('groq', 'good');
    const body = await get('?check=1', { 'X-Groq-Key': key });
    const [entry] = provider(body, 'groq').keys ?? [];
    expect(entry).to.include({ position: 1, state: 'healthy', checkedAt: Math.floor(clock / 1000), consecutiveFailures: 0, reason: null });
    expect(entry?.check).to.deep.equal({ status: 'checked' });
    expect(body.check).to.deep.equal({ budgetSpent: false });
    expect(upstream.requests.map((req) => [req.method, req.path, req.headers.authorization])).to.deep.equal([['GET', '/groq/models', `Bearer ${key}`]]);
  });

  it('a 401 is invalid_key: nothing usable, and routing (/health) skips the key too', async function () {
    const key = keyFor('groq', 'invalid');
    const body = await get('?check=1', { 'X-Groq-Key': key });
    const [entry] = provider(body, 'groq').keys ?? [];
    expect(entry).to.include({ state: 'invalid_key', usableModels: 0 });
    expect(entry?.usableAliases).to.deep.equal([]);
    expect(entry?.retryAfter).to.be.a('number').above(0);
    // What the provider said, for the console to say what to do: the status first, never the key.
    expect(entry?.reason).to.match(/^401 /);
    const health = (await (await fetch(`${freeway.url}/health`, { headers: { 'X-Groq-Key': key } })).json()) as { providers: { groq: { state: string } } };
    expect(health.providers.groq.state).to.equal('invalid_key');
    expect(JSON.stringify(body)).to.not.include(key.slice(4, 16));
  });

  it('Google\'s invalid key is a 400, read with its plugin\'s error table: invalid_key', async function () {
    const key = keyFor('google', 'invalid');
    const body = await get('?check=1', { 'X-Google-Key': key });
    expect(provider(body, 'google').keys?.[0]?.state).to.equal('invalid_key');
    expect(upstream.requests.map((req) => [req.path, req.headers['x-goog-api-key']])).to.deep.equal([['/google/models?pageSize=1000', key]]);
  });

  it('a 402 is no_credit; a 429 is rate_limited with its wait', async function () {
    const body = await get('?check=1', { 'X-Openrouter-Key': keyFor('openrouter', 'no_credit'), 'X-Google-Key': keyFor('google', 'busy') });
    expect(provider(body, 'openrouter').keys?.[0]).to.include({ state: 'no_credit', usableModels: 0 });
    // Google's RetryInfo says 43s.
    expect(provider(body, 'google').keys?.[0]).to.include({ state: 'rate_limited', retryAfter: 43, usableModels: 0 });
  });

  it('OpenRouter is checked at its key endpoint, not its listing, which answers any key', async function () {
    const key = keyFor('openrouter', 'good');
    const body = await get('?check=1', { 'X-Openrouter-Key': key });
    expect(provider(body, 'openrouter').keys?.[0]?.state).to.equal('healthy');
    expect(upstream.requests.map((req) => [req.path, req.headers.authorization])).to.deep.equal([['/openrouter/key', `Bearer ${key}`]]);
  });

  it('a provider with neither key check nor listing: the key cannot be checked, and nothing is sent', async function () {
    const plugins = await checkablePlugins();
    const plain = plugins.find((plugin) => !plugin.listing && !plugin.keyCheck && testKeys[plugin.id] !== undefined) as ProviderPlugin;
    const body = await get('?check=1', { [plain.header]: testKeys[plain.id] as string });
    const [entry] = provider(body, plain.id).keys ?? [];
    expect(entry?.state).to.equal('unchecked');
    expect(entry?.check?.status).to.equal('not_checkable');
    expect(entry?.check?.message).to.include(`${plain.name} documents no call Freeway can check a key with`).and.include('cannot be checked');
    expect(upstream.requests).to.have.length(0);
  });

  it('at most one check per key per KEY_CHECK_INTERVAL_MS: in between, the last answer is shown', async function () {
    const key = keyFor('groq', 'invalid');
    await get('?check=1', { 'X-Groq-Key': key });
    clock += 59_000;
    const again = await get('?check=1', { 'X-Groq-Key': key });
    const [entry] = provider(again, 'groq').keys ?? [];
    expect(entry?.state).to.equal('invalid_key');
    expect(entry?.check?.status).to.equal('cached');
    expect(entry?.check?.message).to.include('KEY_CHECK_INTERVAL_MS').and.include('401');
    expect(upstream.requests).to.have.length(1);
    clock += 1_000;
    await get('?check=1', { 'X-Groq-Key': key });
    expect(upstream.requests).to.have.length(2);
  });

  it('a success clears invalid_key but not rate_limited: a listing that answers says nothing of a spent quota', async function () {
    const often = await start({ KEY_CHECK_INTERVAL_MS: '1000' });
    const answer = await keyCheckAnswers();
    try {
      const refused = keyFor('groq', 'invalid');
      const limited = keyFor('google', 'busy');
      const first = await get('?check=1', { 'X-Groq-Key': refused, 'X-Google-Key': limited }, often);
      expect(provider(first, 'groq').keys?.[0]?.state).to.equal('invalid_key');
      // Google's RetryInfo: 43 s.
      expect(provider(first, 'google').keys?.[0]).to.include({ state: 'rate_limited', retryAfter: 43 });
      clock += 2_000;
      // Now both keys are answered as valid by their listings.
      upstream.handle((req, res) => {
        const body = req.path.startsWith('/google/') ? '{"models":[]}' : '{"object":"list","data":[]}';
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
      const second = await get('?check=1', { 'X-Groq-Key': refused, 'X-Google-Key': limited }, often);
      expect(upstream.requests).to.have.length(4);
      // The invalid_key wait (10 minutes) is far from over: the check's success cleared it.
      expect(provider(second, 'groq').keys?.[0]).to.include({ state: 'healthy' });
      expect(provider(second, 'google').keys?.[0]).to.include({ state: 'rate_limited', retryAfter: 41 });
    } finally {
      await often.close();
      upstream.handle((req, res) => {
        if (!answer(req.path.split('/')[1] ?? '', req, res)) res.writeHead(500).end();
      });
    }
  });

  it('checks count against KEY_CHECKS_PER_MINUTE per client: past it, the last known states and a budget notice', async function () {
    const budgeted = await start({ KEY_CHECKS_PER_MINUTE: '2' });
    try {
      const keys = [keyFor('groq', 'good'), keyFor('groq', 'invalid'), keyFor('groq', 'no_credit')];
      const body = await get('?check=1', { 'X-Groq-Key': keys.join(',') }, budgeted);
      const entries = provider(body, 'groq').keys ?? [];
      expect(entries.map((entry) => entry.check?.status)).to.deep.equal(['checked', 'checked', 'budget_spent']);
      expect(entries.map((entry) => entry.state)).to.deep.equal(['healthy', 'invalid_key', 'unchecked']);
      expect(body.check?.budgetSpent).to.equal(true);
      expect(body.check?.message).to.include('KEY_CHECKS_PER_MINUTE').and.include('at most 2 checks per minute');
      expect(upstream.requests).to.have.length(2);
      // A new minute, a new budget.
      clock += 60_000;
      const later = await get('?check=1', { 'X-Groq-Key': keyFor('groq', 'busy') }, budgeted);
      expect(provider(later, 'groq').keys?.[0]?.check?.status).to.equal('checked');
    } finally {
      await budgeted.close();
    }
  });

  it('all keys are checked in parallel within KEY_CHECK_TIMEOUT_MS: a silent provider is "failed: timeout", health untouched', async function () {
    const quick = await start({ KEY_CHECK_TIMEOUT_MS: '300' });
    const held: Array<() => void> = [];
    upstream.handle((_req, res) => {
      held.push(() => res.destroy());
    });
    try {
      const body = await get('?check=1', { 'X-Groq-Key': `${keyFor('groq', 'good')},${keyFor('groq', 'invalid')}` }, quick);
      const entries = provider(body, 'groq').keys ?? [];
      expect(entries.map((entry) => [entry.state, entry.check?.status])).to.deep.equal([['unchecked', 'failed'], ['unchecked', 'failed']]);
      expect(entries[0]?.check?.message).to.include('timeout');
      expect(upstream.requests, 'both were asked at once').to.have.length(2);
    } finally {
      for (const release of held) release();
      await quick.close();
      const answer = await keyCheckAnswers();
      upstream.handle((req, res) => {
        if (!answer(req.path.split('/')[1] ?? '', req, res)) res.writeHead(500).end();
      });
    }
  });

  it('a provider failing (503) says nothing of the key: failed, with the provider\'s message', async function () {
    const body = await get('?check=1', { 'X-Groq-Key': keyFor('groq', 'down') });
    const [entry] = provider(body, 'groq').keys ?? [];
    expect(entry?.state).to.equal('unchecked');
    expect(entry?.check?.status).to.equal('failed');
    expect(entry?.check?.message).to.include('503 Service Unavailable');
  });

  it('with MODELS_LIVE=on, what a key can use is its live list: the listed chat models and the aliases they join, with the curated models of other kinds', async function () {
    // Groq's listing as https://console.groq.com/docs/api-reference#models-list documents it: one current curated
    // model, one model the plugin does not know (free on Groq's free plan), and a Whisper model, never counted for chat.
    const curated = (await providerPlugins()).find((plugin) => plugin.id === 'groq')?.models.find((model) => !model.deprecated && model.capabilities.includes('reasoning'));
    if (!curated) throw new Error('groq has no current reasoning model');
    const listed = [curated.id, 'vendor/brand-new-free-model', 'whisper-large-v3'];
    const live = await startUpstream((req, res) => {
      if (req.path.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: listed.map((id) => ({ id, object: 'model', owned_by: 'Groq', active: true, context_window: 8192 })) }));
      } else res.writeHead(500).end();
    });
    const on = await startFreeway({ plugins: await checkablePlugins(), env: { GROQ_BASE_URL: live.url, MODELS_LIVE: 'on', MODELS_FIRST_WAIT_MS: '5000' }, now: () => clock });
    try {
      const body = await get('', { 'X-Groq-Key': keyFor('groq', 'good') }, on);
      const [entry] = provider(body, 'groq').keys ?? [];
      // The listed Whisper is never counted for chat; Groq's curated transcription models count as what they are.
      const groq = (await providerPlugins()).find((plugin) => plugin.id === 'groq') as ProviderPlugin;
      const other = otherKinds(groq);
      expect(entry?.usableModels, 'the curated model and the unknown free one, and the curated transcription models').to.equal(2 + other.models);
      expect(entry?.usableAliases).to.deep.equal([
        'free:auto',
        ...(['fast', 'reasoning', 'long-context', 'vision', 'tool-use'] as const).filter((capability) => curated.capabilities.includes(capability)).map((capability) => `free:${capability}`),
        ...other.aliases,
      ]);
      expect(live.requests.map((req) => req.path)).to.deep.equal(['/models']);
    } finally {
      await on.close();
      await live.close();
    }
  });

  it('bad input is a 400 naming the header and the key\'s position', async function () {
    const key = keyFor('groq', 'good');
    await expectError(await fetch(`${freeway.url}/v1/providers`, { headers: { 'X-Groq-Key': `${key},${key}` } }), 400, 'invalid_request_error', 'X-Groq-Key: key 2 repeats key 1.');
    await expectError(await fetch(`${freeway.url}/v1/providers?check=yes`), 400, 'invalid_request_error', 'Validation failed: check: must be 1 (check the keys now) or absent.');
    await expectError(await fetch(`${freeway.url}/v1/providers`, { method: 'POST' }), 405, 'invalid_request_error', 'Method POST is not allowed on /v1/providers. Allowed: GET, HEAD.');
  });

  describe('shared between instances through Redis', function () {
    let redis: RunningRedis;
    before(async function () {
      skipWithoutRedis(this);
      redis = await startRedis();
    });
    after(async function () {
      await redis?.kill();
    });

    it('a key checked on one instance is not checked again on another within the interval; the budget is shared too', async function () {
      const env = { REDIS_URL: redis.url, KEY_HASH_SECRET: 'a-shared-secret-of-enough-length', KEY_CHECKS_PER_MINUTE: '2' };
      const one = await start(env);
      const two = await start(env);
      try {
        const key = keyFor('groq', 'invalid');
        await get('?check=1', { 'X-Groq-Key': key }, one);
        const there = await get('?check=1', { 'X-Groq-Key': key }, two);
        expect(provider(there, 'groq').keys?.[0]).to.include({ state: 'invalid_key' });
        expect(provider(there, 'groq').keys?.[0]?.check?.status).to.equal('cached');
        expect(upstream.requests).to.have.length(1);
        await get('?check=1', { 'X-Groq-Key': keyFor('groq', 'good') }, two);
        const spent = await get('?check=1', { 'X-Groq-Key': keyFor('groq', 'busy') }, one);
        expect(spent.check?.budgetSpent).to.equal(true);
        expect(upstream.requests).to.have.length(2);
      } finally {
        await one.close();
        await two.close();
      }
    });
  });
});

describe('key check records in memory', function () {
  it('are capped at HEALTH_MAX_RECORDS each: the least recently written claim, answer and budget go first', async function () {
    const store = createMemoryKeyCheckStore(2);
    try {
      const at = 1_000_000;
      expect(await store.claim('a', at, 60_000)).to.equal(true);
      expect(await store.claim('b', at, 60_000)).to.equal(true);
      expect(await store.claim('a', at, 60_000)).to.equal(false);
      expect(await store.claim('c', at, 60_000)).to.equal(true);
      // 'a' was the oldest claim: it was dropped, and 'a' may be checked again (one extra check, no more).
      expect(await store.claim('a', at, 60_000)).to.equal(true);
      expect(await store.claim('c', at, 60_000)).to.equal(false);

      for (const id of ['a', 'b', 'c']) await store.save(id, { checkedAt: Date.now(), result: 'valid' });
      expect((await store.get(['a', 'b', 'c'])).map((record) => record?.result)).to.deep.equal([undefined, 'valid', 'valid']);

      expect(await store.spend('client-1', at, 1)).to.equal(true);
      expect(await store.spend('client-1', at, 1)).to.equal(false);
      await store.spend('client-2', at, 1);
      await store.spend('client-3', at, 1);
      // client-1's spent minute was dropped with its entry: it gets one more check, no more.
      expect(await store.spend('client-1', at, 1)).to.equal(true);
      expect(await store.spend('client-1', at, 1)).to.equal(false);
      // A new minute, a new budget.
      expect(await store.spend('client-1', at + 60_000, 1)).to.equal(true);
    } finally {
      await store.close();
    }
  });

  it('an error answer is read up to 16 kB: a provider sending megabytes does not fill memory', async function () {
    const big = await startUpstream((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.write('{"error":{"message":"Invalid API Key ' + 'x'.repeat(64 * 1024));
      // Never ends: the check must not wait for the rest.
    });
    const plugins = await checkablePlugins();
    const freeway = await startFreeway({ plugins, env: { GROQ_BASE_URL: big.url, KEY_CHECK_TIMEOUT_MS: '5000' } });
    try {
      const response = await fetch(`${freeway.url}/v1/providers?check=1`, { headers: { 'X-Groq-Key': keyFor('groq', 'invalid') } });
      const body = (await response.json()) as { data: Array<{ id: string; keys?: Array<{ state: string; check?: { status: string } }> }> };
      const groq = body.data.find((entry) => entry.id === 'groq');
      expect(groq?.keys?.[0]).to.deep.include({ state: 'invalid_key', check: { status: 'checked' } });
    } finally {
      await freeway.close();
      await big.close();
    }
  });
});

describe('a key that answered is healthy, quota headers or not', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  let clock = Date.parse('2026-11-27T10:00:00Z');
  const model = 'groq/openai/gpt-oss-120b';
  const stateOf = async (key: string): Promise<{ state: string; consecutiveFailures: number; reason: string | null; retryAfter: number | null }> => {
    const body = (await (await fetch(`${freeway.url}/v1/providers`, { headers: { 'X-Groq-Key': key } })).json()) as ProvidersBody;
    const entry = body.data.find((provider) => provider.id === 'groq')?.keys?.[0] as KeyEntry;
    return { state: entry.state, consecutiveFailures: entry.consecutiveFailures, reason: entry.reason, retryAfter: entry.retryAfter };
  };

  before(async function () {
    // Answers without any x-ratelimit-* header: nothing of a quota is known.
    upstream = await startUpstream((req, res) => openAIText(res, 'Hello', req));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: upstream.url }, now: () => clock });
  });
  after(async function () {
    await freeway?.close();
    await upstream?.close();
  });

  it('after an answer without quota headers: healthy in GET /v1/providers and /health, not unchecked', async function () {
    const key = keyFor('groq', 'good');
    expect(await stateOf(key)).to.include({ state: 'unchecked' });
    const reply = await postChat(freeway.url, hello(model), { 'X-Groq-Key': key });
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.headers.get('x-ratelimit-remaining-requests')).to.equal(null);
    expect(await stateOf(key)).to.deep.equal({ state: 'healthy', consecutiveFailures: 0, reason: null, retryAfter: null });
    expect((await getHealth(freeway.url, { 'X-Groq-Key': key })).providers.groq).to.include({ state: 'healthy', consecutiveFailures: 0 });
  });

  it('a key that recovers from rate_limited (its wait over, then an answer) is healthy, not unchecked', async function () {
    const key = keyFor('groq', 'busy');
    upstream.handle((_req, res) => openAIError(res, 429, 'Rate limit reached for requests', { 'retry-after': '30' }));
    const limited = await postChat(freeway.url, hello(model), { 'X-Groq-Key': key });
    expect(limited.status).to.equal(429);
    expect(limited.json.error.type).to.equal('rate_limit_error');
    expect(limited.json.error.message).to.match(/groq: usable again in 30s \(429 Rate limit reached for requests\)$/);
    expect(await stateOf(key)).to.include({ state: 'rate_limited', retryAfter: 30 });
    clock += 31_000;
    upstream.handle((req, res) => openAIText(res, 'Hello again', req));
    const answered = await postChat(freeway.url, hello(model), { 'X-Groq-Key': key });
    expect(answered.status, answered.text).to.equal(200);
    expect(await stateOf(key)).to.deep.equal({ state: 'healthy', consecutiveFailures: 0, reason: null, retryAfter: null });
  });
});
