import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { loadConfig } from '../../server/config/index.ts';
import { providerPlugins, startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { sseEvents } from '../support/sse.ts';
import { keyHeaders } from '../support/keys.ts';
import { openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';
import { C1, G1 } from '../support/current-models.ts';

const chunk = (content: string): string =>
  `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** An upstream that never finishes: a chunk of `size` characters every `gapMs`, until Freeway hangs up. */
function endlessDrip(gapMs: number, size = 8) {
  return (_req: unknown, res: ServerResponse): Promise<void> =>
    new Promise((resolve) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = 'x'.repeat(size);
      const timer = setInterval(() => {
        if (res.destroyed) {
          clearInterval(timer);
          resolve();
          return;
        }
        res.write(chunk(piece));
      }, gapMs);
      res.once('close', () => {
        clearInterval(timer);
        resolve();
      });
    });
}

describe('deadlines and sizes', () => {
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let freeway: RunningFreeway | undefined;
  const keys = keyHeaders('groq', 'cerebras');
  const healthy = { state: 'healthy', consecutiveFailures: 0 };

  before(async () => {
    [groq, cerebras] = await Promise.all([startUpstream(), startUpstream()]);
  });
  beforeEach(() => {
    groq.requests.length = 0;
    cerebras.requests.length = 0;
    cerebras.handle(faults.ok('from cerebras'));
  });
  afterEach(async () => {
    await freeway?.close();
    freeway = undefined;
  });
  after(() => Promise.all([groq.close(), cerebras.close()]));

  async function start(env: Record<string, string>): Promise<RunningFreeway> {
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, ...env } });
    return freeway;
  }

  it('REQUEST_TIMEOUT_MS bounds a non-streaming request after its first token too; the key is not blamed', async () => {
    const running = await start({ REQUEST_TIMEOUT_MS: '600', FIRST_TOKEN_TIMEOUT_MS: '300', STREAM_IDLE_TIMEOUT_MS: '300' });
    let closed = false;
    const drip = endlessDrip(20);
    groq.handle(async (req, res) => {
      res.once('close', () => (closed = true));
      await drip(req, res);
    });
    const res = await postChat(running.url, hello('free:auto'), keys);
    expect(res.status).to.equal(502);
    expect(res.json.error).to.deep.equal({
      message: 'All providers failed: groq: request timeout (REQUEST_TIMEOUT_MS, 600 ms)',
      type: 'freeway_all_providers_failed',
      code: 502,
    });
    expect(res.ms).to.be.within(550, 2000);
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} request timeout \\d+ms$`));
    // No time was left for anyone else.
    expect(cerebras.requests).to.have.length(0);
    for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closed, 'the upstream call is released').to.equal(true);
    // The upstream was answering all along: a long answer is not a fault of the key.
    expect((await getHealth(running.url, keys)).providers.groq).to.deep.equal(healthy);
  });

  it('MAX_RESPONSE_BYTES bounds a collected answer: beyond it the attempt fails as a bad response and the next one answers', async () => {
    const running = await start({ MAX_RESPONSE_BYTES: '100kb' });
    groq.handle(endlessDrip(1, 10_000));
    const res = await postChat(running.url, hello('free:auto'), keys);
    expect(res.status, res.text).to.equal(200);
    expect(res.json.choices[0].message.content).to.equal('from cerebras');
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} 200 then bad stream \\d+ms, cerebras\\/${C1} 200 \\d+ms$`));
    const health = (await getHealth(running.url, keys)).providers.groq;
    expect(health.consecutiveFailures).to.equal(1);
  });

  it('MAX_RESPONSE_BYTES on a pinned model is a 502 that says so', async () => {
    const running = await start({ MAX_RESPONSE_BYTES: '50000' });
    groq.handle(endlessDrip(1, 10_000));
    const res = await postChat(running.url, hello('groq/llama-3.3-70b-versatile'), keys);
    expect(res.status).to.equal(502);
    expect(res.json.error).to.deep.equal({
      message: 'Provider failed: groq: 200 then bad stream: the answer is larger than MAX_RESPONSE_BYTES (50000 bytes)',
      type: 'freeway_provider_error',
      code: 502,
    });
  });

  it('MAX_RESPONSE_BYTES bounds a whole JSON answer too (a provider called without streaming)', async () => {
    freeway = await startFreeway({ env: { COHERE_BASE_URL: groq.url, MAX_RESPONSE_BYTES: '100kb' } });
    groq.handle((req, res) => openAIText(res, 'y'.repeat(200_000), req));
    const res = await postChat(freeway.url, hello('cohere/command-a-03-2025'), keyHeaders('cohere'));
    expect(res.status, res.text.slice(0, 200)).to.equal(502);
    expect(groq.requests[0]?.body?.stream).to.not.equal(true);
    expect(res.json.error.message).to.equal('Provider failed: cohere: 200 then bad stream: the answer is larger than MAX_RESPONSE_BYTES (102400 bytes)');
  });

  it('an answer under MAX_RESPONSE_BYTES is served whole', async () => {
    const running = await start({ MAX_RESPONSE_BYTES: '100kb' });
    groq.handle(faults.trickle(5, 5));
    const res = await postChat(running.url, hello('groq/llama-3.3-70b-versatile'), keys);
    expect(res.json.choices[0].message.content).to.equal('t0 t1 t2 t3 t4 ');
  });

  it('STREAM_MAX_DURATION_MS ends an endless stream with an error event, never a silent cut; health untouched, warn logged', async () => {
    const running = await start({ STREAM_MAX_DURATION_MS: '700', STREAM_IDLE_TIMEOUT_MS: '300' });
    groq.handle(endlessDrip(20));
    const res = await postChat(running.url, hello('free:auto', { stream: true }), keys);
    expect(res.ms).to.be.within(650, 2500);
    const events = sseEvents(res.text);
    expect(events.length).to.be.greaterThan(5);
    expect(events.at(-1).error).to.deep.equal({
      message: 'The stream was ended: stream max duration (STREAM_MAX_DURATION_MS, 700 ms).',
      type: 'server_error',
      code: 504,
    });
    expect(events).to.not.include('[DONE]');
    expect((await getHealth(running.url, keys)).providers.groq).to.deep.equal(healthy);
    const line = JSON.parse(running.logs.find((entry) => entry.includes('POST /v1/chat/completions')) as string);
    expect(line.level).to.equal(40);
    expect(line.msg).to.match(/^POST \/v1\/chat\/completions 200 \d+ms$/);
    expect(line.reason).to.equal('The stream was ended: stream max duration (STREAM_MAX_DURATION_MS, 700 ms).');
  });

  it('a deadline over a second ends the stream at its time, not at the whole second its timer is first armed to', async () => {
    const running = await start({ STREAM_MAX_DURATION_MS: '1700', STREAM_IDLE_TIMEOUT_MS: '300' });
    groq.handle(endlessDrip(20));
    const res = await postChat(running.url, hello('free:auto', { stream: true }), keys);
    expect(res.ms).to.be.within(1695, 6000);
    expect(sseEvents(res.text).at(-1).error.message).to.equal('The stream was ended: stream max duration (STREAM_MAX_DURATION_MS, 1700 ms).');
  });

  it('a stream within STREAM_MAX_DURATION_MS is not cut', async () => {
    const running = await start({ STREAM_MAX_DURATION_MS: '2000' });
    groq.handle(faults.trickle(5, 20));
    const res = await postChat(running.url, hello('free:auto', { stream: true }), keys);
    expect(sseEvents(res.text).at(-1)).to.equal('[DONE]');
  });

  it('bad values of the new limits stop start-up with one line', async () => {
    const plugins = await providerPlugins();
    expect(() => loadConfig({ STREAM_MAX_DURATION_MS: '0' }, plugins)).to.throw('STREAM_MAX_DURATION_MS must be an integer >= 1, got "0"');
    expect(() => loadConfig({ CLIENT_STALL_TIMEOUT_MS: 'soon' }, plugins)).to.throw('CLIENT_STALL_TIMEOUT_MS must be an integer >= 1, got "soon"');
    expect(() => loadConfig({ MAX_RESPONSE_BYTES: 'lots' }, plugins)).to.throw('MAX_RESPONSE_BYTES must be a size such as 20mb, got "lots"');
    expect(() => loadConfig({ MAX_RESPONSE_BYTES: '0' }, plugins)).to.throw('MAX_RESPONSE_BYTES must be at least 1 byte, got "0"');
    const config = loadConfig({}, plugins);
    expect([config.timeouts.streamMaxDurationMs, config.timeouts.clientStallMs, config.limits.responseMaxBytes]).to.deep.equal([600_000, 60_000, 16 * 1024 * 1024]);
  });
});
