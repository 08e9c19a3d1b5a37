/**
 * POST /v1/embeddings through Freeway against fake providers on 127.0.0.1 (reached through
 * <ID>_BASE_URL), with the clients retrieval apps use: the official openai SDK, the AI SDK's
 * embed / embedMany through @ai-sdk/openai-compatible, and LangChain's OpenAIEmbeddings.
 * Upstream answers follow OpenAI's embeddings format as DeepInfra's and Workers AI's docs show it
 * (https://deepinfra.com/BAAI/bge-m3/api, https://developers.cloudflare.com/workers-ai/configuration/open-ai-compatibility/).
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { OpenAIEmbeddings } from '@langchain/openai';
import { embed, embedMany } from 'ai';
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { openaiClient, rejection } from '../support/suite.ts';
import { json, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

/** A made-up vector that says which input and which provider produced it. */
const vectorOf = (text: string, provider: number): number[] => [text.length, text.charCodeAt(0), provider];

/** Which provider a request reached, from its path (all providers share one fake upstream). */
function providerOf(req: SeenRequest): string {
  if (req.path.startsWith('/accounts/')) return 'cloudflare';
  if (req.path.includes(':batchEmbedContents') || req.path.includes(':embedContent')) return 'google';
  return String(req.body?.model ?? '');
}

const providerCodes: Record<string, number> = { cloudflare: 1, 'baai/bge-m3': 2, 'BAAI/bge-m3': 3, 'mistral-embed': 4, google: 5 };

/** OpenAI's embeddings answer for the inputs of `req`. */
function openAIEmbeddings(res: ServerResponse, req: SeenRequest, withUsage = true): void {
  const input = req.body?.input as string[];
  const code = providerCodes[providerOf(req)] ?? 9;
  json(res, 200, {
    object: 'list',
    data: input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text, code) })),
    model: String(req.body?.model),
    ...(withUsage ? { usage: { prompt_tokens: input.length * 2, total_tokens: input.length * 2 } } : {}),
  });
}

const embeddingProviders = ['cloudflare', 'nvidia', 'deepinfra', 'mistral', 'google', 'cohere'];

describe('embeddings: POST /v1/embeddings', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  const bgeKeys = keyHeaders('cloudflare', 'nvidia', 'deepinfra');

  before(async function () {
    upstream = await startUpstream();
    const env: Record<string, string> = { EMBEDDINGS_MAX_INPUTS: '300' };
    for (const provider of embeddingProviders) env[`${provider.toUpperCase()}_BASE_URL`] = upstream.url;
    freeway = await startFreeway({ env });
  });
  after(async function () {
    await freeway.close();
    await upstream.close();
  });
  beforeEach(function () {
    upstream.requests.length = 0;
    upstream.handle((req, res) => openAIEmbeddings(res, req));
  });

  describe('with the official openai SDK', function () {
    it('embeds one string with free:embed, on the first bge-m3 deployment, and says which model made the vector', async function () {
      const client = openaiClient(freeway, bgeKeys);
      const { data: result, response } = await client.embeddings.create({ model: 'free:embed', input: 'hello world', encoding_format: 'float' }).withResponse();
      expect(result.object).to.equal('list');
      expect(result.data).to.deep.equal([{ object: 'embedding', index: 0, embedding: vectorOf('hello world', 1) }]);
      expect(result.model).to.equal('cloudflare/@cf/baai/bge-m3');
      expect(response.headers.get('x-freeway-model')).to.equal('cloudflare/@cf/baai/bge-m3');
      expect(response.headers.get('x-freeway-provider')).to.equal('cloudflare');
      expect(result.usage).to.deep.equal({ prompt_tokens: 2, total_tokens: 2 });
      expect(upstream.requests).to.have.length(1);
      expect(upstream.requests[0]?.path).to.equal(`/accounts/${testKeys.cloudflare?.split(':')[0]}/ai/v1/embeddings`);
      expect(upstream.requests[0]?.body).to.deep.include({ model: '@cf/baai/bge-m3', input: ['hello world'], encoding_format: 'float' });
      expect(upstream.requests[0]?.headers.authorization).to.equal(`Bearer ${testKeys.cloudflare?.split(':')[1]}`);
    });

    it('embeds a batch, one vector per input in input order', async function () {
      const client = openaiClient(freeway, bgeKeys);
      const inputs = ['alpha', 'bb', 'c', 'delta delta'];
      const result = await client.embeddings.create({ model: 'free:embed', input: inputs, encoding_format: 'float' });
      expect(result.data.map((item) => item.index)).to.deep.equal([0, 1, 2, 3]);
      expect(result.data.map((item) => item.embedding)).to.deep.equal(inputs.map((text) => vectorOf(text, 1)));
    });

    it('answers base64 (the SDK default) as little-endian float32, which the SDK decodes', async function () {
      const client = openaiClient(freeway, bgeKeys);
      // Without encoding_format the SDK asks for base64 and decodes it to numbers.
      const decoded = await client.embeddings.create({ model: 'free:embed', input: ['abc'] });
      expect(decoded.data[0]?.embedding).to.deep.equal(vectorOf('abc', 1));
      const raw = await fetch(`${freeway.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bgeKeys },
        body: JSON.stringify({ model: 'free:embed', input: 'abc', encoding_format: 'base64' }),
      });
      const body = (await raw.json()) as { data: Array<{ embedding: string }> };
      const bytes = Buffer.from(body.data[0]?.embedding as string, 'base64');
      expect([...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)]).to.deep.equal(vectorOf('abc', 1));
    });

    it('passes dimensions to a model that takes them (Google, outputDimensionality)', async function () {
      upstream.handle((req, res) => {
        const requests = req.body?.requests as Array<{ content: { parts: Array<{ text: string }> }; outputDimensionality?: number }>;
        json(res, 200, { embeddings: requests.map((request) => ({ values: vectorOf(request.content.parts[0]?.text ?? '', 5) })) });
      });
      const client = openaiClient(freeway, keyHeaders('google'));
      const result = await client.embeddings.create({ model: 'google/gemini-embedding-001', input: ['one', 'two'], dimensions: 768, encoding_format: 'float' });
      expect(result.data.map((item) => item.embedding)).to.deep.equal([vectorOf('one', 5), vectorOf('two', 5)]);
      expect(result.model).to.equal('google/gemini-embedding-001');
      // Google reports no usage on embeddings: none is invented.
      expect(result).to.not.have.property('usage');
      const sent = upstream.requests[0];
      expect(sent?.path).to.equal('/models/gemini-embedding-001:batchEmbedContents');
      expect((sent?.body?.requests as Array<{ outputDimensionality: number }>).map((request) => request.outputDimensionality)).to.deep.equal([768, 768]);
    });

    it('refuses dimensions for a model that does not take them, naming the field', async function () {
      const client = openaiClient(freeway, bgeKeys);
      const error = await rejection(() => client.embeddings.create({ model: 'free:embed', input: 'x', dimensions: 256 }));
      expect(error.status).to.equal(400);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.equal('400 Validation failed: dimensions: free:embed does not take dimensions; its vectors have 1024');
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('with the AI SDK (@ai-sdk/openai-compatible)', function () {
    it('embed and embedMany get the vectors in order', async function () {
      const provider = createOpenAICompatible({ name: 'freeway', baseURL: `${freeway.url}/v1`, headers: bgeKeys });
      const one = await embed({ model: provider.embeddingModel('free:embed'), value: 'sunny day' });
      expect(one.embedding).to.deep.equal(vectorOf('sunny day', 1));
      const many = await embedMany({ model: provider.embeddingModel('cloudflare/@cf/baai/bge-m3'), values: ['a', 'bb', 'ccc'] });
      expect(many.embeddings).to.deep.equal(['a', 'bb', 'ccc'].map((text) => vectorOf(text, 1)));
      expect(many.usage.tokens).to.equal(6);
    });
  });

  describe('with LangChain (OpenAIEmbeddings)', function () {
    it('embedDocuments and embedQuery', async function () {
      const embeddings = new OpenAIEmbeddings({
        model: 'free:embed',
        apiKey: 'placeholder',
        configuration: { baseURL: `${freeway.url}/v1`, defaultHeaders: bgeKeys },
        maxRetries: 0,
      });
      const documents = await embeddings.embedDocuments(['first doc', 'second doc']);
      expect(documents).to.deep.equal([vectorOf('first doc', 1), vectorOf('second doc', 1)]);
      expect(await embeddings.embedQuery('a question')).to.deep.equal(vectorOf('a question', 1));
    });
  });

  describe('batches', function () {
    it('splits an input over the documented batch limit (Workers AI: 100) and puts the vectors back in order', async function () {
      const inputs = Array.from({ length: 250 }, (_, i) => `text ${String.fromCharCode(65 + (i % 26))}${'x'.repeat(i % 7)}`);
      const client = openaiClient(freeway, keyHeaders('cloudflare'));
      const result = await client.embeddings.create({ model: 'cloudflare/@cf/baai/bge-m3', input: inputs, encoding_format: 'float' });
      expect(upstream.requests.map((req) => (req.body?.input as string[]).length)).to.deep.equal([100, 100, 50]);
      expect(upstream.requests.flatMap((req) => req.body?.input as string[])).to.deep.equal(inputs);
      expect(result.data.map((item) => item.index)).to.deep.equal(inputs.map((_, i) => i));
      expect(result.data.map((item) => item.embedding)).to.deep.equal(inputs.map((text) => vectorOf(text, 1)));
      expect(result.usage).to.deep.equal({ prompt_tokens: 500, total_tokens: 500 });
    });

    it('reports no usage when one batch came without it', async function () {
      let calls = 0;
      upstream.handle((req, res) => openAIEmbeddings(res, req, ++calls === 1));
      const client = openaiClient(freeway, keyHeaders('cloudflare'));
      const inputs = Array.from({ length: 150 }, (_, i) => `t${i}`);
      const result = await client.embeddings.create({ model: 'cloudflare/@cf/baai/bge-m3', input: inputs, encoding_format: 'float' });
      expect(result.data).to.have.length(150);
      expect(result).to.not.have.property('usage');
    });

    it('a failing batch fails the whole request over to the next deployment of the same family', async function () {
      upstream.handle((req, res) => {
        if (providerOf(req) === 'cloudflare' && (upstream.requests.filter((seen) => providerOf(seen) === 'cloudflare').length === 2)) {
          json(res, 500, { success: false, errors: [{ code: 3043, message: 'Internal server error' }] });
          return;
        }
        openAIEmbeddings(res, req);
      });
      const inputs = Array.from({ length: 120 }, (_, i) => `doc ${i}`);
      const client = openaiClient(freeway, bgeKeys);
      const { data: result, response } = await client.embeddings.create({ model: 'free:embed', input: inputs, encoding_format: 'float' }).withResponse();
      expect(result.model).to.equal('nvidia/baai/bge-m3');
      // Every vector from the one model that answered: none of Workers AI's first batch is kept.
      expect(result.data.map((item) => item.embedding)).to.deep.equal(inputs.map((text) => vectorOf(text, 2)));
      expect(upstream.requests.map(providerOf)).to.deep.equal(['cloudflare', 'cloudflare', 'baai/bge-m3', 'baai/bge-m3', 'baai/bge-m3']);
      expect(response.headers.get('x-freeway-attempts')).to.match(/^cloudflare\/@cf\/baai\/bge-m3 500 \d+ms, nvidia\/baai\/bge-m3 200 \d+ms$/);
    });

    it('refuses more inputs than EMBEDDINGS_MAX_INPUTS before calling anyone', async function () {
      const client = openaiClient(freeway, bgeKeys);
      const error = await rejection(() => client.embeddings.create({ model: 'free:embed', input: Array.from({ length: 301 }, () => 'x') }));
      expect(error.status).to.equal(400);
      expect(error.type).to.equal('invalid_request_error');
      expect(error.message).to.equal('400 Validation failed: input: 301 inputs, more than the 300 one request may carry (EMBEDDINGS_MAX_INPUTS); send them in several requests');
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('vectors never mix: failover stays within one family', function () {
    it('moves from a rate-limited Workers AI to NVIDIA and then DeepInfra, all bge-m3', async function () {
      upstream.handle((req, res) => {
        const provider = providerOf(req);
        if (provider === 'cloudflare') json(res, 429, { success: false, errors: [{ code: 3036, message: 'You have used up your daily free allocation of 10,000 neurons' }] });
        else if (provider === 'baai/bge-m3') json(res, 503, { status: 503, title: 'Service Unavailable', detail: 'busy' });
        else openAIEmbeddings(res, req);
      });
      const client = openaiClient(freeway, { ...bgeKeys, ...keyHeaders('mistral', 'google', 'cohere') });
      const { data: result, response } = await client.embeddings.create({ model: 'free:embed', input: ['q'], encoding_format: 'float' }).withResponse();
      expect(result.model).to.equal('deepinfra/BAAI/bge-m3');
      expect(response.headers.get('x-freeway-model')).to.equal('deepinfra/BAAI/bge-m3');
      expect(result.data[0]?.embedding).to.deep.equal(vectorOf('q', 3));
      expect(upstream.requests.map(providerOf)).to.deep.equal(['cloudflare', 'baai/bge-m3', 'BAAI/bge-m3']);
    });

    it('fails rather than answer with another model, whatever other keys the caller sent', async function () {
      upstream.handle((req, res) => json(res, 500, { error: { message: 'down' } }));
      const client = openaiClient(freeway, { ...bgeKeys, ...keyHeaders('mistral', 'google', 'cohere') });
      const error = await rejection(() => client.embeddings.create({ model: 'free:embed', input: 'q' }));
      expect(error.status).to.equal(502);
      expect(error.type).to.equal('freeway_all_providers_failed');
      // Workers AI may be skipped for what earlier tests left in its key's health; it is named either way.
      expect(error.message).to.match(/^502 All providers failed: /).and.to.include('nvidia: 500').and.to.include('deepinfra: 500').and.to.include('cloudflare');
      // Mistral, Google and Cohere embed with other weights: never asked.
      expect(upstream.requests.map(providerOf)).to.include.members(['baai/bge-m3', 'BAAI/bge-m3']);
      expect(upstream.requests.map(providerOf).every((provider) => ['cloudflare', 'baai/bge-m3', 'BAAI/bge-m3'].includes(provider))).to.equal(true);
    });

    it('a pinned model stays with its provider', async function () {
      upstream.handle((req, res) => json(res, 500, { object: 'error', message: 'Internal error' }));
      const client = openaiClient(freeway, { ...bgeKeys, ...keyHeaders('mistral') });
      const error = await rejection(() => client.embeddings.create({ model: 'mistral/mistral-embed', input: 'q' }));
      expect(error.status).to.equal(502);
      expect(error.type).to.equal('freeway_provider_error');
      expect(upstream.requests.map(providerOf)).to.deep.equal(['mistral-embed']);
    });

    it('free:embed without a key of its family is a 400 naming the headers that would do', async function () {
      const res = await fetch(`${freeway.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...keyHeaders('mistral', 'google') },
        body: JSON.stringify({ model: 'free:embed', input: 'q' }),
      });
      // Every provider that serves the bge-m3 family, in the order aliases try them.
      await expectError(res, 400, 'invalid_request_error', 'Your keys (X-Google-Key, X-Mistral-Key) have no model for free:embed; keys of X-Cloudflare-Key, X-Nvidia-Key, X-Ovhcloud-Key, X-Deepinfra-Key do.');
    });
  });

  describe('kinds never cross', function () {
    const post = (path: string, body: unknown): Promise<Response> =>
      fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bgeKeys, ...keyHeaders('groq') }, body: JSON.stringify(body) });

    it('an embeddings request for a chat model is a 400 naming the model', async function () {
      await expectError(
        await post('/v1/embeddings', { model: 'groq/llama-3.3-70b-versatile', input: 'x' }),
        400,
        'invalid_request_error',
        'groq/llama-3.3-70b-versatile is a chat model, not an embedding model: use it with POST /v1/chat/completions, /v1/responses or /v1/messages.',
      );
      await expectError(
        await post('/v1/embeddings', { model: 'free:auto', input: 'x' }),
        400,
        'invalid_request_error',
        'free:auto is a chat model, not an embedding model: use it with POST /v1/chat/completions, /v1/responses or /v1/messages.',
      );
    });

    it('a chat request for an embedding model or alias is a 400 naming it, on every chat API', async function () {
      const message = 'free:embed is an embedding model, not a chat model: use it with POST /v1/embeddings.';
      await expectError(await post('/v1/chat/completions', { model: 'free:embed', messages: [{ role: 'user', content: 'hi' }] }), 400, 'invalid_request_error', message);
      await expectError(await post('/v1/responses', { model: 'free:embed', input: 'hi' }), 400, 'invalid_request_error', message);
      await expectError(
        await post('/v1/chat/completions', { model: 'cloudflare/@cf/baai/bge-m3', messages: [{ role: 'user', content: 'hi' }] }),
        400,
        'invalid_request_error',
        'cloudflare/@cf/baai/bge-m3 is an embedding model, not a chat model: use it with POST /v1/embeddings.',
      );
      expect(upstream.requests).to.have.length(0);
    });
  });

  describe('refused requests (OpenAI error shape)', function () {
    const post = (body: unknown, headers: Record<string, string> = bgeKeys): Promise<Response> =>
      fetch(`${freeway.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

    it('token arrays, with how to make LangChain send text', async function () {
      for (const input of [[1, 2, 3], [[1, 2], [3]]]) {
        const reply = await expectError(await post({ model: 'free:embed', input }), 400, 'invalid_request_error');
        expect(reply.message).to.equal(
          "input: token arrays are not accepted by this model; send text. LangChain's Python OpenAIEmbeddings sends tokens unless it is built with check_embedding_ctx_length=False.",
        );
      }
    });

    it('a missing or empty input, a wrong encoding_format, a bad dimensions or an unknown model', async function () {
      await expectError(await post({ model: 'free:embed' }), 400, 'invalid_request_error', 'Validation failed: input: required');
      await expectError(await post({ model: 'free:embed', input: '' }), 400, 'invalid_request_error', 'Validation failed: input: must not be an empty string');
      await expectError(await post({ model: 'free:embed', input: [] }), 400, 'invalid_request_error', 'Validation failed: input: must not be an empty array');
      await expectError(await post({ model: 'free:embed', input: ['a', 7] }), 400, 'invalid_request_error', 'Validation failed: input[1]: must be a string');
      await expectError(await post({ input: 'a' }), 400, 'invalid_request_error', 'Validation failed: model: required, a string');
      await expectError(await post({ model: 'free:embed', input: 'a', encoding_format: 'int8' }), 400, 'invalid_request_error', 'Validation failed: encoding_format: must be "float" or "base64"');
      await expectError(await post({ model: 'google/gemini-embedding-001', input: 'a', dimensions: 0 }, keyHeaders('google')), 400, 'invalid_request_error', 'Validation failed: dimensions: must be a positive integer');
      await expectError(
        await post({ model: 'google/gemini-embedding-001', input: 'a', dimensions: 4096 }, keyHeaders('google')),
        400,
        'invalid_request_error',
        'Validation failed: dimensions: google/gemini-embedding-001 takes 128 to 3072, got 4096',
      );
      const unknown = await expectError(await post({ model: 'cloudflare/bge-m3', input: 'a' }), 404, 'invalid_request_error');
      expect(unknown.message).to.match(/^Unknown model: cloudflare\/bge-m3/);
      expect(upstream.requests).to.have.length(0);
    });

    it('GET is a 405 naming POST', async function () {
      const res = await fetch(`${freeway.url}/v1/embeddings`);
      expect(res.headers.get('allow')).to.equal('POST');
      await expectError(res, 405, 'invalid_request_error', 'Method GET is not allowed on /v1/embeddings. Allowed: POST.');
    });
  });

  describe('listed in /v1/models', function () {
    it('free:embed and free:transcribe with their kind beside the six chat aliases, and every embedding model with its family', async function () {
      const list = (await (await fetch(`${freeway.url}/v1/models`)).json()) as { data: Array<{ id: string; owned_by: string; capabilities: string[]; family?: string }> };
      const aliases = list.data.filter((model) => model.owned_by === 'freeway');
      const chat = aliases.filter((alias) => !alias.capabilities.includes('embedding') && !alias.capabilities.includes('transcription'));
      expect(chat.map((alias) => alias.id)).to.deep.equal(['free:auto', 'free:fast', 'free:reasoning', 'free:long-context', 'free:vision', 'free:tool-use']);
      expect(aliases.find((alias) => alias.id === 'free:embed')).to.deep.include({ capabilities: ['embedding'], family: 'bge-m3' });
      expect(aliases.find((alias) => alias.id === 'free:transcribe')).to.deep.include({ capabilities: ['transcription'], family: 'whisper-large-v3-turbo' });
      const bge = list.data.filter((model) => model.family === 'bge-m3' && model.owned_by !== 'freeway').map((model) => model.id);
      expect(bge).to.have.members(['cloudflare/@cf/baai/bge-m3', 'nvidia/baai/bge-m3', 'ovhcloud/BGE-M3', 'deepinfra/BAAI/bge-m3']);
      for (const model of freeway.catalog.embeddingModels) {
        const listed = list.data.find((entry) => entry.id === model.id);
        expect(listed?.capabilities, model.id).to.deep.equal(['embedding']);
      }
    });
  });

  describe('as every other route', function () {
    it('CORS preflights pass, and answers carry X-Request-Id and expose the X-Freeway-* headers', async function () {
      const preflight = await fetch(`${freeway.url}/v1/embeddings`, {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-nvidia-key' },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin')).to.equal('*');
      const res = await fetch(`${freeway.url}/v1/embeddings`, {
        method: 'POST',
        headers: { origin: 'https://app.example', 'content-type': 'application/json', ...bgeKeys },
        body: JSON.stringify({ model: 'free:embed', input: 'x' }),
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-request-id')).to.be.a('string').and.not.equal('');
      expect(res.headers.get('access-control-expose-headers')).to.include('X-Freeway-Model');
    });
  });

  describe('redaction', function () {
    it('a provider error that echoes the key reaches the caller without it', async function () {
      const key = testKeys.nvidia as string;
      upstream.handle((_req, res) => json(res, 401, { status: 401, title: 'Unauthorized', detail: `Invalid key ${key}` }));
      const res = await fetch(`${freeway.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...keyHeaders('nvidia') },
        body: JSON.stringify({ model: 'nvidia/baai/bge-m3', input: 'x' }),
      });
      const reply = await expectError(res, 502, 'freeway_provider_error');
      expect(reply.message).to.match(/^Provider failed: nvidia: the provider refused the key \(401 /);
      expect(reply.text).to.not.include(key);
    });
  });

  describe('metrics', function () {
    it('count embeddings requests under their route and their upstream attempts by provider', async function () {
      const client = openaiClient(freeway, bgeKeys);
      await client.embeddings.create({ model: 'deepinfra/BAAI/bge-m3', input: 'metered', encoding_format: 'float' });
      const text = await (await fetch(`${freeway.url}/metrics`)).text();
      expect(text).to.match(/^freeway_http_requests_total\{route="\/v1\/embeddings",status="200"\} \d+$/m);
      expect(text).to.match(/^freeway_upstream_attempts_total\{provider="deepinfra",outcome="ok"\} \d+$/m);
    });
  });

  describe('logs', function () {
    it('carry neither the input text nor the vectors', async function () {
      const secretText = 'zebra-unicorn-sentence-for-the-log-test';
      const client = openaiClient(freeway, bgeKeys);
      await client.embeddings.create({ model: 'free:embed', input: [secretText], encoding_format: 'float' });
      const line = await freeway.logged(/POST \/v1\/embeddings/);
      expect(line).to.not.equal('');
      expect(freeway.logs.join('\n')).to.not.include(secretText);
    });
  });
});

describe('embeddings with live model lists (MODELS_LIVE=on, the default)', function () {
  it('free:embed is served when the keys\' listings succeed: a listing adds no model to a family', async function () {
    // NVIDIA's and DeepInfra's GET /models answer in OpenAI's list format; both list their bge-m3 and a chat model.
    const upstream = await startUpstream((req, res) => {
      if (req.method === 'GET' && req.path.endsWith('/models')) {
        json(res, 200, { object: 'list', data: ['baai/bge-m3', 'BAAI/bge-m3', 'some/chat-model'].map((id) => ({ id, object: 'model', owned_by: 'x' })) });
      } else if (providerOf(req) === 'baai/bge-m3') json(res, 503, { status: 503, title: 'Service Unavailable', detail: 'busy' });
      else openAIEmbeddings(res, req);
    });
    const freeway = await startFreeway({ env: { NVIDIA_BASE_URL: upstream.url, DEEPINFRA_BASE_URL: upstream.url, MODELS_LIVE: 'on', MODELS_FIRST_WAIT_MS: '5000' } });
    try {
      const client = openaiClient(freeway, keyHeaders('nvidia', 'deepinfra'));
      for (let i = 0; i < 2; i++) {
        const { data: result, response } = await client.embeddings.create({ model: 'free:embed', input: ['q'] }).withResponse();
        expect(response.headers.get('x-freeway-model')).to.equal('deepinfra/BAAI/bge-m3');
        expect(result.data[0]?.embedding).to.deep.equal(vectorOf('q', 3));
      }
      const embedCalls = upstream.requests.filter((req) => req.method === 'POST').map(providerOf);
      expect(embedCalls.every((provider) => provider === 'baai/bge-m3' || provider === 'BAAI/bge-m3'), embedCalls.join()).to.equal(true);
    } finally {
      await freeway.close();
      await upstream.close();
    }
  });
});

describe('embedding models discovered and quarantined like chat models', function () {
  it('a pinned embedding model that only the key\'s live list knows is served, in its own family; unlisted, it is a 404', async function () {
    // Mistral's GET /models (https://docs.mistral.ai/api/endpoint/models): a model card per model, with capabilities.
    const upstream = await startUpstream((req, res) => {
      if (req.method === 'GET' && req.path.endsWith('/models')) {
        json(res, 200, { object: 'list', data: [{ id: 'mistral-embed-2612', object: 'model', owned_by: 'mistralai', capabilities: { completion_chat: false }, max_context_length: 8192 }] });
      } else openAIEmbeddings(res, req);
    });
    const on = await startFreeway({ env: { MISTRAL_BASE_URL: upstream.url, MODELS_LIVE: 'on', MODELS_FIRST_WAIT_MS: '5000' } });
    const off = await startFreeway({ env: { MISTRAL_BASE_URL: upstream.url } });
    try {
      const inputs = Array.from({ length: 20 }, (_, i) => `text ${i}`);
      const { data: result, response } = await openaiClient(on, keyHeaders('mistral')).embeddings.create({ model: 'mistral/mistral-embed-2612', input: inputs }).withResponse();
      expect(response.headers.get('x-freeway-model')).to.equal('mistral/mistral-embed-2612');
      expect(result.data.map((item) => item.index)).to.deep.equal(inputs.map((_, i) => i));
      const calls = upstream.requests.filter((req) => req.method === 'POST');
      // Its batch limit is unknown: 16 inputs a call, the smallest any provider documents.
      expect(calls.map((req) => [req.body?.model, (req.body?.input as string[]).length])).to.deep.equal([
        ['mistral-embed-2612', 16],
        ['mistral-embed-2612', 4],
      ]);
      const dimensions = await rejection(() => openaiClient(on, keyHeaders('mistral')).embeddings.create({ model: 'mistral/mistral-embed-2612', input: 'q', dimensions: 256 }));
      expect(dimensions.status).to.equal(400);
      expect(dimensions.message).to.equal('400 Validation failed: dimensions: mistral/mistral-embed-2612 does not take dimensions');

      const unlisted = await rejection(() => openaiClient(off, keyHeaders('mistral')).embeddings.create({ model: 'mistral/mistral-embed-2612', input: 'q' }));
      expect(unlisted.status).to.equal(404);
      expect(unlisted.message).to.match(/^404 Unknown model: mistral\/mistral-embed-2612/);
    } finally {
      await on.close();
      await off.close();
      await upstream.close();
    }
  });

  it('a deployment that answers "not found" is quarantined: the next free:embed request goes straight to the next one', async function () {
    // NVIDIA's plain-text 404 for an id it does not serve (providers/nvidia/fixtures.ts).
    const upstream = await startUpstream((req, res) => {
      if (providerOf(req) === 'baai/bge-m3') res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found');
      else openAIEmbeddings(res, req);
    });
    const freeway = await startFreeway({ env: { NVIDIA_BASE_URL: upstream.url, DEEPINFRA_BASE_URL: upstream.url, MODEL_QUARANTINE_MS: '3600000' } });
    try {
      const client = openaiClient(freeway, keyHeaders('nvidia', 'deepinfra'));
      for (let i = 0; i < 2; i++) {
        const { response } = await client.embeddings.create({ model: 'free:embed', input: 'q' }).withResponse();
        expect(response.headers.get('x-freeway-model')).to.equal('deepinfra/BAAI/bge-m3');
      }
      expect(upstream.requests.map(providerOf), 'NVIDIA asked once, then skipped').to.deep.equal(['baai/bge-m3', 'BAAI/bge-m3', 'BAAI/bge-m3']);
    } finally {
      await freeway.close();
      await upstream.close();
    }
  });
});

describe('embeddings: BODY_LIMIT bounds the request', function () {
  let freeway: RunningFreeway;
  before(async function () {
    freeway = await startFreeway({ env: { BODY_LIMIT: '1kb' } });
  });
  after(async function () {
    await freeway.close();
  });

  it('a body over BODY_LIMIT is a 413', async function () {
    const res = await fetch(`${freeway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('cloudflare') },
      body: JSON.stringify({ model: 'free:embed', input: ['x'.repeat(2048)] }),
    });
    await expectError(res, 413, 'invalid_request_error', 'Request body larger than 1kb.');
  });
});

describe('embeddings wait for a resting key within X-Freeway-Max-Wait', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  const mistral = keyHeaders('mistral');
  const post = (headers: Record<string, string>): Promise<Response> =>
    fetch(`${freeway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...mistral, ...headers },
      body: JSON.stringify({ model: 'mistral/mistral-embed', input: ['hello'], encoding_format: 'float' }),
    });

  before(async function () {
    upstream = await startUpstream();
    freeway = await startFreeway({ env: { MISTRAL_BASE_URL: upstream.url, MAX_WAIT_MS: '5000' } });
  });
  after(async function () {
    await freeway.close();
    await upstream.close();
  });

  it('a value other than seconds from 0 to MAX_WAIT_MS is a 400 naming the range, with no call', async function () {
    const response = await post({ 'X-Freeway-Max-Wait': '6' });
    expect(response.status).to.equal(400);
    expect(((await response.json()) as { error: unknown }).error).to.deep.equal({
      message: 'Validation failed: X-Freeway-Max-Wait: must be a number of seconds from 0 to 5 (MAX_WAIT_MS)',
      type: 'invalid_request_error',
      code: 400,
    });
    expect(upstream.requests).to.have.length(0);
  });

  it('X-Freeway-Max-Wait: 0 answers a 429 with Retry-After at once; a budget that covers the window waits and answers', async function () {
    this.timeout(20_000);
    upstream.handle((_req, res) => json(res, 429, { message: 'Requests rate limit exceeded', request_id: 'x' }, { 'retry-after': '2' }));
    const refused = await post({ 'X-Freeway-Max-Wait': '0' });
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.match(/^[12]$/);
    expect(((await refused.json()) as { error: { type: string } }).error.type).to.equal('rate_limit_error');
    const calls = upstream.requests.length;
    // The next call meets the window once more, then the key answers.
    let rested = false;
    upstream.handle((req, res) => {
      if (rested) return openAIEmbeddings(res, req);
      rested = true;
      json(res, 429, { message: 'Requests rate limit exceeded', request_id: 'y' }, { 'retry-after': '1' });
    });
    const waited = await post({ 'X-Freeway-Max-Wait': '4' });
    expect(waited.status).to.equal(200);
    expect(Number(waited.headers.get('x-freeway-waited'))).to.be.within(0.5, 4);
    expect(upstream.requests.length).to.be.within(calls + 1, calls + 2);
  });
});
