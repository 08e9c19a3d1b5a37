/**
 * Live model lists per key, and what Freeway learns from answers (docs/models.md),
 * against a fake Groq on 127.0.0.1 that serves its documented model list
 * (https://console.groq.com/docs/api-reference#models-list). The Groq plugin is
 * given a listing here, so these tests hold whichever plugins declare one.
 */
import { expect } from 'chai';
import type { ProviderPlugin } from '../../providers/types.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { expectError } from '../support/errors.ts';
import { testKeys } from '../support/keys.ts';
import { chatModels, curatedIds, groqWithListing, heldListing, isListing, listings, modelList, modelNotFound, provider } from '../support/live-models.ts';
import { json, openAIError, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

const hi = [{ role: 'user', content: 'hi' }];
const key = testKeys.groq as string;
/** Another Groq key, in Groq's format. */
const otherKey = 'gsk_Qw7LiveListOtherKeyZx93PdRt5Vb2Nc8Hm4';
const groqHeader = (value: string): Record<string, string> => ({ 'X-Groq-Key': value });

function chat(freeway: RunningFreeway, model: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${freeway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: hi }),
  });
}

async function models(freeway: RunningFreeway, headers: Record<string, string> = {}): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${freeway.url}/v1/models`, { headers });
  expect(res.status).to.equal(200);
  return ((await res.json()) as { data: Array<Record<string, unknown>> }).data;
}

/** The error body's status, type and shape, with a message that matches `pattern`. */
async function expectErrorLike(response: Response, status: number, type: string, pattern: RegExp): Promise<void> {
  const { message } = await expectError(response, status, type);
  expect(message, message).to.match(pattern);
}

/** Waits until `check` holds, polling the event loop; fails after 5 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never happened: ${what}`);
}

describe('live model lists per key', () => {
  let groq: ProviderPlugin;
  let curated: string[];
  let upstream: FakeUpstream;
  const running: RunningFreeway[] = [];

  async function start(env: Record<string, string> = {}, now?: () => number): Promise<RunningFreeway> {
    const freeway = await startFreeway({ plugins: [groq], env: { GROQ_BASE_URL: upstream.url, MODELS_LIVE: 'on', MODEL_QUARANTINE_MS: '21600000', ...env }, now });
    running.push(freeway);
    return freeway;
  }

  before(async () => {
    groq = await groqWithListing();
    curated = curatedIds(groq);
    expect(curated.length, 'the groq plugin curates chat models').to.be.greaterThan(0);
  });

  beforeEach(async () => {
    upstream = await startUpstream();
  });

  afterEach(async () => {
    for (const freeway of running.splice(0)) await freeway.close();
    await upstream.close();
  });

  it('with a key whose list lacks the curated models, free:auto answers from a listed model and never calls an unlisted one', async () => {
    upstream.handle(provider(() => ['qwen/qwen3-32b-live', 'moonshotai/kimi-k2-live']));
    const freeway = await start();
    const res = await chat(freeway, 'free:auto', groqHeader(key));
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-freeway-model')).to.equal('groq/qwen/qwen3-32b-live');
    expect(chatModels(upstream.requests)).to.deep.equal(['qwen/qwen3-32b-live']);

    // Both listed models failing: the alias tries them, and nothing curated.
    upstream.handle(provider(() => [], (model, _req, res) => openAIError(res, 500, `overloaded ${model}`)));
    upstream.requests.length = 0;
    await chat(freeway, 'free:auto', groqHeader(key));
    for (const model of chatModels(upstream.requests)) expect(['qwen/qwen3-32b-live', 'moonshotai/kimi-k2-live']).to.include(model);
  });

  it('never picks a speech, transcription or embedding model of a listing for chat, and refuses one pinned', async () => {
    const listed = ['whisper-large-v3', 'playai-tts', 'text-embedding-3-small', 'chat-live-one'];
    upstream.handle(provider(() => listed, (model, _req, res) => modelNotFound(res, model)));
    const freeway = await start();
    const res = await chat(freeway, 'free:auto', groqHeader(key));
    expect(res.status).to.equal(502);
    expect(chatModels(upstream.requests)).to.deep.equal(['chat-live-one']);
    await expectErrorLike(await chat(freeway, 'groq/whisper-large-v3', groqHeader(key)), 400, 'invalid_request_error', /^groq\/whisper-large-v3 is a transcription model, not a chat model: use it with POST \/v1\/audio\/transcriptions\.$/);
  });

  it('serves a pinned model the plugin does not know when the key lists it, and lists it in /v1/models and /v1/models/{id}', async () => {
    upstream.handle(provider(() => [...curated, 'brand-new-model-live']));
    const freeway = await start();
    const res = await chat(freeway, 'groq/brand-new-model-live', groqHeader(key));
    expect(res.status).to.equal(200);
    expect(chatModels(upstream.requests)).to.deep.equal(['brand-new-model-live']);

    const data = await models(freeway, groqHeader(key));
    const live = data.find((model) => model.id === 'groq/brand-new-model-live');
    expect(live).to.deep.include({ owned_by: 'groq', source: 'live', available: true, tier: groq.tier.tier, context_window: 131072 });
    expect(data.find((model) => model.id === `groq/${curated[0]}`)).to.deep.include({ source: 'live', available: true, tier: groq.tier.tier });
    expect(data.slice(0, 6).map((model) => model.owned_by)).to.deep.equal(Array(6).fill('freeway'));

    const one = await fetch(`${freeway.url}/v1/models/groq/brand-new-model-live`, { headers: groqHeader(key) });
    expect(one.status).to.equal(200);
    expect(await one.json()).to.deep.include({ id: 'groq/brand-new-model-live', source: 'live' });

    // Without keys: the curated catalog as always, each model with its tier.
    const plain = await models(freeway);
    expect(plain.some((model) => model.id === 'groq/brand-new-model-live')).to.equal(false);
    expect(plain.find((model) => model.id === `groq/${curated[0]}`)).to.deep.include({ tier: groq.tier.tier });
    expect(plain.find((model) => model.id === `groq/${curated[0]}`)).to.not.have.property('source');
    await expectErrorLike(await fetch(`${freeway.url}/v1/models/groq/brand-new-model-live`), 404, 'invalid_request_error', /Unknown model/);

    // Anthropic's shape, with the same keys.
    const claude = await fetch(`${freeway.url}/v1/models?limit=1000`, { headers: { ...groqHeader(key), 'anthropic-version': '2023-06-01' } });
    const claudeData = ((await claude.json()) as { data: Array<Record<string, unknown>> }).data;
    expect(claudeData.find((model) => model.id === 'groq/brand-new-model-live')).to.deep.include({ type: 'model', source: 'live', available: true, tier: groq.tier.tier });
  });

  it('shows a curated model missing from the key\'s list as unavailable, and keeps a pinned id in neither list a 404 with a suggestion', async () => {
    upstream.handle(provider(() => ['only-live-model']));
    const freeway = await start();
    const data = await models(freeway, groqHeader(key));
    expect(data.find((model) => model.id === `groq/${curated[0]}`)).to.deep.include({ source: 'curated', available: false, reason: "not in the live model list of the request's keys" });
    const res = await chat(freeway, `groq/${curated[0]}x`, groqHeader(key));
    await expectErrorLike(res, 404, 'invalid_request_error', new RegExp(`Unknown model: groq/${curated[0]?.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}x\\. Did you mean`));
  });

  it('20 concurrent first requests with a new key cause one listing call', async () => {
    const { handler, release } = heldListing(curated);
    upstream.handle(handler);
    const freeway = await start({ MODELS_FIRST_WAIT_MS: '60000' });
    const answers = Array.from({ length: 20 }, () => chat(freeway, 'free:auto', groqHeader(key)));
    await until(() => listings(upstream.requests) === 1, 'the listing call');
    release();
    for (const res of await Promise.all(answers)) expect(res.status).to.equal(200);
    expect(listings(upstream.requests)).to.equal(1);
  });

  const failing: ReadonlyArray<readonly [string, Parameters<FakeUpstream['handle']>[0]]> = [
    ['hangs', () => new Promise<void>(() => {})],
    ['answers 500', (_req, res) => openAIError(res, 500, 'Internal server error')],
    ['is 30 MB', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      res.write('{"object":"list","data":[');
      for (let i = 0; i < 30; i++) res.write(chunk);
      res.end(']}');
    }],
    ['is not JSON', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Service temporarily unavailable</body></html>');
    }],
    ['holds a model id with a space', (_req, res) => modelList(res, ['fine-model', 'bad model'])],
    // The bad entry is not dropped and the rest believed: the list as a whole is not what the provider documents.
    ['holds an entry whose id is not text', (_req, res) => json(res, 200, { object: 'list', data: [{ id: 'fine-model', object: 'model', active: true }, { id: 42, object: 'model', active: true }] })],
  ];
  for (const [what, listing] of failing) {
    it(`a listing that ${what} delays no request beyond MODELS_FIRST_WAIT_MS and leaves the curated list in use`, async () => {
      upstream.handle((req, res) => (isListing(req) ? listing(req, res) : openAIText(res, 'Hello', req)));
      // The listing's own timeout is far longer than the first wait: the request goes on after the wait.
      const freeway = await start({ MODELS_FIRST_WAIT_MS: '20', MODELS_LISTING_TIMEOUT_MS: '60000' });
      const res = await chat(freeway, 'free:auto', groqHeader(key));
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-freeway-model')).to.equal(`groq/${curated[0]}`);
      // Never per request: the next one starts no listing.
      expect((await chat(freeway, 'free:auto', groqHeader(key))).status).to.equal(200);
      expect(listings(upstream.requests)).to.equal(1);
    });
  }

  it('a listing 404 (a provider without one) leaves the curated list in use', async () => {
    upstream.handle((req, res) => (isListing(req) ? openAIError(res, 404, 'Not found') : openAIText(res, 'Hello', req)));
    const freeway = await start();
    const res = await chat(freeway, 'free:auto', groqHeader(key));
    expect(res.headers.get('x-freeway-model')).to.equal(`groq/${curated[0]}`);
  });

  it('after MODELS_REFRESH_MS a changed list is used; the old one serves while the refresh runs', async () => {
    let clock = Date.now();
    let listed = ['first-live-model'];
    upstream.handle(provider(() => listed));
    const freeway = await start({ MODELS_REFRESH_MS: '60000' }, () => clock);
    expect((await chat(freeway, 'free:auto', groqHeader(key))).headers.get('x-freeway-model')).to.equal('groq/first-live-model');
    listed = ['second-live-model'];
    expect((await chat(freeway, 'free:auto', groqHeader(key))).headers.get('x-freeway-model')).to.equal('groq/first-live-model');
    expect(listings(upstream.requests)).to.equal(1);
    clock += 60_001;
    await chat(freeway, 'free:auto', groqHeader(key));
    await until(() => listings(upstream.requests) === 2, 'the refresh');
    let model: string | null = null;
    for (let i = 0; i < 50 && model !== 'groq/second-live-model'; i++) {
      model = (await chat(freeway, 'free:auto', groqHeader(key))).headers.get('x-freeway-model');
    }
    expect(model).to.equal('groq/second-live-model');
    expect(listings(upstream.requests)).to.equal(2);
  });

  it('a listing refused with 401 marks the key invalid_key in /health, as a chat call would', async () => {
    upstream.handle((req, res) => (isListing(req) ? json(res, 401, { error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' } }) : openAIText(res, 'Hello', req)));
    const freeway = await start();
    await chat(freeway, 'free:auto', groqHeader(key));
    const health = (await (await fetch(`${freeway.url}/health`, { headers: groqHeader(key) })).json()) as { providers: Record<string, { state: string }> };
    expect(health.providers.groq?.state).to.equal('invalid_key');
  });

  it('LISTINGS_PER_MINUTE bounds the listings one client starts; past it the curated list serves', async () => {
    upstream.handle(provider(() => ['listed-live-model']));
    const freeway = await start({ LISTINGS_PER_MINUTE: '1' });
    expect((await chat(freeway, 'free:auto', groqHeader(key))).headers.get('x-freeway-model')).to.equal('groq/listed-live-model');
    const second = await chat(freeway, 'free:auto', groqHeader(otherKey));
    expect(second.headers.get('x-freeway-model')).to.equal(`groq/${curated[0]}`);
    expect(listings(upstream.requests)).to.equal(1);
  });

  it('MODELS_LIVE=off asks no provider for its list', async () => {
    upstream.handle(provider(() => ['listed-live-model']));
    const freeway = await start({ MODELS_LIVE: 'off' });
    expect((await chat(freeway, 'free:auto', groqHeader(key))).headers.get('x-freeway-model')).to.equal(`groq/${curated[0]}`);
    expect(listings(upstream.requests)).to.equal(0);
  });
});

describe('learning from answers', () => {
  let groq: ProviderPlugin;
  let upstream: FakeUpstream;
  const running: RunningFreeway[] = [];
  const listed = ['gone-soon-model', 'steady-model'];

  async function start(env: Record<string, string> = {}): Promise<RunningFreeway> {
    const freeway = await startFreeway({ plugins: [groq], env: { GROQ_BASE_URL: upstream.url, MODELS_LIVE: 'on', MODEL_QUARANTINE_MS: '21600000', ...env } });
    running.push(freeway);
    return freeway;
  }

  before(async () => {
    groq = await groqWithListing();
  });
  beforeEach(async () => {
    upstream = await startUpstream();
  });
  afterEach(async () => {
    for (const freeway of running.splice(0)) await freeway.close();
    await upstream.close();
  });

  it('a model that answered 404 "model not found" is not called again for that key, but is for another; /v1/models and /metrics show it', async () => {
    upstream.handle(provider(() => listed, (model, req, res) => (model === 'gone-soon-model' ? modelNotFound(res, model) : openAIText(res, 'Hello', req))));
    const freeway = await start();
    const first = await chat(freeway, 'free:auto', groqHeader(key));
    expect(first.headers.get('x-freeway-model')).to.equal('groq/steady-model');
    expect(chatModels(upstream.requests)).to.deep.equal(['gone-soon-model', 'steady-model']);
    upstream.requests.length = 0;
    await chat(freeway, 'free:auto', groqHeader(key));
    expect(chatModels(upstream.requests)).to.deep.equal(['steady-model']);

    upstream.requests.length = 0;
    await chat(freeway, 'free:auto', groqHeader(otherKey));
    expect(chatModels(upstream.requests)).to.deep.equal(['gone-soon-model', 'steady-model']);

    const data = await models(freeway, groqHeader(key));
    expect(data.find((model) => model.id === 'groq/gone-soon-model')).to.deep.include({ available: false });
    expect(String(data.find((model) => model.id === 'groq/gone-soon-model')?.reason)).to.match(/^quarantined: 404 The model `gone-soon-model` does not exist/);
    const metrics = await (await fetch(`${freeway.url}/metrics`)).text();
    expect(metrics).to.match(/freeway_models_quarantined_total\{provider="groq",scope="key"\} 2/);

    // A pinned request still goes to its model, and reports the answer.
    upstream.requests.length = 0;
    await expectErrorLike(await chat(freeway, 'groq/gone-soon-model', groqHeader(key)), 502, 'freeway_provider_error', /Provider failed: groq: 404 The model `gone-soon-model` does not exist/);
    expect(chatModels(upstream.requests)).to.deep.equal(['gone-soon-model']);
  });

  it('a model that answered 410 Gone is not called again for any key of the provider', async () => {
    upstream.handle(provider(() => listed, (model, req, res) => (model === 'gone-soon-model' ? openAIError(res, 410, 'This model has been retired.') : openAIText(res, 'Hello', req))));
    const freeway = await start();
    await chat(freeway, 'free:auto', groqHeader(key));
    upstream.requests.length = 0;
    expect((await chat(freeway, 'free:auto', groqHeader(otherKey))).headers.get('x-freeway-model')).to.equal('groq/steady-model');
    expect(chatModels(upstream.requests)).to.deep.equal(['steady-model']);
  });

  it('an answer about the request (OpenRouter\'s "No endpoints found that support tool use") quarantines nothing', async () => {
    // As quoted in bobrware/bobrchat#60 (2026-02-03).
    const body = { error: { message: 'No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/guides/routing/provider-selection', code: 404 } };
    upstream.handle(provider(() => listed, (model, req, res) => (model === 'gone-soon-model' ? json(res, 404, body) : openAIText(res, 'Hello', req))));
    const freeway = await start();
    await chat(freeway, 'free:auto', groqHeader(key));
    upstream.requests.length = 0;
    await chat(freeway, 'free:auto', groqHeader(key));
    expect(chatModels(upstream.requests)).to.deep.equal(['gone-soon-model', 'steady-model']);
  });

  it('a 402 key is no_credit in /health with its retryAfter, skipped, and named in the 502', async () => {
    // OpenRouter's 402, as quoted in Gitlawb/openclaude#43 (2026-04-01).
    const noCredit = { error: { message: 'Insufficient credits. This account never purchased credits. Make sure your key is on the correct account or org, and if so, purchase more at https://openrouter.ai/settings/credits', code: 402 } };
    upstream.handle(provider(() => listed, (_model, _req, res) => json(res, 402, noCredit)));
    const freeway = await start({ NO_CREDIT_WAIT_MS: '7200000' });
    const first = await chat(freeway, 'free:auto', groqHeader(key));
    await expectErrorLike(first, 502, 'freeway_all_providers_failed', /^All providers failed: groq: the provider refused the key: it has no credit left \(402 .*\): add credit or fix X-Groq-Key$/);
    expect(chatModels(upstream.requests)).to.have.length(1);

    const health = (await (await fetch(`${freeway.url}/health`, { headers: groqHeader(key) })).json()) as { providers: Record<string, { state: string; retryAfter?: number }> };
    expect(health.providers.groq?.state).to.equal('no_credit');
    expect(health.providers.groq?.retryAfter).to.be.within(7190, 7200);

    upstream.requests.length = 0;
    await expectErrorLike(await chat(freeway, 'free:auto', groqHeader(key)), 502, 'freeway_all_providers_failed', /^All providers failed: groq: the provider refused the key earlier: it has no credit left \(.*402.*\): add credit or fix X-Groq-Key$/);
    expect(chatModels(upstream.requests)).to.deep.equal([]);
  });
});

describe('curated models that are not chat models', () => {
  it('an embedding model of the curated list is never picked by an alias, and pinned for chat it is a 400', async () => {
    const groq = await groqWithListing();
    const embedding = { id: 'nomic-embed-text-v1.5', capabilities: [], contextWindow: 8192, kind: 'embedding' as const };
    const plugin: ProviderPlugin = { ...groq, models: [embedding, ...groq.models] };
    const upstream = await startUpstream(provider(() => [], (model, _req, res) => modelNotFound(res, model)));
    const freeway = await startFreeway({ plugins: [plugin], env: { GROQ_BASE_URL: upstream.url } });
    try {
      expect(freeway.catalog.aliases.every((alias) => alias.models.every((model) => model.spec.id !== embedding.id))).to.equal(true);
      await chat(freeway, 'free:auto', groqHeader(key));
      expect(chatModels(upstream.requests)).to.not.include(embedding.id);
      await expectErrorLike(await chat(freeway, `groq/${embedding.id}`, groqHeader(key)), 400, 'invalid_request_error', /^groq\/nomic-embed-text-v1\.5 is an embedding model, not a chat model: use it with POST \/v1\/embeddings\.$/);
    } finally {
      await freeway.close();
      await upstream.close();
    }
  });
});
