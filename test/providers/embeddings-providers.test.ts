/**
 * Each provider's embedding and transcription mapping, through Freeway's HTTP API against the
 * provider's REAL default base URL intercepted by nock: the URL, auth header and body the
 * provider documents, and its documented answer read back into OpenAI's shape. The bodies
 * come from the pages cited beside each case (read 2026-11-25). Then what every plugin's
 * declarations must satisfy, derived from the discovered plugins.
 */
import { expect } from 'chai';
import type Nock from 'nock';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';

/** Imported when the suite starts: nock patches fetch and http for the whole process (see providers.test.ts). */
let nock: typeof Nock;

const plugins = await providerPlugins();

interface Case {
  readonly provider: string;
  readonly model: string;
  /** Where the request and answer shapes come from. */
  readonly source: string;
  readonly origin: string;
  readonly path: (key: string) => string;
  /** Headers the provider must get. */
  readonly headers: (key: string) => Record<string, string>;
  /** The body the provider must get for `input`. */
  readonly body: (input: readonly string[]) => Record<string, unknown>;
  /** The provider's answer for `input`. */
  readonly answer: (input: readonly string[]) => Record<string, unknown>;
  /** Usage Freeway must report, or undefined when the provider sends none. */
  readonly usage: number | undefined;
  /** Extra request fields. */
  readonly extra?: Record<string, unknown>;
}

const vectors = (input: readonly string[]): number[][] => input.map((text, i) => [0.0123 * (i + 1), -0.5, text.length / 100]);
const openAIAnswer = (model: string, usage?: number) => (input: readonly string[]) => ({
  object: 'list',
  data: vectors(input).map((embedding, index) => ({ object: 'embedding', index, embedding })),
  model,
  ...(usage === undefined ? {} : { usage: { prompt_tokens: usage, total_tokens: usage } }),
});
const bearer = (token: string) => () => ({ authorization: `Bearer ${token}` });
const cloudflareKey = (testKeys.cloudflare ?? ':').split(':') as [string, string];

const cases: readonly Case[] = [
  {
    provider: 'google',
    model: 'gemini-embedding-001',
    source: 'https://ai.google.dev/api/embeddings#method:-models.batchembedcontents',
    origin: 'https://generativelanguage.googleapis.com',
    path: () => '/v1beta/models/gemini-embedding-001:batchEmbedContents',
    headers: (key) => ({ 'x-goog-api-key': key }),
    body: (input) => ({ requests: input.map((text) => ({ model: 'models/gemini-embedding-001', content: { role: 'user', parts: [{ text }] }, outputDimensionality: 768 })) }),
    answer: (input) => ({ embeddings: vectors(input).map((values) => ({ values })) }),
    usage: undefined,
    extra: { dimensions: 768 },
  },
  {
    provider: 'cohere',
    model: 'embed-v4.0',
    source: 'https://docs.cohere.com/docs/compatibility-api',
    origin: 'https://api.cohere.ai',
    path: () => '/compatibility/v1/embeddings',
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (input) => ({ model: 'embed-v4.0', input, encoding_format: 'float' }),
    answer: openAIAnswer('embed-v4.0', 9),
    usage: 9,
  },
  {
    provider: 'cloudflare',
    model: '@cf/baai/bge-m3',
    source: 'https://developers.cloudflare.com/workers-ai/configuration/open-ai-compatibility/',
    origin: 'https://api.cloudflare.com',
    path: () => `/client/v4/accounts/${cloudflareKey[0]}/ai/v1/embeddings`,
    headers: bearer(cloudflareKey[1]),
    body: (input) => ({ model: '@cf/baai/bge-m3', input, encoding_format: 'float' }),
    answer: openAIAnswer('@cf/baai/bge-m3', 8),
    usage: 8,
  },
  {
    provider: 'nvidia',
    model: 'nvidia/nv-embedqa-e5-v5',
    source: 'https://docs.nvidia.com/nim/nemo-retriever/text-embedding/latest/reference.html',
    origin: 'https://integrate.api.nvidia.com',
    path: () => '/v1/embeddings',
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (input) => ({ model: 'nvidia/nv-embedqa-e5-v5', input, encoding_format: 'float', input_type: 'query', user: 'end-user-7' }),
    answer: openAIAnswer('nvidia/nv-embedqa-e5-v5', 6),
    usage: 6,
    extra: { input_type: 'query', user: 'end-user-7' },
  },
  {
    provider: 'nvidia',
    model: 'baai/bge-m3',
    source: 'https://build.nvidia.com/baai/bge-m3',
    origin: 'https://integrate.api.nvidia.com',
    path: () => '/v1/embeddings',
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    // bge-m3 takes no input_type: none is sent, even when the caller gave one.
    body: (input) => ({ model: 'baai/bge-m3', input, encoding_format: 'float' }),
    answer: openAIAnswer('baai/bge-m3', 6),
    usage: 6,
    extra: { input_type: 'passage' },
  },
  {
    provider: 'mistral',
    model: 'mistral-embed',
    source: 'https://docs.mistral.ai/api/#tag/embeddings',
    origin: 'https://api.mistral.ai',
    path: () => '/v1/embeddings',
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (input) => ({ model: 'mistral-embed', input, encoding_format: 'float' }),
    answer: (input) => ({ id: 'embd-aad6fc62b17349b192ef09225058bc45', ...openAIAnswer('mistral-embed', 12)(input) }),
    usage: 12,
  },
  {
    provider: 'deepinfra',
    model: 'BAAI/bge-m3',
    source: 'https://deepinfra.com/BAAI/bge-m3/api',
    origin: 'https://api.deepinfra.com',
    path: () => '/v1/openai/embeddings',
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    body: (input) => ({ model: 'BAAI/bge-m3', input, encoding_format: 'float' }),
    answer: openAIAnswer('BAAI/bge-m3', 4),
    usage: 4,
  },
];

interface Seen {
  readonly headers: Headers;
  readonly body: string;
}

/** Intercepts one POST to a provider's real endpoint, answers `answer`, and records what Freeway sent. */
function intercept(origin: string, path: string, status: number, answer: unknown): { scope: Nock.Scope; seen: Seen[] } {
  const seen: Seen[] = [];
  const scope = nock(origin).post(path).reply(status, JSON.stringify(answer), { 'content-type': 'application/json' });
  scope.on('request', (req: Request, _interceptor: unknown, body: string) => {
    seen.push({ headers: req.headers, body });
  });
  return { scope, seen };
}

describe('embeddings and transcriptions: each provider against its real base URL (nock)', function () {
  let freeway: RunningFreeway;

  before(async function () {
    nock = (await import('nock')).default;
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1/);
    freeway = await startFreeway();
  });
  afterEach(function () {
    nock.cleanAll();
  });
  after(async function () {
    if (!nock) return;
    nock.cleanAll();
    nock.enableNetConnect();
    // Later suites run without nock's interception (it slows and changes raw HTTP).
    nock.restore();
    await freeway?.close();
  });

  for (const test of cases) {
    it(`${test.provider}/${test.model}: ${test.source}`, async function () {
      const key = testKeys[test.provider] as string;
      const input = ['The food was delicious and the waiter...', 'A second passage'];
      const { scope, seen } = intercept(test.origin, test.path(key), 200, test.answer(input));
      const res = await fetch(`${freeway.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...keyHeaders(test.provider) },
        body: JSON.stringify({ model: `${test.provider}/${test.model}`, input, encoding_format: 'float', ...test.extra }),
      });
      const text = await res.text();
      expect(res.status, text).to.equal(200);
      expect(scope.isDone()).to.equal(true);
      expect(seen).to.have.length(1);
      const [sent] = seen as [Seen];
      expect(JSON.parse(sent.body)).to.deep.equal(test.body(input));
      for (const [name, value] of Object.entries(test.headers(key))) expect(sent.headers.get(name), name).to.equal(value);
      // The caller's key header, and Freeway's own carrier headers, never reach the provider.
      const expected = Object.keys(test.headers(key));
      expect([...sent.headers.keys()].filter((name) => !expected.includes(name) && name.startsWith('x-') && (name.endsWith('-key') || name.startsWith('x-freeway')))).to.deep.equal([]);
      const body = JSON.parse(text) as { data: Array<{ index: number; embedding: number[] }>; model: string; usage?: unknown };
      expect(body.model).to.equal(`${test.provider}/${test.model}`);
      expect(body.data).to.deep.equal(vectors(input).map((embedding, index) => ({ object: 'embedding', index, embedding })));
      if (test.usage === undefined) expect(body).to.not.have.property('usage');
      else expect(body.usage).to.deep.equal({ prompt_tokens: test.usage, total_tokens: test.usage });
    });
  }

  it('google/gemini-embedding-001, one input: embedContent (https://ai.google.dev/api/embeddings#method:-models.embedcontent)', async function () {
    const { scope, seen } = intercept('https://generativelanguage.googleapis.com', '/v1beta/models/gemini-embedding-001:embedContent', 200, { embedding: { values: [0.1, 0.2, 0.3] } });
    const res = await fetch(`${freeway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('google') },
      body: JSON.stringify({ model: 'google/gemini-embedding-001', input: 'What is the meaning of life?', encoding_format: 'float' }),
    });
    const body = (await res.json()) as { data: Array<{ embedding: number[] }> };
    expect(res.status).to.equal(200);
    expect(scope.isDone()).to.equal(true);
    expect(JSON.parse(seen[0]?.body ?? '')).to.deep.equal({ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'What is the meaning of life?' }] } });
    expect(body.data[0]?.embedding).to.deep.equal([0.1, 0.2, 0.3]);
  });

  it('a documented provider error keeps its meaning: Workers AI daily allocation (3036) is a rate limit, retried after UTC midnight', async function () {
    const [account] = cloudflareKey;
    intercept('https://api.cloudflare.com', `/client/v4/accounts/${account}/ai/v1/embeddings`, 429, { success: false, errors: [{ code: 3036, message: 'Account limited: you have used up your daily free allocation of 10,000 neurons' }], messages: [], result: null });
    const res = await fetch(`${freeway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('cloudflare') },
      body: JSON.stringify({ model: 'cloudflare/@cf/baai/bge-small-en-v1.5', input: 'x' }),
    });
    // Nothing failed: the key rests until midnight, beyond any wait budget.
    expect(res.status).to.equal(429);
    const body = (await res.json()) as { error: { type: string; message: string } };
    expect(body.error.type).to.equal('rate_limit_error');
    expect(body.error.message).to.match(/cloudflare: usable again in \d+s \(429 /);
    expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
  });

  it('groq/whisper-large-v3-turbo: multipart to /openai/v1/audio/transcriptions (https://console.groq.com/docs/speech-to-text)', async function () {
    const { scope, seen: requests } = intercept('https://api.groq.com', '/openai/v1/audio/transcriptions', 200, {
      text: ' Hi.',
      language: 'English',
      duration: 0.5,
      segments: [{ id: 0, seek: 0, start: 0, end: 0.5, text: ' Hi.', tokens: [1], temperature: 0, avg_logprob: -0.1, compression_ratio: 0.5, no_speech_prob: 0.01 }],
      x_groq: { id: 'req_01' },
    });
    const form = new FormData();
    form.append('model', 'groq/whisper-large-v3-turbo');
    form.append('language', 'en');
    form.append('prompt', 'A greeting.');
    form.append('temperature', '0.3');
    form.append('response_format', 'srt');
    form.append('file', new File([new Uint8Array([82, 73, 70, 70, 1, 2, 3, 4])], 'hi.wav', { type: 'audio/wav' }));
    const res = await fetch(`${freeway.url}/v1/audio/transcriptions`, { method: 'POST', headers: keyHeaders('groq'), body: form });
    const text = await res.text();
    expect(res.status, text).to.equal(200);
    expect(scope.isDone()).to.equal(true);
    expect(text).to.equal('1\n00:00:00,000 --> 00:00:00,500\nHi.\n\n');
    const [sent] = requests as [Seen];
    const seen = sent.body;
    expect(sent.headers.get('authorization')).to.equal(`Bearer ${testKeys.groq}`);
    expect(sent.headers.get('content-type')).to.match(/^multipart\/form-data; boundary=/);
    const field = (name: string): string | undefined => new RegExp(`name="${name.replace(/[[\]]/g, '\\$&')}"\\r\\n\\r\\n([^\\r]*)\\r\\n`).exec(seen)?.[1];
    expect(field('model')).to.equal('whisper-large-v3-turbo');
    expect(field('language')).to.equal('en');
    expect(field('prompt')).to.equal('A greeting.');
    expect(field('temperature')).to.equal('0.3');
    // Freeway asks for verbose_json and writes the caller's format itself.
    expect(field('response_format')).to.equal('verbose_json');
    expect(field('timestamp_granularities[]')).to.equal('segment');
    expect(seen).to.include('filename="audio.wav"').and.to.include('Content-Type: audio/wav').and.to.include('RIFF\u0001\u0002\u0003\u0004');
  });

  it('cloudflare/@cf/openai/whisper-large-v3-turbo: base64 JSON to /ai/run (https://developers.cloudflare.com/workers-ai/models/whisper-large-v3-turbo/)', async function () {
    const [account, token] = cloudflareKey;
    const { scope, seen } = intercept('https://api.cloudflare.com', `/client/v4/accounts/${account}/ai/run/@cf/openai/whisper-large-v3-turbo`, 200, {
      result: { transcription_info: { language: 'en', duration: 0.5 }, text: 'Hi.', word_count: 1, segments: [{ start: 0, end: 0.5, text: 'Hi.' }], vtt: 'WEBVTT\n\n00:00.000 --> 00:00.500\nHi.\n\n' },
      success: true,
      errors: [],
      messages: [],
    });
    const audio = new Uint8Array([82, 73, 70, 70, 9, 8, 7]);
    const form = new FormData();
    form.append('model', 'cloudflare/@cf/openai/whisper-large-v3-turbo');
    form.append('language', 'en');
    form.append('prompt', 'A greeting.');
    form.append('response_format', 'verbose_json');
    form.append('file', new File([audio], 'hi.wav', { type: 'audio/wav' }));
    const res = await fetch(`${freeway.url}/v1/audio/transcriptions`, { method: 'POST', headers: keyHeaders('cloudflare'), body: form });
    const text = await res.text();
    expect(res.status, text).to.equal(200);
    expect(scope.isDone()).to.equal(true);
    expect(seen[0]?.headers.get('authorization')).to.equal(`Bearer ${token}`);
    expect(JSON.parse(seen[0]?.body ?? '')).to.deep.equal({ audio: Buffer.from(audio).toString('base64'), language: 'en', initial_prompt: 'A greeting.' });
    expect(JSON.parse(text)).to.deep.equal({ task: 'transcribe', language: 'en', duration: 0.5, text: 'Hi.', segments: [{ id: 0, start: 0, end: 0.5, text: 'Hi.' }] });
  });
});

describe('embedding and transcription declarations of every plugin', function () {
  const embedding = plugins.flatMap((plugin) => (plugin.embeddingModels ?? []).map((spec) => ({ plugin, spec })));
  const transcription = plugins.flatMap((plugin) => (plugin.transcriptionModels ?? []).map((spec) => ({ plugin, spec })));

  it('every plugin that declares models of a kind can build them', function () {
    for (const plugin of plugins) {
      if (plugin.embeddingModels?.length) expect(plugin.createEmbeddingModel, plugin.id).to.be.a('function');
      if (plugin.transcriptionModels?.length) expect(plugin.createTranscriptionModel, plugin.id).to.be.a('function');
    }
  });

  it('every model names its family with a source, and a sane batch limit, window and size', function () {
    for (const { plugin, spec } of [...embedding, ...transcription]) {
      expect(spec.family.id, `${plugin.id}/${spec.id}`).to.match(/^[a-z0-9][a-z0-9.-]*$/);
      expect(spec.family.source, `${plugin.id}/${spec.id}`).to.match(/^https:\/\//);
    }
    for (const { plugin, spec } of embedding) {
      const name = `${plugin.id}/${spec.id}`;
      expect(spec.maxBatch, name).to.be.within(1, 2048);
      expect(spec.contextWindow, name).to.be.greaterThan(0);
      expect(spec.defaultDimensions, name).to.be.greaterThan(0);
      expect(spec.tokenInput, name).to.equal(false);
      if (spec.dimensions) expect(spec.defaultDimensions, name).to.be.within(spec.dimensions.min, spec.dimensions.max);
    }
    for (const { plugin, spec } of transcription) expect(spec.maxBytes, `${plugin.id}/${spec.id}`).to.be.greaterThan(0);
  });

  it('deployments of one embedding family give vectors of one size and take the same dimensions', function () {
    const families = new Map<string, Array<(typeof embedding)[number]>>();
    for (const entry of embedding) families.set(entry.spec.family.id, [...(families.get(entry.spec.family.id) ?? []), entry]);
    for (const [family, members] of families) {
      const first = members[0]?.spec;
      for (const { spec } of members) {
        expect(spec.defaultDimensions, family).to.equal(first?.defaultDimensions);
        expect(spec.dimensions, family).to.deep.equal(first?.dimensions);
      }
    }
  });

  it('free:embed and free:transcribe each have deployments of their family', async function () {
    const freeway = await startFreeway();
    try {
      for (const alias of freeway.catalog.kindAliases) {
        expect(alias.models.length, alias.id).to.be.greaterThan(0);
        for (const model of alias.models) expect(model.embedding?.family.id ?? model.transcription?.family.id, `${alias.id}: ${model.id}`).to.equal(alias.family?.id);
      }
    } finally {
      await freeway.close();
    }
  });
});
