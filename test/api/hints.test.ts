import { expect } from 'chai';
import { buildCatalog } from '../../catalog/catalog.ts';
import { suggestModel } from '../../catalog/suggest.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { hello, postChat } from '../support/http.ts';
import { testKeys } from '../support/keys.ts';
import { expectError } from '../support/errors.ts';
import { curatedIds, groqWithListing, modelNotFound, provider } from '../support/live-models.ts';
import { startUpstream, type FakeUpstream } from '../support/upstream.ts';

describe('errors that say what to do', () => {
  let freeway: RunningFreeway;
  before(async () => {
    freeway = await startFreeway();
  });
  after(() => freeway.close());

  const unknownModel = async (model: string): Promise<{ status: number; message: string; type: string }> => {
    const res = await postChat(freeway.url, hello(model), { 'X-Groq-Key': testKeys.groq as string });
    return { status: res.status, message: res.json.error.message, type: res.json.error.type };
  };

  it('a model id without its provider prefix: did you mean {provider}/{model}?', async () => {
    expect(await unknownModel('llama-3.3-70b-versatile')).to.deep.equal({
      status: 404,
      type: 'invalid_request_error',
      message: 'Unknown model: llama-3.3-70b-versatile. Did you mean `groq/llama-3.3-70b-versatile`? GET /v1/models lists the models.',
    });
  });

  it('a near miss, another case, or another provider\'s prefix gets the closest id', async () => {
    expect((await unknownModel('groq/llama-3.3-70b-versatil')).message).to.include('Did you mean `groq/llama-3.3-70b-versatile`?');
    expect((await unknownModel('GROQ/Llama-3.3-70B-Versatile')).message).to.include('Did you mean `groq/llama-3.3-70b-versatile`?');
    expect((await unknownModel('openai/llama-3.3-70b-versatile')).message).to.include('Did you mean `groq/llama-3.3-70b-versatile`?');
    expect((await unknownModel('free:fsat')).message).to.include('Did you mean `free:fast`?');
    const models = await fetch(`${freeway.url}/v1/models/groq/llama-3.3-70b-versatil`);
    expect(models.status).to.equal(404);
    expect(((await models.json()) as { error: { message: string } }).error.message).to.include('Did you mean `groq/llama-3.3-70b-versatile`?');
  });

  it('nothing close: no suggestion', async () => {
    expect((await unknownModel('my-own-model-name')).message).to.equal('Unknown model: my-own-model-name. GET /v1/models lists the models.');
  });

  it('a model of a provider without its vendor folder: the same provider\'s model, not another provider\'s', async () => {
    expect(await unknownModel('groq/gpt-oss-120b')).to.deep.equal({
      status: 404,
      type: 'invalid_request_error',
      message: 'Unknown model: groq/gpt-oss-120b. Did you mean `groq/openai/gpt-oss-120b`? GET /v1/models lists the models.',
    });
    // Without a provider, the first provider that has it.
    expect((await unknownModel('GPT-OSS-120B')).message).to.include('Did you mean `cerebras/gpt-oss-120b`?');
    expect((await unknownModel('cerebras/openai/gpt-oss-120b')).message).to.include('Did you mean `cerebras/gpt-oss-120b`?');
  });

  it('an alias a few letters off, or its name alone, gets the alias', async () => {
    expect(await unknownModel('free:fastest')).to.deep.equal({
      status: 404,
      type: 'invalid_request_error',
      message: 'Unknown model: free:fastest. Did you mean `free:fast`? GET /v1/models lists the models.',
    });
    expect((await unknownModel('free:reason')).message).to.include('Did you mean `free:reasoning`?');
    expect((await unknownModel('free:tooluse')).message).to.include('Did you mean `free:tool-use`?');
    expect((await unknownModel('fre:vision')).message).to.include('Did you mean `free:vision`?');
    expect((await unknownModel('auto')).message).to.include('Did you mean `free:auto`?');
    // A tag of Ollama's is no alias.
    expect((await unknownModel('qwen3:latest')).message).to.not.include('`free:');
  });

  it('an OpenAI model name that is not mapped says how: an alias, or MODEL_MAP', async () => {
    expect(await unknownModel('gpt-4o')).to.deep.equal({
      status: 404,
      type: 'invalid_request_error',
      message:
        'Unknown model: gpt-4o. Freeway serves no OpenAI model by its name: send an alias such as `free:auto` or a model GET /v1/models lists, or map the name on this Freeway with MODEL_MAP (MODEL_MAP=gpt-4o=free:auto).',
    });
    const responses = await fetch(`${freeway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Groq-Key': testKeys.groq as string },
      body: JSON.stringify({ model: 'o3-mini', input: 'Hi' }),
    });
    await expectError(
      responses,
      404,
      'invalid_request_error',
      'Unknown model: o3-mini. Freeway serves no OpenAI model by its name: send an alias such as `free:auto` or a model GET /v1/models lists, or map the name on this Freeway with MODEL_MAP (MODEL_MAP=o3-mini=free:auto).',
    );
    const embeddings = await fetch(`${freeway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Groq-Key': testKeys.groq as string },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: 'Hi' }),
    });
    await expectError(
      embeddings,
      404,
      'invalid_request_error',
      'Unknown model: text-embedding-3-small. Freeway serves no OpenAI model by its name: send an alias such as `free:embed` or a model GET /v1/models lists.',
    );
    // Open-weight models named like OpenAI's are the catalog's.
    expect((await unknownModel('gpt-oss-120')).message).to.include('Did you mean');
  });

  it('a Claude model name on chat completions says how: an alias, MODEL_MAP, or /v1/messages', async () => {
    expect(await unknownModel('claude-sonnet-4-6')).to.deep.equal({
      status: 404,
      type: 'invalid_request_error',
      message:
        'Unknown model: claude-sonnet-4-6. Freeway serves no Anthropic model by its name: send an alias such as `free:tool-use` or a model GET /v1/models lists, or map the name on this Freeway with MODEL_MAP (MODEL_MAP=claude-sonnet-4-6=free:tool-use), or on /v1/messages with ANTHROPIC_MODEL_MAP.',
    });
  });

  it('a Claude model name on /v1/messages when ANTHROPIC_MODEL_MAP maps none: the same, in Anthropic\'s error shape', async () => {
    const unmapped = await startFreeway({ env: { ANTHROPIC_MODEL_MAP: '' } });
    try {
      const res = await fetch(`${unmapped.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'X-Groq-Key': testKeys.groq as string },
        body: JSON.stringify({ model: 'claude-opus-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] }),
      });
      expect(res.status).to.equal(404);
      const { request_id: _id, ...body } = (await res.json()) as Record<string, unknown>;
      expect(body).to.deep.equal({
        type: 'error',
        error: {
          type: 'not_found_error',
          message:
            'Unknown model: claude-opus-4-5. Freeway serves no Anthropic model by its name: send an alias such as `free:tool-use` or a model GET /v1/models lists, or map the name on this Freeway with MODEL_MAP (MODEL_MAP=claude-opus-4-5=free:tool-use), or on /v1/messages with ANTHROPIC_MODEL_MAP.',
        },
      });
    } finally {
      await unmapped.close();
    }
  });

  it('with MODEL_MAP set, a mapped name is served and another is still told how', async () => {
    const mapped = await startFreeway({ env: { MODEL_MAP: 'gpt-4o*=free:auto' } });
    try {
      const served = await postChat(mapped.url, hello('gpt-4o-mini'), {});
      // Mapped: the alias needs a key, which says the name was understood.
      expect(served.status).to.equal(401);
      expect(served.json.error.type).to.equal('authentication_error');
      const other = await postChat(mapped.url, hello('gpt-5'), {});
      expect(other.status).to.equal(404);
      expect(other.json.error.message).to.include('MODEL_MAP=gpt-5=free:auto');
    } finally {
      await mapped.close();
    }
  });

  it('a route a few characters off gets the route', async () => {
    const post = (path: string) => fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await expectError(await post('/v1/chat/completion'), 404, 'invalid_request_error', 'Unknown route: POST /v1/chat/completion. Did you mean `/v1/chat/completions`?');
    await expectError(await post('/chat/completion'), 404, 'invalid_request_error', 'Unknown route: POST /chat/completion. Did you mean `/v1/chat/completions`?');
    await expectError(await post('/v1/message'), 404, 'invalid_request_error', 'Unknown route: POST /v1/message. Did you mean `/v1/messages`?');
    await expectError(await fetch(`${freeway.url}/v1/model`), 404, 'invalid_request_error', 'Unknown route: GET /v1/model. Did you mean `/v1/models`?');
    await expectError(await fetch(`${freeway.url}/healthz`), 404, 'invalid_request_error', 'Unknown route: GET /healthz. Did you mean `/health`?');
  });

  it('a header one edit away from a provider\'s key header is named in the 401, with the header it was meant to be', async () => {
    const res = await postChat(freeway.url, hello('free:auto'), { 'X-Grok-Key': testKeys.groq as string });
    expect(res.status).to.equal(401);
    expect(res.json.error.type).to.equal('authentication_error');
    expect(res.json.error.message).to.match(/^No provider key for free:auto\. Send one of: X-Groq-Key, .+\. Freeway reads no `X-Grok-Key` header\. Did you mean `X-Groq-Key`\?$/);
    expect(res.text).to.not.include(testKeys.groq);
    const pinned = await postChat(freeway.url, hello('cerebras/gpt-oss-120b'), { 'x-cerebra-key': testKeys.cerebras as string });
    expect(pinned.status).to.equal(401);
    expect(pinned.json.error.message).to.equal('cerebras/gpt-oss-120b needs the X-Cerebras-Key header. Freeway reads no `x-cerebra-key` header. Did you mean `X-Cerebras-Key`?');
    // Two edits away: nothing is guessed.
    const far = await postChat(freeway.url, hello('free:auto'), { 'X-Grak-Kez': 'something' });
    expect(far.status).to.equal(401);
    expect(far.json.error.message).to.not.include('Did you mean');
  });

  it('a huge model id costs little: no suggestion is searched beyond 200 characters', async () => {
    const catalog = buildCatalog(await providerPlugins());
    const huge = 'x'.repeat(1024 * 1024);
    const started = performance.now();
    for (let i = 0; i < 100; i++) expect(suggestModel(catalog, huge)).to.equal(undefined);
    // 200 characters, the longest searched, against every id.
    const long = `groq/${'llama-3.3-70b-versatile'.repeat(8)}`.slice(0, 200);
    for (let i = 0; i < 100; i++) suggestModel(catalog, long);
    expect(performance.now() - started).to.be.below(2000);
    const res = await postChat(freeway.url, hello(`groq/${'y'.repeat(215)}`), { 'X-Groq-Key': testKeys.groq as string });
    expect(res.status).to.equal(404);
    expect(res.json.error.message).to.not.include('Did you mean');
    expect(res.json.error.message.length).to.be.below(1000);
  });

  it('/chat/completions without /v1 (or with /v1 twice) says where the API is', async () => {
    const bare = await fetch(`${freeway.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bare.status).to.equal(404);
    expect(((await bare.json()) as { error: { message: string } }).error.message).to.equal(
      "Unknown route: POST /chat/completions. Freeway serves its API under /v1: use /v1/chat/completions (set your client's base URL to http://<host>:<port>/v1).",
    );
    const doubled = await fetch(`${freeway.url}/v1/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(((await doubled.json()) as { error: { message: string } }).error.message).to.equal(
      'Unknown route: POST /v1/v1/chat/completions. Freeway serves its API under /v1: use /v1/chat/completions.',
    );
    const other = await fetch(`${freeway.url}/v2/foo`);
    expect(((await other.json()) as { error: { message: string } }).error.message).to.equal(
      "Unknown route: GET /v2/foo. Freeway serves GET /v1/models (the models), GET /health (the providers' health) and the APIs under /v1; its README describes them.",
    );
  });

  for (const [header, name] of [
    ['Authorization', 'Authorization'],
    ['x-api-key', 'x-api-key'],
  ] as const) {
    it(`a key only in ${name} is told about X-<Provider>-Key headers, and the value is never repeated`, async () => {
      const secret = header === 'Authorization' ? `Bearer ${testKeys.groq}` : 'myverysecretvalue123456';
      const res = await postChat(freeway.url, hello('free:auto'), { [header]: secret });
      expect(res.status).to.equal(401);
      expect(res.json.error.type).to.equal('authentication_error');
      expect(res.json.error.message).to.include(
        `Freeway does not read provider keys from ${name}: send each provider's key in its own header, X-<Provider>-Key (for example X-Groq-Key)`,
      );
      expect(res.text).to.not.include(testKeys.groq);
      expect(res.text).to.not.include('myverysecretvalue123456');
    });
  }

  it('no hint when a provider key header was sent too', async () => {
    const res = await postChat(freeway.url, hello('free:vision'), { Authorization: 'Bearer unused', 'X-Cerebras-Key': testKeys.cerebras as string });
    expect(res.status).to.equal(400);
    expect(res.json.error.message).to.not.include('does not read provider keys');
  });
});

describe('errors that name what was asked for and why nothing could be tried', () => {
  let freeway: RunningFreeway;
  let upstream: FakeUpstream;
  const tryingGroq = async (env: Record<string, string>): Promise<RunningFreeway> => {
    freeway = await startFreeway({ plugins: [await groqWithListing()], env: { GROQ_BASE_URL: upstream.url, MODELS_LIVE: 'on', ...env } });
    return freeway;
  };
  beforeEach(async () => {
    upstream = await startUpstream();
  });
  afterEach(async () => {
    await freeway?.close();
    await upstream.close();
  });

  it("a key whose model list holds none of the alias's models: the 502 names the key and why, not 'no candidate could be tried'", async () => {
    upstream.handle(provider(() => ['some/unknown-live-model']));
    const server = await tryingGroq({});
    const auto = await postChat(server.url, { model: 'free:reasoning', messages: [{ role: 'user', content: 'hi' }] }, { 'X-Groq-Key': testKeys.groq as string });
    expect(auto.status).to.equal(502);
    expect(auto.json.error.type).to.equal('freeway_all_providers_failed');
    expect(auto.json.error.message).to.equal("All providers failed: groq: its model list (GET /v1/models with the key) holds none of free:reasoning's models");
    expect(upstream.requests.filter((req) => req.method === 'POST')).to.have.length(0);
  });

  it('a key whose models are all quarantined: the 502 says which and why', async () => {
    const curated = curatedIds(await groqWithListing());
    upstream.handle(provider(() => curated, (model, _req, res) => modelNotFound(res, model)));
    const server = await tryingGroq({ MODEL_QUARANTINE_MS: '3600000', ROUTING: 'priority' });
    const keys = { 'X-Groq-Key': testKeys.groq as string };
    const first = await postChat(server.url, hello('free:auto'), keys);
    expect(first.status).to.equal(502);
    const again = await postChat(server.url, hello('free:auto'), keys);
    expect(again.status).to.equal(502);
    expect(again.json.error.message).to.match(
      new RegExp(`^All providers failed: groq: the models of free:auto it serves are quarantined: ${curated[0]?.replace(/[/.]/g, '\\$&')} \\(404 The model .* does not exist.*\\)${curated.length > 1 ? ` and ${curated.length - 1} more` : ''}$`),
    );
  });

  it('a mapped model name is named with what it was mapped to: chat completions with MODEL_MAP', async () => {
    const server = await tryingGroq({ MODEL_MAP: 'gpt-4o=free:vision,my-model=groq/openai/gpt-oss-120b' });
    const alias = await postChat(server.url, hello('gpt-4o'), {});
    expect(alias.status).to.equal(401);
    expect(alias.json.error.type).to.equal('authentication_error');
    expect(alias.json.error.message).to.match(/^No provider key for gpt-4o \(mapped to free:vision\)\. Send one of: /);
    const pinned = await postChat(server.url, hello('my-model'), {});
    expect([pinned.status, pinned.json.error.type, pinned.json.error.message]).to.deep.equal([401, 'authentication_error', 'my-model (mapped to groq/openai/gpt-oss-120b) needs the X-Groq-Key header.']);
    // A catalog id is named as it is.
    const plain = await postChat(server.url, hello('free:vision'), {});
    expect(plain.json.error.message).to.match(/^No provider key for free:vision\. Send one of: /);
  });

  it("a Claude model name on /v1/messages is named with the alias it maps to, in Anthropic's shape", async () => {
    const server = await tryingGroq({});
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).to.equal(401);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).to.equal('error');
    expect(body.error.type).to.equal('authentication_error');
    expect(body.error.message).to.match(/^No provider key for claude-sonnet-4-6 \(mapped to free:tool-use\)\. Send one of: /);
  });

  it("a Gemini model name is named with the alias it maps to, in Google's envelope", async () => {
    const server = await tryingGroq({});
    const res = await fetch(`${server.url}/v1beta/models/gemini-3.8-flash:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    expect(res.status).to.equal(401);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error.code).to.equal(401);
    expect(body.error.message).to.match(/^No provider key for gemini-3\.8-flash \(mapped to free:[a-z-]+\)\. Send one of: /);
  });
});
