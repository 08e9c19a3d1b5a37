/**
 * Every provider plugin, end to end through Freeway's HTTP API, against the
 * provider's REAL default base URL intercepted by nock: what the upstream sees
 * (URL, model id, auth header, mapped body) and what the client gets back
 * (OpenAI chat.completion / chat.completion.chunk shapes, X-Freeway-* headers).
 * Nothing leaves the process but 127.0.0.1 (Freeway itself).
 */
import { expect } from 'chai';
import type Nock from 'nock';
import type { ProviderPlugin } from '../../providers/types.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { parseSse } from '../support/sse.ts';
import { chatPath, expectCredential, liveModelId, wireOf } from '../support/wire.ts';

/**
 * nock patches fetch and http for the whole process as soon as it is imported,
 * and its pass-through makes other suites' 127.0.0.1 traffic several times
 * slower. Imported when this suite starts, not when mocha loads the file.
 */
let nock: typeof Nock;

const plugins = await providerPlugins();

const SYSTEM = 'You are terse.';
const conversation = [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: 'Say hello' },
  { role: 'assistant', content: 'Hi.' },
  { role: 'user', content: 'Again, please' },
];
const TEMPERATURE = 0.25;
const USER = 'end-user-42';
const MAX_TOKENS = 64;
const upstreamUsage = { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 };
const expectedUsage = { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16, promptTokens: 11, completionTokens: 5, totalTokens: 16 };

/** Where the provider's streaming chat endpoint lives under its default base URL. */
function upstreamURL(plugin: ProviderPlugin, modelId: string): string {
  return `${plugin.baseURL}${chatPath(plugin, modelId, testKeys[plugin.id] as string)}`;
}

const sse = (events: readonly unknown[], done = true): string =>
  events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');

/** An OpenAI-format upstream stream: "Hello" + " from <id>", then the finish reason and, where the provider streams it, usage. */
function openAIStream(plugin: ProviderPlugin, modelId: string, finishReason: 'stop' | 'length'): string {
  const { id } = plugin;
  const base = { id: 'chatcmpl-upstream', object: 'chat.completion.chunk', created: 1700000000, model: modelId };
  const events: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: ` from ${id}` }, finish_reason: null }] },
  ];
  if (wireOf(plugin).streamUsage === 'x_groq') {
    // Groq reports streaming usage only in x_groq.usage, on the final chunk.
    events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }], x_groq: { id: 'req_1', usage: upstreamUsage } });
  } else {
    events.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
    if (plugin.usageInStreams !== false) events.push({ ...base, choices: [], usage: upstreamUsage });
  }
  return sse(events);
}

/** An OpenAI-format non-streaming answer, for providers whose streams carry no usage (`usageInStreams: false`). */
function openAICompletion(modelId: string, finishReason: 'stop' | 'length', id: string): string {
  return JSON.stringify({
    id: 'chatcmpl-upstream',
    object: 'chat.completion',
    created: 1700000000,
    model: modelId,
    choices: [{ index: 0, message: { role: 'assistant', content: `Hello from ${id}` }, finish_reason: finishReason }],
    usage: upstreamUsage,
  });
}

/** Gemini's streamGenerateContent?alt=sse answer (no [DONE]; the stream just ends). */
function geminiStream(id: string, finishReason: 'STOP' | 'MAX_TOKENS'): string {
  return sse(
    [
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Hello' }] }, index: 0 }], modelVersion: 'gemini' },
      {
        candidates: [{ content: { role: 'model', parts: [{ text: ` from ${id}` }] }, finishReason, index: 0 }],
        usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 5, totalTokenCount: 16 },
      },
    ],
    false,
  );
}

interface Seen {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** Intercepts one POST to the provider's real endpoint and records what Freeway sent. */
function interceptUpstream(plugin: ProviderPlugin, modelId: string, replyBody: string, contentType = 'text/event-stream'): { scope: Nock.Scope; seen: Seen[] } {
  const target = new URL(upstreamURL(plugin, modelId));
  const seen: Seen[] = [];
  let interceptor = nock(target.origin).post(target.pathname);
  if (target.search !== '') interceptor = interceptor.query(Object.fromEntries(target.searchParams));
  const scope = interceptor.reply(200, replyBody, { 'content-type': contentType });
  scope.on('request', (req: Request, _interceptor: unknown, body: string) => {
    seen.push({ url: req.url, headers: req.headers, body: JSON.parse(body) as Record<string, unknown> });
  });
  return { scope, seen };
}

function expectUpstreamRequest(plugin: ProviderPlugin, modelId: string, seen: readonly Seen[], streamed = true): void {
  expect(seen, 'upstream requests').to.have.length(1);
  const [request] = seen as [Seen];
  expect(request.url).to.equal(upstreamURL(plugin, modelId));
  expectCredential(plugin, testKeys[plugin.id] as string, (name) => request.headers.get(name), request.url);
  const wire = wireOf(plugin);
  if (wire.format === 'gemini') {
    expect(request.body.contents).to.deep.equal([
      { role: 'user', parts: [{ text: 'Say hello' }] },
      { role: 'model', parts: [{ text: 'Hi.' }] },
      { role: 'user', parts: [{ text: 'Again, please' }] },
    ]);
    expect(request.body.systemInstruction).to.deep.equal({ parts: [{ text: SYSTEM }] });
    expect(request.body.generationConfig).to.include({ temperature: TEMPERATURE, maxOutputTokens: MAX_TOKENS });
    return;
  }
  expect(request.body.model).to.equal(modelId);
  expect(request.body.messages).to.deep.equal(conversation);
  expect(request.body.temperature).to.equal(TEMPERATURE);
  expect(request.body.max_tokens).to.equal(MAX_TOKENS);
  // Freeway streams upstream, also for callers that did not ask to, unless the
  // provider's streams carry no usage.
  if (streamed) expect(request.body.stream).to.equal(true);
  else expect(request.body, 'a non-streaming call').not.to.have.property('stream');
  // Fields the provider refuses (Cohere: stream_options and user) are left out.
  if (wire.omittedFields.length > 0) expect(request.body, `${plugin.id} body`).to.not.have.any.keys(...wire.omittedFields);
  if (!wire.omittedFields.includes('user')) expect(request.body.user).to.equal(USER);
  if (streamed && !wire.omittedFields.includes('stream_options')) expect(request.body.stream_options).to.deep.equal({ include_usage: true });
}

function expectRoutingHeaders(res: Response, id: string, modelId: string): void {
  expect(res.headers.get('x-freeway-provider')).to.equal(id);
  expect(res.headers.get('x-freeway-model')).to.equal(`${id}/${modelId}`);
  expect(res.headers.get('x-freeway-attempts')).to.match(/^.+ 200 \d+ms$/);
  expect(res.headers.get('x-freeway-attempts')?.startsWith(`${id}/${modelId} 200 `)).to.equal(true);
}

interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{ index: number; delta: { role?: string; content?: string }; finish_reason: string | null }>;
  usage?: Record<string, number>;
}

describe('providers: each plugin through Freeway against its real base URL (nock)', function () {
  let freeway: RunningFreeway;
  const unmatched: string[] = [];
  const onNoMatch = (req: Request): void => {
    // Requests to Freeway itself pass through nock too; only upstream misses matter.
    if (new URL(req.url).hostname !== '127.0.0.1') unmatched.push(`${req.method} ${req.url}`);
  };

  before(async function () {
    nock = (await import('nock')).default;
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
    nock.enableNetConnect(/127\.0\.0\.1/);
    nock.emitter.on('no match', onNoMatch);
    freeway = await startFreeway();
  });

  afterEach(function () {
    unmatched.length = 0;
    nock.cleanAll();
  });

  after(async function () {
    if (!nock) return;
    nock.emitter.off('no match', onNoMatch);
    nock.cleanAll();
    nock.enableNetConnect();
    // Later suites run without nock's interception: it holds back raw client sockets and request bodies.
    nock.restore();
    await freeway?.close();
  });

  async function post(id: string, body: Record<string, unknown>): Promise<Response> {
    return fetch(`${freeway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders(id) },
      body: JSON.stringify(body),
    });
  }

  async function expectOk(res: Response): Promise<void> {
    if (res.status !== 200) {
      throw new Error(`Freeway answered ${res.status}: ${await res.text()} (nock unmatched: ${unmatched.join(', ') || 'none'})`);
    }
  }

  for (const plugin of plugins) {
    const { id, baseURL } = plugin;
    describe(id, function () {
      const modelId = liveModelId(plugin);
      const requested = `${id}/${modelId}`;
      const gemini = wireOf(plugin).format === 'gemini';

      it(`non-streaming: POSTs to ${baseURL} with the mapped body and answers a chat.completion`, async function () {
        const streamed = plugin.usageInStreams !== false;
        const { scope, seen } = streamed
          ? interceptUpstream(plugin, modelId, gemini ? geminiStream(id, 'MAX_TOKENS') : openAIStream(plugin, modelId, 'length'))
          : interceptUpstream(plugin, modelId, openAICompletion(modelId, 'length', id), 'application/json');

        const res = await post(id, { model: requested, messages: conversation, temperature: TEMPERATURE, max_tokens: MAX_TOKENS, user: USER });
        await expectOk(res);

        expect(scope.isDone(), 'nock scope done').to.equal(true);
        expectUpstreamRequest(plugin, modelId, seen, streamed);
        expect(res.headers.get('content-type')).to.match(/^application\/json/);
        expectRoutingHeaders(res, id, modelId);
        const body = (await res.json()) as Record<string, any>;
        expect(body.id).to.be.a('string').and.match(/^chatcmpl-/);
        expect(body.object).to.equal('chat.completion');
        expect(body.model).to.equal(requested);
        expect(body.created).to.be.a('number');
        expect(body.choices).to.have.length(1);
        expect(body.choices[0].index).to.equal(0);
        expect(body.choices[0].message).to.deep.equal({ role: 'assistant', content: `Hello from ${id}` });
        expect(body.choices[0].finish_reason).to.equal('length');
        expect(body.usage).to.deep.equal(expectedUsage);
      });

      it(`streaming: relays the upstream stream as chat.completion.chunk events and [DONE]`, async function () {
        const reply = gemini ? geminiStream(id, 'STOP') : openAIStream(plugin, modelId, 'stop');
        const { scope, seen } = interceptUpstream(plugin, modelId, reply);

        const res = await post(id, {
          model: requested,
          messages: conversation,
          temperature: TEMPERATURE,
          max_tokens: MAX_TOKENS,
          user: USER,
          stream: true,
          stream_options: { include_usage: true },
        });
        await expectOk(res);

        expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
        expectRoutingHeaders(res, id, modelId);
        const text = await res.text();
        expect(scope.isDone(), 'nock scope done').to.equal(true);
        expectUpstreamRequest(plugin, modelId, seen);

        const events = parseSse(text);
        for (const event of events) expect(event.fields, event.block).to.deep.equal(['data']);
        expect(events.at(-1)?.data).to.equal('[DONE]');
        expect(text.endsWith('data: [DONE]\n\n')).to.equal(true);
        const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as Chunk);
        expect(chunks.length).to.be.greaterThan(3);

        const first = chunks[0] as Chunk;
        expect(first.id).to.match(/^chatcmpl-/);
        for (const chunk of chunks) {
          expect(chunk.id).to.equal(first.id);
          expect(chunk.object).to.equal('chat.completion.chunk');
          expect(chunk.model).to.equal(requested);
          expect(chunk.created).to.be.a('number');
        }
        expect(first.choices[0]?.delta.role).to.equal('assistant');

        let withChoices = chunks;
        if (plugin.usageInStreams === false) {
          // The provider's stream reported no usage, so none is invented: no usage chunk.
          expect(chunks.every((chunk) => chunk.usage === undefined && chunk.choices.length === 1)).to.equal(true);
        } else {
          const usageChunk = chunks.at(-1) as Chunk;
          expect(usageChunk.choices).to.deep.equal([]);
          expect(usageChunk.usage).to.deep.equal(expectedUsage);
          withChoices = chunks.slice(0, -1);
        }
        const last = withChoices.at(-1) as Chunk;
        expect(last.choices[0]?.finish_reason).to.equal('stop');
        for (const chunk of withChoices.slice(0, -1)) expect(chunk.choices[0]?.finish_reason).to.equal(null);
        const deltas = withChoices.map((chunk) => chunk.choices[0]?.delta.content).filter((content) => content !== undefined && content !== '');
        expect(deltas).to.deep.equal(['Hello', ` from ${id}`]);
      });
    });
  }
});
