/**
 * What chat completions get from the router, shown on `POST /v1/responses`:
 * failover, health, X-Freeway-* headers, the rate limit, CORS and key redaction.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import { gzipSync } from 'node:zlib';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth } from '../support/http.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { postResponses } from '../support/responses.ts';
import { responseEvents } from '../support/sse.ts';
import { openAIError, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';
import { C1, CEREBRAS_FIRST } from '../support/current-models.ts';

const hi = { model: 'free:auto', input: 'Say hello' };

describe('POST /v1/responses on the router', function () {
  let cerebras: FakeUpstream;
  let groq: FakeUpstream;
  let freeway: RunningFreeway;

  before(async function () {
    cerebras = await startUpstream();
    groq = await startUpstream();
  });

  after(async function () {
    await cerebras.close();
    await groq.close();
  });

  // A fresh Freeway for each test: provider health is per process.
  beforeEach(async function () {
    freeway = await startFreeway({ env: { CEREBRAS_BASE_URL: cerebras.url, GROQ_BASE_URL: groq.url } });
    for (const upstream of [cerebras, groq]) {
      upstream.requests.length = 0;
      upstream.handle((req, res) => openAIText(res, 'Hello there friend', req));
    }
  });

  afterEach(async function () {
    await freeway.close();
  });

  it('fails over when the first provider is rate-limited, says so in X-Freeway-Attempts and /health', async function () {
    const headers = keyHeaders('cerebras', 'groq');
    const first = await postResponses(freeway.url, hi, headers);
    const firstProvider = first.headers.get('x-freeway-provider');
    const [limited, answering] = firstProvider === 'cerebras' ? [cerebras, groq] : [groq, cerebras];
    limited.handle((_req, res) => openAIError(res, 429, 'Rate limit reached for requests', { 'retry-after': '30' }));

    const reply = await postResponses(freeway.url, hi, headers);
    expect(reply.status, reply.text).to.equal(200);
    expect(reply.json.output[0].content[0].text).to.equal('Hello there friend');
    expect(reply.json.model).to.equal('free:auto');
    const answeredBy = reply.headers.get('x-freeway-provider');
    expect(answeredBy).to.not.equal(firstProvider);
    expect(reply.headers.get('x-freeway-model')).to.match(new RegExp(`^${answeredBy}/`));
    const attempts = (reply.headers.get('x-freeway-attempts') ?? '').split(', ');
    expect(attempts).to.have.length(2);
    expect(attempts[0]).to.match(new RegExp(`^${firstProvider}/\\S+ 429 \\d+ms$`));
    expect(attempts[1]).to.match(new RegExp(`^${answeredBy}/\\S+ 200 \\d+ms$`));
    expect(limited.requests.length).to.be.greaterThan(0);
    expect(answering.requests.length).to.be.greaterThan(0);

    const health = await getHealth(freeway.url, headers);
    expect(health.providers[firstProvider as string].state).to.equal('rate_limited');
    expect(health.providers[firstProvider as string].retryAfter).to.be.within(1, 30);
    expect(health.providers[answeredBy as string].state).to.equal('healthy');

    // The rate-limited key is skipped now: one attempt, straight to the other provider.
    const next = await postResponses(freeway.url, { ...hi, stream: true }, headers);
    expect(next.headers.get('x-freeway-provider')).to.equal(answeredBy);
    expect(next.headers.get('x-freeway-attempts')?.split(', ')).to.have.length(1);
    expect(responseEvents(next.text).at(-1).type).to.equal('response.completed');
  });

  it('a streamed answer carries the X-Freeway-* headers', async function () {
    const reply = await postResponses(freeway.url, { ...hi, stream: true }, keyHeaders('cerebras'));
    expect(reply.status).to.equal(200);
    expect(reply.headers.get('content-type')).to.equal('text/event-stream');
    expect(reply.headers.get('x-freeway-provider')).to.equal('cerebras');
    expect(reply.headers.get('x-freeway-model')).to.equal(`cerebras/${CEREBRAS_FIRST}`);
    expect(reply.headers.get('x-freeway-attempts')).to.match(new RegExp(`^cerebras\\/${C1} 200 \\d+ms$`));
  });

  it('every candidate failing is a 502 freeway_all_providers_failed naming each, with the keys redacted', async function () {
    for (const upstream of [cerebras, groq]) {
      upstream.handle((req, res) => openAIError(res, 401, `Invalid API key provided: ${String(req.headers.authorization).slice(7)}`));
    }
    const reply = await postResponses(freeway.url, hi, keyHeaders('cerebras', 'groq'));
    expect(reply.status).to.equal(502);
    expect(reply.json.error.type).to.equal('freeway_all_providers_failed');
    expect(reply.json.error.code).to.equal(502);
    expect(reply.json.error.message).to.match(/^All providers failed: /);
    expect(reply.json.error.message).to.include('cerebras').and.include('groq').and.include('[REDACTED]');
    expect(reply.text).not.to.include(testKeys.cerebras);
    expect(reply.text).not.to.include(testKeys.groq);
    expect(reply.headers.get('x-freeway-attempts')).to.match(/ 401 \d+ms, .* 401 \d+ms$/);
  });

  it('an error after the first byte has the key redacted from the upstream message', async function () {
    cerebras.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const key = String(req.headers.authorization).slice(7);
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'partial' }, finish_reason: null }] })}\n\n`);
      res.end(`data: ${JSON.stringify({ error: { message: `key ${key} was revoked`, type: 'invalid_request_error' } })}\n\n`);
    });
    const reply = await postResponses(freeway.url, { ...hi, stream: true }, keyHeaders('cerebras'));
    const last = responseEvents(reply.text).at(-1);
    expect(last.type).to.equal('error');
    expect(last.message).to.match(/^The stream from cerebras failed after it started: .*key \[REDACTED\] was revoked/);
    expect(reply.text).not.to.include(testKeys.cerebras);
  });

  describe('rate limit', function () {
    let limited: RunningFreeway;

    before(async function () {
      limited = await startFreeway({ env: { CEREBRAS_BASE_URL: cerebras.url, RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' } });
    });

    after(async function () {
      await limited.close();
    });

    it('the third request in the window is a 429 rate_limit_error in OpenAI shape with Retry-After, which the SDK raises', async function () {
      for (let i = 0; i < 2; i++) expect((await postResponses(limited.url, hi, keyHeaders('cerebras'))).status).to.equal(200);
      const reply = await postResponses(limited.url, hi, keyHeaders('cerebras'));
      expect(reply.status).to.equal(429);
      expect(reply.json.error.type).to.equal('rate_limit_error');
      expect(reply.json.error.code).to.equal(429);
      expect(reply.json.error.message).to.match(/^Rate limit exceeded\. Retry after \d+ seconds\.$/);
      expect(Number(reply.headers.get('retry-after'))).to.be.within(1, 60);

      const openai = new OpenAI({ baseURL: `${limited.url}/v1`, apiKey: 'unused', defaultHeaders: keyHeaders('cerebras'), maxRetries: 0 });
      const error = await openai.responses.create({ model: 'free:auto', input: 'Hi' }).then(
        () => undefined,
        (caught: unknown) => caught as { status?: number; type?: string },
      );
      expect(error?.status).to.equal(429);
      expect(error?.type).to.equal('rate_limit_error');
    });
  });

  describe('body limits', function () {
    let small: RunningFreeway;

    before(async function () {
      small = await startFreeway({ env: { CEREBRAS_BASE_URL: cerebras.url, BODY_LIMIT: '1kb' } });
    });

    after(async function () {
      await small.close();
    });

    it('a body over BODY_LIMIT is a 413', async function () {
      const reply = await postResponses(small.url, { model: 'free:auto', input: 'x'.repeat(2000) }, keyHeaders('cerebras'));
      expect(reply.status).to.equal(413);
      expect(reply.json).to.deep.equal({ error: { message: 'Request body larger than 1kb.', type: 'invalid_request_error', code: 413 } });
    });

    it('a compressed body is a 415', async function () {
      const reply = await fetch(`${small.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', ...keyHeaders('cerebras') }, body: gzipSync(JSON.stringify(hi)) });
      expect(reply.status).to.equal(415);
      expect(await reply.json()).to.deep.equal({ error: { message: 'Request body must be uncompressed UTF-8 JSON.', type: 'invalid_request_error', code: 415 } });
    });
  });

  describe('CORS', function () {
    it('a browser preflight for POST /v1/responses with the SDK headers and key headers is allowed', async function () {
      const requested = ['content-type', 'authorization', 'x-stainless-lang', 'x-stainless-helper-method', 'x-stainless-retry-count', 'x-groq-key', 'x-cerebras-key'];
      const reply = await fetch(`${freeway.url}/v1/responses`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': requested.join(', ') },
      });
      expect(reply.status).to.equal(204);
      expect(reply.headers.get('access-control-allow-origin')).to.equal('*');
      const allowed = (reply.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      for (const header of requested) expect(allowed, header).to.include(header);
    });

    it('the answer exposes the X-Freeway-* headers to the browser', async function () {
      const reply = await fetch(`${freeway.url}/v1/responses`, {
        method: 'POST',
        headers: { Origin: 'https://app.example', 'content-type': 'application/json', ...keyHeaders('cerebras') },
        body: JSON.stringify(hi),
      });
      expect(reply.status).to.equal(200);
      expect(reply.headers.get('access-control-allow-origin')).to.equal('*');
      const exposed = (reply.headers.get('access-control-expose-headers') ?? '').toLowerCase();
      for (const header of ['x-freeway-provider', 'x-freeway-model', 'x-freeway-attempts']) expect(exposed).to.include(header);
    });
  });

  it('the request log names the route and the attempts, never a key', async function () {
    await postResponses(freeway.url, hi, keyHeaders('cerebras'));
    const line = freeway.logs.findLast((entry) => entry.includes('POST /v1/responses 200'));
    expect(line, freeway.logs.slice(-3).join('\n')).to.be.a('string');
    expect(line).to.include('cerebras');
    expect(freeway.logs.join('\n')).not.to.include(testKeys.cerebras);
  });
});
