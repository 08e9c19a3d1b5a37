import { expect } from 'chai';
import { request, type IncomingMessage } from 'node:http';
import type { ServerResponse } from 'node:http';
import { createKeyHasher } from '../../server/state/key-hash.ts';
import { createMemoryHealthStore } from '../../server/routing/health-policy.ts';
import { createLatencyTracker } from '../../server/routing/latency.ts';
import { createRouter } from '../../server/routing/router.ts';
import { BeforeRequest } from '../../server/routing/upstream-errors.ts';
import { startFreeway, testCatalog, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { sseEvents } from '../support/sse.ts';
import { keyHeaders } from '../support/keys.ts';
import { geminiSSE, startUpstream, type FakeUpstream } from '../support/upstream.ts';
import { C1, G1 } from '../support/current-models.ts';

/**
 * Health is shared by everyone who sends the same key (and across instances
 * through Redis): only what the upstream does may change it, never what a
 * caller sends or how fast it reads.
 */
const healthy = { state: 'healthy', consecutiveFailures: 0 };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A JSON schema nested `depth` objects deep, as JSON text: too deep for JSON.stringify's recursion here. */
function nested(depth: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(depth)}{"type":"string"}${'}}'.repeat(depth)}`;
}

/** postChat for a body given as JSON text. */
async function postText(url: string, body: string, headers: Record<string, string>, path = '/v1/chat/completions') {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

/** An upstream stream of `count` chunks of `size` characters, written as fast as the socket takes them. */
function bulkStream(count: number, size: number) {
  return async (_req: unknown, res: ServerResponse): Promise<void> => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const piece = 'x'.repeat(size);
    for (let i = 0; i < count && !res.destroyed; i++) {
      const ok = res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`);
      if (!ok) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done).off('close', done);
            resolve();
          };
          res.on('drain', done).on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
  };
}

/** Streams a chat and pauses reading after the first bytes for `pauseMs` (Infinity: never reads again). */
function readSlowly(url: string, body: unknown, headers: Record<string, string>, pauseMs: number): Promise<{ text: string; closedEarly: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res: IncomingMessage) => {
      let text = '';
      let paused = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (paused) return;
        paused = true;
        res.pause();
        if (Number.isFinite(pauseMs)) setTimeout(() => res.resume(), pauseMs);
      });
      // 'close' comes even while paused; a response cut short is not complete.
      res.on('error', () => {});
      res.on('end', () => resolve({ text, closedEarly: false }));
      res.socket.once('close', () => setImmediate(() => resolve({ text, closedEarly: !res.complete })));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('no caller can spoil a key\'s health for others', () => {
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let google: FakeUpstream;
  let freeway: RunningFreeway;
  const keys = keyHeaders('groq', 'cerebras', 'google');

  before(async () => {
    [groq, cerebras, google] = await Promise.all([startUpstream(), startUpstream(), startUpstream()]);
  });
  beforeEach(async () => {
    for (const upstream of [groq, cerebras, google]) upstream.requests.length = 0;
    groq.handle(faults.ok('from groq'));
    cerebras.handle(faults.ok('from cerebras'));
    google.handle((_req, res) => geminiSSE(res, 'from google'));
    freeway = await startFreeway({
      env: {
        GROQ_BASE_URL: groq.url,
        CEREBRAS_BASE_URL: cerebras.url,
        GOOGLE_BASE_URL: google.url,
        STREAM_IDLE_TIMEOUT_MS: '300',
        CLIENT_STALL_TIMEOUT_MS: '1500',
      },
    });
  });
  afterEach(() => freeway.close());
  after(() => Promise.all([groq.close(), cerebras.close(), google.close()]));

  async function expectAllHealthy(): Promise<void> {
    const { providers } = await getHealth(freeway.url, keys);
    expect(providers).to.deep.equal({ groq: healthy, cerebras: healthy, google: healthy });
  }

  describe('schemas nested too deeply are the caller\'s 400, for every key untouched', () => {
    const tool = (parameters: string) => `{"type":"function","function":{"name":"deep","parameters":${parameters}}}`;
    const body = (extra: string) => `{"model":"free:auto","messages":[{"role":"user","content":"Hi"}],${extra}}`;
    const cases: Array<[string, string, string]> = [
      ['tool parameters 5,000 levels deep', `"tools":[${tool(nested(5000))}]`, 'tools.0.function.parameters'],
      ['the second tool\'s parameters 65 levels deep', `"tools":[${tool(nested(3))},${tool(nested(32))}]`, 'tools.1.function.parameters'],
      ['a response_format schema 5,000 levels deep', `"response_format":{"type":"json_schema","json_schema":{"name":"deep","schema":${nested(5000)}}}`, 'response_format.json_schema'],
    ];
    for (const [name, extra, field] of cases) {
      it(name, async () => {
        for (let i = 0; i < 3; i++) {
          const res = await postText(freeway.url, body(extra), keys);
          expect(res.status, res.text).to.equal(400);
          expect(res.json.error).to.deep.equal({
            message: `Validation failed: ${field}: is nested more than 64 levels deep`,
            type: 'invalid_request_error',
            code: 400,
          });
        }
        expect(groq.requests.length + cerebras.requests.length + google.requests.length).to.equal(0);
        await expectAllHealthy();
      });
    }

    const responsesCases: Array<[string, string, string]> = [
      ['Responses: tool parameters 5,000 levels deep', `"tools":[{"type":"function","name":"deep","parameters":${nested(5000)}}]`, 'tools.0.parameters'],
      ['Responses: a text.format schema 5,000 levels deep', `"text":{"format":{"type":"json_schema","name":"deep","schema":${nested(5000)}}}`, 'text.format.schema'],
    ];
    for (const [name, extra, field] of responsesCases) {
      it(name, async () => {
        const res = await postText(freeway.url, `{"model":"free:auto","input":"Hi",${extra}}`, keys, '/v1/responses');
        expect(res.status, res.text).to.equal(400);
        expect(res.json.error.type).to.equal('invalid_request_error');
        expect(res.json.error.message).to.equal(`Validation failed: ${field}: is nested more than 64 levels deep`);
        expect(groq.requests.length + cerebras.requests.length + google.requests.length).to.equal(0);
        await expectAllHealthy();
      });
    }

    const messagesCases: Array<[string, string, string, string]> = [
      ['Messages: tool input_schema 5,000 levels deep', '/v1/messages', `"tools":[{"name":"deep","input_schema":${nested(5000)}}]`, 'tools.0.input_schema'],
      ['Messages: an output_config schema 5,000 levels deep', '/v1/messages', `"output_config":{"format":{"type":"json_schema","schema":${nested(5000)}}}`, 'output_config.format.schema'],
      ['Messages count_tokens: tool input_schema 5,000 levels deep', '/v1/messages/count_tokens', `"tools":[{"name":"deep","input_schema":${nested(5000)}}]`, 'tools.0.input_schema'],
    ];
    for (const [name, path, extra, field] of messagesCases) {
      it(name, async () => {
        const maxTokens = path === '/v1/messages' ? '"max_tokens":64,' : '';
        const res = await postText(freeway.url, `{"model":"free:auto",${maxTokens}"messages":[{"role":"user","content":"Hi"}],${extra}}`, keys, path);
        expect(res.status, res.text).to.equal(400);
        expect(res.json.type).to.equal('error');
        expect(res.json.error.type).to.equal('invalid_request_error');
        expect(res.json.error.message).to.equal(`Validation failed: ${field}: is nested more than 64 levels deep`);
        expect(groq.requests.length + cerebras.requests.length + google.requests.length).to.equal(0);
        await expectAllHealthy();
      });
    }

    it('a schema 61 levels deep is still served', async () => {
      const res = await postText(freeway.url, body(`"tools":[${tool(nested(30))}]`), keys);
      expect(res.status, res.text).to.equal(200);
      expect(groq.requests[0]?.body?.tools).to.have.length(1);
    });
  });

  describe('an image URL for Google', () => {
    const picture = (url: string) => ({
      model: 'free:vision',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url } }] }],
    });
    const cases: Array<[string, string]> = [
      ['https://example.com/cat.png', 'image/png'],
      ['https://example.com/photos/cat.JPG?size=large', 'image/jpeg'],
      ['https://example.com/cat.webp#frag', 'image/webp'],
      ['https://example.com/render?id=42', 'image/jpeg'],
    ];
    for (const [url, mimeType] of cases) {
      it(`${url} reaches Gemini as fileData of ${mimeType}, and Google stays healthy`, async () => {
        const res = await postChat(freeway.url, picture(url), keyHeaders('google'));
        expect(res.status, res.text).to.equal(200);
        expect(res.json.choices[0].message.content).to.equal('from google');
        const contents = google.requests[0]?.body?.contents as Array<{ parts: unknown[] }>;
        expect(contents[0]?.parts).to.deep.include({ fileData: { mimeType, fileUri: new URL(url).toString() } });
        expect((await getHealth(freeway.url, keyHeaders('google'))).providers.google).to.deep.equal(healthy);
      });
    }
  });

  describe('what the AI SDK refuses before any request is sent', () => {
    // Gemini takes system instructions only at the start; the AI SDK refuses a later one before calling.
    const lateSystem = { messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Be brief' }] };

    it('goes to a candidate that can take it, and the refusing provider stays healthy', async () => {
      // google first: it is the only candidate of free:vision's order here that refuses.
      const res = await postChat(freeway.url, { model: 'google/gemini-2.5-flash', ...lateSystem }, keys);
      expect(res.status, res.text).to.equal(400);
      expect(res.json.error.type).to.equal('invalid_request_error');
      expect(res.json.error.message).to.equal(
        "google cannot take this request: 'system messages are only supported at the beginning of the conversation' functionality not supported.",
      );
      expect(google.requests).to.have.length(0);
      await expectAllHealthy();
    });

    it('an alias with only the refusing provider is a 400 naming why, three times over, health untouched', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await postChat(freeway.url, { model: 'free:auto', ...lateSystem }, keyHeaders('google'));
        expect(res.status, res.text).to.equal(400);
        expect(res.json.error.type).to.equal('invalid_request_error');
        expect(res.json.error.message).to.match(/^No model behind free:auto can take this request: google: cannot take this request: 'system messages are only supported/);
        expect(res.headers.get('x-freeway-attempts')).to.match(/^google\/gemini-[\w.-]+ unsupported \d+ms/);
      }
      expect(google.requests).to.have.length(0);
      expect((await getHealth(freeway.url, keyHeaders('google'))).providers.google).to.deep.equal(healthy);
    });

    it('an alias with another provider fails over to it', async () => {
      const res = await postChat(freeway.url, { model: 'free:auto', ...lateSystem }, keyHeaders('google', 'cerebras'));
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('x-freeway-provider')).to.equal('cerebras');
      await expectAllHealthy();
    });

    it('a bug of ours before the request (a TypeError) is thrown as it is and recorded nowhere', async () => {
      const catalog = await testCatalog();
      const health = createMemoryHealthStore();
      const hashKey = createKeyHasher('test-secret-0123456789');
      const router = createRouter({
        config: {
          routing: { maxAttempts: 5, strategy: 'priority', exploreShare: 0 },
          timeouts: { requestMs: 5_000, firstTokenMs: 1_000, streamIdleMs: 1_000, streamMaxDurationMs: 5_000 },
        },
        health,
        hashKey,
        latency: createLatencyTracker(),
        redact: (text) => text,
      });
      const entry = catalog.byId.get('free:auto');
      if (!entry) throw new Error('no free:auto');
      const keySet = new Map([['groq', ['gsk_key']], ['cerebras', ['csk-key']]]);
      const plan = await router.plan({ entry: entry, keys: keySet, needs: [] });
      const bug = new TypeError("Cannot read properties of undefined (reading 'type')");
      const attempts: Array<{ status: number | string }> = [];
      const error = await router
        .call({ plan, keys: keySet, attempt: async () => { throw new BeforeRequest(bug); }, callerSignal: new AbortController().signal, attempts: attempts as never })
        .then(() => undefined, (thrown: unknown) => thrown);
      expect(error).to.equal(bug);
      expect(attempts.map((a) => a.status)).to.deep.equal(['internal error']);
      expect(await health.get([hashKey('groq', 'gsk_key'), hashKey('cerebras', 'csk-key')])).to.deep.equal([undefined, undefined]);
      await health.close();
    });
  });

  describe('a caller that reads slowly', () => {
    it('pausing longer than STREAM_IDLE_TIMEOUT_MS is not upstream silence: the stream completes and health is untouched', async function () {
      // Three 19 MB streams through one process: on a loaded machine that alone can take most of a minute.
      this.timeout(60_000);
      groq.handle(bulkStream(600, 32 * 1024));
      const results = await Promise.all([1, 2, 3].map(() => readSlowly(freeway.url, hello('groq/llama-3.3-70b-versatile', { stream: true }), keys, 1000)));
      for (const { text, closedEarly } of results) {
        expect(closedEarly).to.equal(false);
        const events = sseEvents(text);
        expect(events.filter((e) => e !== '[DONE]' && e.error)).to.deep.equal([]);
        expect(events.at(-1)).to.equal('[DONE]');
      }
      await expectAllHealthy();
    });

    it('a caller that stops reading is cut after CLIENT_STALL_TIMEOUT_MS, logged as 499 at warn, and health is untouched', async function () {
      this.timeout(20_000);
      let upstreamClosed = false;
      const bulk = bulkStream(100_000, 32 * 1024);
      groq.handle(async (req, res) => {
        res.once('close', () => (upstreamClosed = true));
        await bulk(req, res);
      });
      // Paused far past the stall limit: a paused socket only sees the cut once it reads again.
      const { text, closedEarly } = await readSlowly(freeway.url, hello('groq/llama-3.3-70b-versatile', { stream: true }), keys, 4000);
      expect(closedEarly).to.equal(true);
      expect(text).to.not.include('[DONE]');
      for (let i = 0; i < 100 && !upstreamClosed; i++) await sleep(20);
      expect(upstreamClosed, 'the upstream call is released').to.equal(true);
      for (let i = 0; i < 100 && !freeway.logs.some((line) => line.includes('POST /v1/chat/completions')); i++) await sleep(10);
      const line = JSON.parse(freeway.logs.find((entry) => entry.includes('POST /v1/chat/completions')) as string);
      expect(line.level).to.equal(40);
      const ms = Number(/^POST \/v1\/chat\/completions 499 (\d+)ms$/.exec(line.msg)?.[1]);
      expect(ms, line.msg).to.be.within(1400, 3500);
      expect(line.reason).to.equal('the caller read nothing for CLIENT_STALL_TIMEOUT_MS (1500 ms)');
      await expectAllHealthy();
    });
  });

  it('a non-streaming caller that never reads its large answer is cut off after CLIENT_STALL_TIMEOUT_MS and logged as 499', async function () {
    this.timeout(20_000);
    groq.handle(bulkStream(400, 32 * 1024));
    const { closedEarly } = await readSlowly(freeway.url, hello('groq/llama-3.3-70b-versatile'), keys, 6000);
    expect(closedEarly).to.equal(true);
    for (let i = 0; i < 100 && !freeway.logs.some((line) => line.includes('POST /v1/chat/completions')); i++) await sleep(10);
    const line = JSON.parse(freeway.logs.find((entry) => entry.includes('POST /v1/chat/completions')) as string);
    expect(line.level).to.equal(40);
    const ms = Number(/^POST \/v1\/chat\/completions 499 (\d+)ms$/.exec(line.msg)?.[1]);
    expect(ms, line.msg).to.be.within(1400, 5000);
    expect(line.reason).to.equal('the caller read nothing for CLIENT_STALL_TIMEOUT_MS (1500 ms)');
    await expectAllHealthy();
  });

  describe('what an upstream says goes to the caller as it said it', () => {
    const errorEvent = (res: ServerResponse): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'partial ' }, finish_reason: null }] })}\n\n`);
      res.end(`data: ${JSON.stringify({ error: { message: 'The model is overloaded. Please try again later.', type: 'server_error', code: 'overloaded' } })}\n\n`);
    };

    it('an SSE error event mid-stream surfaces its message', async () => {
      groq.handle((_req, res) => errorEvent(res));
      const res = await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile', { stream: true }), keys);
      const last = sseEvents(res.text).at(-1);
      expect(last.error).to.deep.equal({
        message: 'The stream from groq failed after it started: error event: The model is overloaded. Please try again later.',
        type: 'freeway_provider_error',
        code: 502,
      });
    });

    it('an SSE error event in a collected answer surfaces its message in the 502 and X-Freeway-Attempts', async () => {
      groq.handle((_req, res) => errorEvent(res));
      const res = await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), keys);
      expect(res.status).to.equal(502);
      expect(res.json.error.message).to.equal('Provider failed: groq: error event: The model is overloaded. Please try again later.');
      expect(res.headers.get('x-freeway-attempts')).to.match(/^groq\/llama-3\.3-70b-versatile 200 then error event \d+ms$/);
    });

    it('an attempt that failed after an HTTP 200 says so: 200 then bad stream', async () => {
      groq.handle(faults.malformedJSON());
      const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('groq', 'cerebras'));
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} 200 then bad stream \\d+ms, cerebras\\/${C1} 200 \\d+ms$`));
      groq.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end();
      });
      const pinned = await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), keys);
      expect(pinned.status).to.equal(502);
      expect(pinned.json.error.message).to.match(/^Provider failed: groq: 200 then bad stream: /);
      expect(pinned.json.error.message).to.not.include('Failed to process successful response');
    });
  });
});
