/**
 * OpenTelemetry traces as a collector receives them: Freeway started with the standard OTEL_*
 * environment sends its spans to an OTLP/HTTP receiver on 127.0.0.1, and the spans are read
 * back as Jaeger or Tempo would read them.
 */
import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp.ts';
import { geminiSSE, json, openAIError, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';
import { wav } from '../support/audio.ts';
import { providerPlugins } from '../support/plugins.ts';
import { loadConfig } from '../../server/config/index.ts';
import { KEY_FRAGMENT_LENGTH } from '../../server/core/redact.ts';
import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** The four chat APIs, each as a client sends a short question, whole or streamed. */
const chatApis = [
  { name: 'chat completions', operation: 'chat', route: '/v1/chat/completions', path: () => '/v1/chat/completions', body: (stream: boolean) => ({ model: 'free:auto', messages: [{ role: 'user', content: 'Say hello' }], stream }) },
  { name: 'Responses', operation: 'chat', route: '/v1/responses', path: () => '/v1/responses', body: (stream: boolean) => ({ model: 'free:auto', input: 'Say hello', stream }) },
  { name: 'Messages', operation: 'chat', route: '/v1/messages', path: () => '/v1/messages', body: (stream: boolean) => ({ model: 'free:auto', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }], stream }) },
  {
    name: 'Gemini',
    operation: 'generate_content',
    route: '/v1beta/models/*name',
    path: (stream: boolean) => `/v1beta/models/free:auto:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    body: () => ({ contents: [{ role: 'user', parts: [{ text: 'Say hello' }] }] }),
  },
] as const;

async function post(freeway: RunningFreeway, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The request's span and its attempts' spans, once the receiver has the request's span and `attempts` children. */
async function spansOf(receiver: OtlpReceiver, traceId: string, attempts: number): Promise<{ request: ReceivedSpan; children: ReceivedSpan[] }> {
  const find = (spans: readonly ReceivedSpan[]) => {
    const request = spans.find((span) => span.traceId === traceId && span.kind === SERVER);
    const children = request ? spans.filter((span) => span.parentSpanId === request.spanId) : [];
    return { request, children };
  };
  await receiver.waitFor((spans) => {
    const { request, children } = find(spans);
    return request !== undefined && children.length >= attempts;
  });
  const { request, children } = find(receiver.spans);
  return { request: request as ReceivedSpan, children };
}

/** Every run of KEY_FRAGMENT_LENGTH characters of `key`, in any case, found in `text`. */
function keyFragmentsIn(text: string, key: string): string[] {
  const lower = text.toLowerCase();
  const found: string[] = [];
  for (let i = 0; i + KEY_FRAGMENT_LENGTH <= key.length; i++) {
    const fragment = key.slice(i, i + KEY_FRAGMENT_LENGTH).toLowerCase();
    if (lower.includes(fragment)) found.push(fragment);
  }
  return found;
}

/** Freeway's environment with traces on, sent as OTLP/JSON to `receiver` every 20 ms, and Cerebras and Groq played by local upstreams. */
const tracedEnv = (receiver: OtlpReceiver, cerebras: FakeUpstream, groq: FakeUpstream): Record<string, string> => ({
  CEREBRAS_BASE_URL: cerebras.url,
  GROQ_BASE_URL: groq.url,
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '20',
});

/** An OpenAI-compatible answer, or Gemini's for Google's paths. */
function answer(req: SeenRequest, res: ServerResponse): void {
  if (req.path.includes('generateContent')) geminiSSE(res, 'Hello there friend');
  else openAIText(res, 'Hello there friend', req);
}

describe('OpenTelemetry traces', function () {
  let cerebras: FakeUpstream;
  let groq: FakeUpstream;
  let receiver: OtlpReceiver;
  let freeway: RunningFreeway | undefined;
  const headers = keyHeaders('cerebras', 'groq');

  const start = async (env: Record<string, string> = {}): Promise<RunningFreeway> => {
    freeway = await startFreeway({ env: { ...tracedEnv(receiver, cerebras, groq), ...env } });
    return freeway;
  };

  before(async function () {
    cerebras = await startUpstream();
    groq = await startUpstream();
  });

  after(async function () {
    await cerebras.close();
    await groq.close();
  });

  beforeEach(async function () {
    receiver = await startOtlpReceiver();
    for (const upstream of [cerebras, groq]) upstream.handle(answer);
  });

  afterEach(async function () {
    await freeway?.close();
    freeway = undefined;
    await receiver.close();
  });

  for (const api of chatApis) {
    for (const stream of [false, true]) {
      it(`${api.name}, ${stream ? 'streamed' : 'whole'}: one request span, the attempt under it, named and attributed by the GenAI conventions`, async function () {
        const running = await start();
        const reply = await post(running, api.path(stream), api.body(stream), headers);
        expect(reply.status, reply.text).to.equal(200);
        const traceId = reply.headers.get('x-freeway-trace-id') ?? '';
        expect(traceId).to.match(/^[0-9a-f]{32}$/);
        const { request, children } = await spansOf(receiver, traceId, 1);

        expect(request.parentSpanId).to.equal('');
        expect(request.name).to.equal(`POST ${api.route}`);
        expect(request.resource['service.name']).to.equal('freeway');
        const answeredBy = reply.headers.get('x-freeway-provider') as string;
        const model = reply.headers.get('x-freeway-model') as string;
        expect(request.attributes).to.include({
          'http.request.method': 'POST',
          'http.route': api.route,
          'http.response.status_code': 200,
          'gen_ai.operation.name': api.operation,
          'gen_ai.request.model': 'free:auto',
          'gen_ai.response.model': model,
          'freeway.provider': answeredBy,
          'freeway.attempt.count': 1,
          'freeway.attempts': reply.headers.get('x-freeway-attempts'),
        });
        expect(request.attributes['gen_ai.response.finish_reasons']).to.deep.equal(['stop']);
        if (stream) expect(request.attributes['gen_ai.request.stream']).to.equal(true);
        else expect(request.attributes).not.to.have.property('gen_ai.request.stream');

        expect(children).to.have.length(1);
        const [attempt] = children as [ReceivedSpan];
        const upstreamModel = model.slice(answeredBy.length + 1);
        expect(attempt.kind).to.equal(CLIENT);
        expect(attempt.traceId).to.equal(traceId);
        expect(attempt.name).to.equal(`${api.operation} ${upstreamModel}`);
        expect(attempt.attributes).to.include({
          'gen_ai.operation.name': api.operation,
          'gen_ai.provider.name': answeredBy,
          'gen_ai.request.model': upstreamModel,
          'gen_ai.response.model': upstreamModel,
          'gen_ai.usage.input_tokens': 7,
          'gen_ai.usage.output_tokens': 3,
          'freeway.provider': answeredBy,
          'freeway.key.index': 1,
          'freeway.key.count': 1,
          'freeway.attempt.status': 'ok',
        });
        expect(attempt.attributes['gen_ai.response.time_to_first_chunk']).to.be.a('number').within(0, 30);
        expect(attempt.status.code).to.equal(0);
        // Without the content-capture setting, no prompt and no answer.
        for (const span of [request, attempt]) expect(Object.keys(span.attributes).filter((name) => /messages|instructions/.test(name))).to.deep.equal([]);
      });
    }
  }

  it('a failover shows both attempts under the request, the first with its failure kind', async function () {
    const running = await start();
    let calls = 0;
    const firstRateLimited = (req: SeenRequest, res: ServerResponse): void => {
      if (calls++ === 0) openAIError(res, 429, 'Rate limit reached for requests', { 'retry-after': '30' });
      else answer(req, res);
    };
    cerebras.handle(firstRateLimited);
    groq.handle(firstRateLimited);
    const reply = await post(running, '/v1/chat/completions', chatApis[0].body(true), headers);
    expect(reply.status, reply.text).to.equal(200);
    const { request, children } = await spansOf(receiver, reply.headers.get('x-freeway-trace-id') ?? '', 2);
    expect(request.attributes['freeway.attempt.count']).to.equal(2);
    expect(children).to.have.length(2);
    const [failed, answered] = [...children].sort((a, b) => (a.attributes['freeway.attempt.status'] === 'ok' ? 1 : 0) - (b.attributes['freeway.attempt.status'] === 'ok' ? 1 : 0)) as [ReceivedSpan, ReceivedSpan];
    expect(failed.attributes).to.include({ 'error.type': 'rate_limited', 'freeway.attempt.status': '429' });
    expect(failed.status).to.deep.equal({ code: ERROR, message: 'rate_limited' });
    expect(failed.attributes).not.to.have.property('gen_ai.usage.output_tokens');
    expect(answered.attributes).to.include({ 'freeway.attempt.status': 'ok', 'gen_ai.provider.name': reply.headers.get('x-freeway-provider') });
    expect(answered.status.code).to.equal(0);
    expect(failed.attributes['gen_ai.provider.name']).to.not.equal(answered.attributes['gen_ai.provider.name']);
  });

  it('a request every provider fails is an error span whose attempts name their failures', async function () {
    const running = await start();
    for (const upstream of [cerebras, groq]) upstream.handle((_req, res) => openAIError(res, 503, 'overloaded'));
    const reply = await post(running, '/v1/chat/completions', chatApis[0].body(false), headers);
    expect(reply.status).to.be.within(502, 503);
    const { request, children } = await spansOf(receiver, reply.headers.get('x-freeway-trace-id') ?? '', 2);
    expect(request.status.code).to.equal(ERROR);
    expect(request.attributes['error.type']).to.equal(String(reply.status));
    expect(request.status.message).to.match(/503/);
    expect(children.length).to.be.at.least(2);
    for (const attempt of children) expect(attempt.attributes).to.include({ 'error.type': 'server', 'freeway.attempt.status': '503' });
  });

  it("continues the caller's W3C traceparent and answers with its trace id", async function () {
    const running = await start();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const reply = await post(running, '/v1/responses', chatApis[1].body(false), { ...headers, traceparent: `00-${traceId}-${parent}-01`, Origin: 'https://app.example' });
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.headers.get('x-freeway-trace-id')).to.equal(traceId);
    // A browser (which sends Origin) may read it.
    expect(reply.headers.get('access-control-expose-headers')?.toLowerCase()).to.include('x-freeway-trace-id');
    const { request, children } = await spansOf(receiver, traceId, 1);
    expect(request.parentSpanId).to.equal(parent);
    expect(children[0]?.traceId).to.equal(traceId);
  });

  it('a request the caller does not sample (traceparent flags 00) is answered with its trace id and sends no span', async function () {
    const running = await start({ OTEL_BSP_SCHEDULE_DELAY: '60000' });
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const reply = await post(running, '/v1/chat/completions', chatApis[0].body(false), { ...headers, traceparent: `00-${traceId}-b7ad6b7169203331-00` });
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.headers.get('x-freeway-trace-id')).to.equal(traceId);
    // Closing sends whatever is pending: nothing of this trace.
    await running.close();
    freeway = undefined;
    expect(receiver.spans.filter((span) => span.traceId === traceId)).to.deep.equal([]);
  });

  it('sends spans as OTLP protobuf with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given', async function () {
    const running = await start({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_SERVICE_NAME: 'gateway-eu' });
    const reply = await post(running, '/v1/messages', chatApis[2].body(true), headers);
    expect(reply.status, reply.text).to.equal(200);
    const { request, children } = await spansOf(receiver, reply.headers.get('x-freeway-trace-id') ?? '', 1);
    expect(receiver.contentTypes.every((type) => type === 'application/x-protobuf')).to.equal(true);
    expect(request.resource['service.name']).to.equal('gateway-eu');
    expect(request.attributes).to.include({ 'http.route': '/v1/messages', 'http.response.status_code': 200, 'gen_ai.request.model': 'free:auto', 'gen_ai.request.stream': true });
    expect(children[0]?.attributes).to.include({ 'gen_ai.usage.input_tokens': 7, 'gen_ai.usage.output_tokens': 3 });
  });

  it('shutdown sends the spans still waiting for their batch', async function () {
    const running = await start({ OTEL_BSP_SCHEDULE_DELAY: '60000' });
    const reply = await post(running, '/v1/chat/completions', chatApis[0].body(true), headers);
    expect(reply.status, reply.text).to.equal(200);
    expect(receiver.spans).to.deep.equal([]);
    await running.close();
    freeway = undefined;
    const traceId = reply.headers.get('x-freeway-trace-id');
    expect(receiver.spans.filter((span) => span.traceId === traceId)).to.have.length(2);
  });

  it('a long prompt and answer are cut to OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT and stay valid JSON', async function () {
    const running = await start({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '300' });
    const long = 'Quote "this"\nand that, '.repeat(400);
    for (const upstream of [cerebras, groq]) upstream.handle((req, res) => openAIText(res, long, req));
    const body = { model: 'free:auto', messages: [{ role: 'system', content: long }, { role: 'user', content: long }], stream: true };
    const reply = await post(running, '/v1/chat/completions', body, headers);
    expect(reply.status, reply.text).to.equal(200);
    const { request } = await spansOf(receiver, reply.headers.get('x-freeway-trace-id') ?? '', 1);
    for (const name of ['gen_ai.system_instructions', 'gen_ai.input.messages', 'gen_ai.output.messages']) {
      const text = String(request.attributes[name]);
      expect(text.length, name).to.be.within(100, 300);
      expect(JSON.stringify(JSON.parse(text)), name).to.include('...');
    }
    expect(JSON.parse(String(request.attributes['gen_ai.input.messages']))[0].parts[0].content).to.match(/^Quote "this"\nand that, /);
  });

  it('a collector that never answers cannot hold the shutdown past its budget', async function () {
    const silent = createServer(() => {});
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    try {
      const running = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '600000', SHUTDOWN_TIMEOUT_MS: '300' });
      const reply = await post(running, '/v1/chat/completions', chatApis[0].body(false), headers);
      expect(reply.status, reply.text).to.equal(200);
      const started = performance.now();
      await running.close();
      freeway = undefined;
      // The exporter alone would wait 10 s (OTEL_EXPORTER_OTLP_TIMEOUT) for the collector.
      expect(performance.now() - started).to.be.below(3_000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('a collector that refuses the spans is a warning in the log, not an error of any request', async function () {
    const refusing = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"message":"bad batch"}');
    });
    refusing.listen(0, '127.0.0.1');
    await once(refusing, 'listening');
    const { port } = refusing.address() as AddressInfo;
    try {
      const running = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
      const reply = await post(running, '/v1/chat/completions', chatApis[0].body(false), headers);
      expect(reply.status, reply.text).to.equal(200);
      const line = JSON.parse(await running.logged(/^OpenTelemetry: /)) as { level: number; msg: string };
      expect(line.level).to.equal(40);
      expect(line.msg).to.equal('OpenTelemetry: Bad Request');
    } finally {
      refusing.closeAllConnections();
      refusing.close();
    }
  });

  it('a request held for a rate-limit window says how long on its span, and its two attempts sit either side of the wait', async function () {
    const running = await start({ MAX_WAIT_MS: '20000' });
    let calls = 0;
    groq.handle((req, res) => {
      if (calls++ === 0) openAIError(res, 429, 'Rate limit reached for requests', { 'retry-after': '1' });
      else answer(req, res);
    });
    const reply = await post(running, '/v1/chat/completions', { ...chatApis[0].body(false), model: 'groq/openai/gpt-oss-120b' }, keyHeaders('groq'));
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.headers.get('x-freeway-attempts')).to.match(/ 429 \d+ms, waited \d+\.\ds for groq, .* 200 \d+ms$/);
    const { request, children } = await spansOf(receiver, reply.headers.get('x-freeway-trace-id') ?? '', 2);
    expect(request.attributes['freeway.waited_ms']).to.be.a('number').within(500, 5_000);
    expect(request.attributes['freeway.attempt.count']).to.equal(2);
    expect(children.map((span) => span.attributes['freeway.attempt.status']).sort()).to.deep.equal(['429', 'ok']);
  });

  it('with OTEL_TRACES_EXPORTER unset nothing is sent and no answer names a trace, even with an endpoint set', async function () {
    const running = await startFreeway({ env: { CEREBRAS_BASE_URL: cerebras.url, GROQ_BASE_URL: groq.url, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '1' } });
    freeway = running;
    for (const api of chatApis) {
      const reply = await post(running, api.path(true), api.body(true), headers);
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.headers.get('x-freeway-trace-id')).to.equal(null);
    }
    await running.close();
    freeway = undefined;
    expect(receiver.bodies).to.deep.equal([]);
  });
});

describe('OpenTelemetry traces: what a span never holds', function () {
  let cerebras: FakeUpstream;
  let groq: FakeUpstream;
  let receiver: OtlpReceiver;
  let freeway: RunningFreeway;
  const keys = [testKeys.cerebras as string, testKeys.groq as string];
  const headers = keyHeaders('cerebras', 'groq');

  beforeEach(async function () {
    receiver = await startOtlpReceiver();
    // The first provider asked echoes the caller's key in its error, as some do; the other answers with it in its text.
    let calls = 0;
    const echo = (req: SeenRequest, res: ServerResponse): void => {
      const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (calls++ === 0) openAIError(res, 401, `Invalid API key ${key}; masked ${key.slice(0, 12)}****${key.slice(-4)}`);
      else openAIText(res, `Your key is ${key} and the secret is Zq9xTr4mW8vK2pLs7NbYc3Hd`, req);
    };
    cerebras = await startUpstream(echo);
    groq = await startUpstream(echo);
    freeway = await startFreeway({ env: { ...tracedEnv(receiver, cerebras, groq), OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'span_only' } });
  });

  afterEach(async function () {
    await freeway.close();
    await receiver.close();
    await cerebras.close();
    await groq.close();
  });

  it('records prompts and answers with the content-capture setting, with no key, key fragment or key-shaped text in any span', async function () {
    const prompt = `Remember ${keys[0]} and ${(keys[1] as string).toUpperCase()} and token Hk7pQ2wX9mZ4rT8vL3nB please`;
    const body = { model: 'free:auto', messages: [{ role: 'system', content: `System knows ${keys[1]}` }, { role: 'user', content: prompt }], stream: true };
    const reply = await post(freeway, '/v1/chat/completions', body, headers);
    expect(reply.status, reply.text).to.equal(200);
    // A model name that is a key, and an unknown one: the 404 is traced too.
    const unknown = await post(freeway, '/v1/chat/completions', { ...body, model: keys[0], stream: false }, headers);
    expect(unknown.status).to.equal(404);
    const { request } = await spansOf(receiver, reply.headers.get('x-freeway-trace-id') ?? '', 2);
    await spansOf(receiver, unknown.headers.get('x-freeway-trace-id') ?? '', 0);

    const input = JSON.parse(String(request.attributes['gen_ai.input.messages']));
    expect(input).to.have.length(1);
    expect(input[0].role).to.equal('user');
    expect(input[0].parts[0].type).to.equal('text');
    expect(input[0].parts[0].content).to.match(/^Remember \[REDACTED\] and \[REDACTED\] and token \[REDACTED\] please$/);
    expect(JSON.parse(String(request.attributes['gen_ai.system_instructions']))[0].content).to.equal('System knows [REDACTED]');
    const output = JSON.parse(String(request.attributes['gen_ai.output.messages']));
    expect(output[0]).to.deep.include({ role: 'assistant', finish_reason: 'stop' });
    expect(output[0].parts[0].content).to.equal('Your key is [REDACTED] and the secret is [REDACTED]');

    const everything = receiver.bodies.join('\n');
    for (const key of keys) expect(keyFragmentsIn(everything, key), 'key fragments in the exported spans').to.deep.equal([]);
    expect(everything).not.to.include('Zq9xTr4mW8vK2pLs7NbYc3Hd');
    expect(everything).not.to.include('Hk7pQ2wX9mZ4rT8vL3nB');
  });
});

describe('OpenTelemetry traces: embeddings and transcriptions', function () {
  let upstream: FakeUpstream;
  let receiver: OtlpReceiver;
  let freeway: RunningFreeway;

  beforeEach(async function () {
    receiver = await startOtlpReceiver();
    upstream = await startUpstream((req, res) => {
      if (req.path.includes('/audio/transcriptions')) {
        json(res, 200, { task: 'transcribe', language: 'English', duration: 0.1, text: ' Hello there.', segments: [], x_groq: { id: 'req_01jx8b0000example' } });
        return;
      }
      const input = req.body?.input as string[];
      json(res, 200, { object: 'list', data: input.map((_text, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2] })), model: String(req.body?.model), usage: { prompt_tokens: 5, total_tokens: 5 } });
    });
    freeway = await startFreeway({
      env: { CLOUDFLARE_BASE_URL: upstream.url, GROQ_BASE_URL: upstream.url, OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20' },
    });
  });

  afterEach(async function () {
    await freeway.close();
    await receiver.close();
    await upstream.close();
  });

  it('an embeddings request is an `embeddings` span with its attempt under it', async function () {
    const reply = await post(freeway, '/v1/embeddings', { model: 'free:embed', input: ['hello world'] }, keyHeaders('cloudflare'));
    expect(reply.status, reply.text).to.equal(200);
    const { request, children } = await spansOf(receiver, reply.headers.get('x-freeway-trace-id') ?? '', 1);
    expect(request.name).to.equal('POST /v1/embeddings');
    expect(request.attributes).to.include({ 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'free:embed', 'gen_ai.response.model': reply.headers.get('x-freeway-model'), 'freeway.attempt.count': 1 });
    expect(children).to.have.length(1);
    expect(children[0]?.name).to.equal('embeddings @cf/baai/bge-m3');
    expect(children[0]?.attributes).to.include({ 'gen_ai.provider.name': 'cloudflare', 'gen_ai.usage.input_tokens': 5, 'freeway.attempt.status': 'ok' });
  });

  it('a transcription is a `transcription` span with its attempt under it', async function () {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(wav())], { type: 'audio/wav' }), 'speech.wav');
    form.append('model', 'free:transcribe');
    const response = await fetch(`${freeway.url}/v1/audio/transcriptions`, { method: 'POST', headers: keyHeaders('groq'), body: form });
    expect(response.status, await response.text()).to.equal(200);
    const { request, children } = await spansOf(receiver, response.headers.get('x-freeway-trace-id') ?? '', 1);
    expect(request.name).to.equal('POST /v1/audio/transcriptions');
    expect(request.attributes).to.include({ 'gen_ai.operation.name': 'transcription', 'gen_ai.request.model': 'free:transcribe', 'gen_ai.response.model': 'groq/whisper-large-v3-turbo' });
    expect(children.map((span) => span.name)).to.deep.equal(['transcription whisper-large-v3-turbo']);
    expect(children[0]?.attributes).to.include({ 'gen_ai.provider.name': 'groq', 'freeway.key.index': 1 });
  });
});

describe('OpenTelemetry settings', function () {
  const load = async (env: Record<string, string>) => loadConfig(env, await providerPlugins());

  it('off unless OTEL_TRACES_EXPORTER=otlp; on, spans go to OpenTelemetry\'s default collector unless an endpoint says otherwise', async function () {
    expect((await load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).tracing).to.deep.equal({ mode: 'off' });
    expect((await load({ OTEL_TRACES_EXPORTER: 'none' })).tracing).to.deep.equal({ mode: 'off' });
    expect((await load({ OTEL_TRACES_EXPORTER: 'otlp' })).tracing).to.deep.include({ mode: 'otlp', url: 'http://localhost:4318/v1/traces', protocol: 'http/protobuf', serviceName: 'freeway', captureContent: false });
    expect((await load({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com/base/' })).tracing).to.deep.include({ url: 'https://otel.example.com/base/v1/traces' });
    expect((await load({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'SPAN_AND_EVENT' })).tracing).to.deep.include({ captureContent: true });
    expect((await load({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'event_only' })).tracing).to.deep.include({ captureContent: false });
  });

  it('refuses to start on an exporter, protocol, endpoint or content setting it cannot honour, naming the variable', async function () {
    const refusals: Array<[Record<string, string>, string]> = [
      [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER must be one of none, otlp, got "zipkin"'],
      [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, got "grpc"'],
      [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL, got "collector:4318"'],
      [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector/v1/traces' }, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http:// or https:// URL, got "ftp://collector/v1/traces"'],
      [
        { OTEL_TRACES_EXPORTER: 'otlp', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' },
        'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT must be true, false, span_only, span_and_event, event_only or no_content, got "yes"',
      ],
    ];
    for (const [env, message] of refusals) {
      let thrown: unknown;
      try {
        await load(env);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(env)).to.be.instanceOf(Error);
      expect((thrown as Error).message).to.equal(message);
    }
  });
});
