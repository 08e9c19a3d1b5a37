import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { sseEvents } from '../support/sse.ts';
import { keyHeaders } from '../support/keys.ts';
import { startUpstream, type FakeUpstream, type UpstreamHandler } from '../support/upstream.ts';
import { C1, G1 } from '../support/current-models.ts';

const TIMEOUT_MS = 300;

describe('faults injected by a real upstream', () => {
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let mistral: FakeUpstream;
  let freeway: RunningFreeway;
  let clock: number;
  const keys = keyHeaders('groq', 'cerebras');

  before(async () => {
    [groq, cerebras, mistral] = await Promise.all([startUpstream(), startUpstream(), startUpstream()]);
  });
  beforeEach(async () => {
    clock = Date.now();
    for (const upstream of [groq, cerebras, mistral]) upstream.requests.length = 0;
    groq.handle(faults.ok('from groq'));
    cerebras.handle(faults.ok('from cerebras'));
    mistral.handle(faults.ok('from mistral'));
    freeway = await startFreeway({
      env: {
        GROQ_BASE_URL: groq.url,
        CEREBRAS_BASE_URL: cerebras.url,
        MISTRAL_BASE_URL: mistral.url,
        FIRST_TOKEN_TIMEOUT_MS: String(TIMEOUT_MS),
        STREAM_IDLE_TIMEOUT_MS: String(TIMEOUT_MS),
      },
      now: () => clock,
    });
  });
  afterEach(() => freeway.close());
  after(() => Promise.all([groq.close(), cerebras.close(), mistral.close()]));

  async function groqHealth(): Promise<Record<string, unknown>> {
    return (await getHealth(freeway.url, keys)).providers.groq;
  }

  describe('faults before the first token fail over invisibly', () => {
    const cases: Array<[string, UpstreamHandler, string, Record<string, unknown>]> = [
      ['429 with Retry-After', faults.rateLimited(12), '429', { state: 'rate_limited', consecutiveFailures: 1, retryAfter: 12 }],
      ['429 without Retry-After (60 s default)', faults.rateLimited(), '429', { state: 'rate_limited', consecutiveFailures: 1, retryAfter: 60 }],
      ['429 with a retry hint in the body', faults.rateLimitedWithBodyHint(7), '429', { state: 'rate_limited', consecutiveFailures: 1, retryAfter: 7 }],
      ['500', faults.serverError(500), '500', { state: 'healthy', consecutiveFailures: 1 }],
      ['503', faults.serverError(503), '503', { state: 'healthy', consecutiveFailures: 1 }],
      ['401', faults.unauthorized(401), '401', { state: 'invalid_key', consecutiveFailures: 1, retryAfter: 600 }],
      ['403', faults.unauthorized(403), '403', { state: 'invalid_key', consecutiveFailures: 1, retryAfter: 600 }],
      ['a hang before headers', faults.hangBeforeHeaders(), 'timeout', { state: 'healthy', consecutiveFailures: 1 }],
      ['headers, then silence', faults.hangAfterHeaders(), 'timeout', { state: 'healthy', consecutiveFailures: 1 }],
      ['malformed JSON in the stream', faults.malformedJSON(), '200 then bad stream', { state: 'healthy', consecutiveFailures: 1 }],
      ['a body that is not SSE', faults.malformedSSE(), '200 then bad stream', { state: 'healthy', consecutiveFailures: 1 }],
      ['JSON where a stream was asked for', faults.jsonInsteadOfStream(), '200 then bad stream', { state: 'healthy', consecutiveFailures: 1 }],
      ['an HTML error page', faults.htmlErrorPage(502), '502', { state: 'healthy', consecutiveFailures: 1 }],
      ['a 5 MB error body', faults.hugeErrorBody(5), '500', { state: 'healthy', consecutiveFailures: 1 }],
    ];
    for (const [name, fault, status, health] of cases) {
      for (const stream of [false, true]) {
        it(`${name} (${stream ? 'streaming' : 'non-streaming'})`, async () => {
          groq.handle(fault);
          const res = await postChat(freeway.url, hello('free:auto', { stream }), keys);
          expect(res.status, res.text).to.equal(200);
          const text = stream
            ? sseEvents(res.text).filter((e) => e !== '[DONE]' && e.choices[0]?.delta?.content).map((e) => e.choices[0].delta.content).join('')
            : res.json.choices[0].message.content;
          expect(text).to.equal('from cerebras');
          expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} ${status} \\d+ms, cerebras\\/${C1} 200 \\d+ms$`));
          expect(await groqHealth()).to.deep.equal(health);
        });
      }
    }
  });

  describe('every fault on a pinned model ends in a well-formed error', () => {
    const cases: Array<[string, UpstreamHandler, RegExp]> = [
      // Nothing failed: the key rests, beyond the wait budget (MAX_WAIT_MS=0 here), so a 429 naming when it is usable.
      ['429', faults.rateLimited(5), /^Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: groq: usable again in 5s \(429 Rate limit reached for requests\)$/],
      ['500', faults.serverError(500), /^Provider failed: groq: 500 Internal error, please retry$/],
      ['a hang before headers', faults.hangBeforeHeaders(), /^Provider failed: groq: timeout$/],
      ['malformed JSON', faults.malformedJSON(), /^Provider failed: groq: 200 then bad stream: /],
      ['not SSE', faults.malformedSSE(), /^Provider failed: groq: 200 then bad stream: /],
      ['an HTML error page', faults.htmlErrorPage(502), /^Provider failed: groq: 502 /],
      ['a truncated stream', faults.truncated(), /^Provider failed: groq: 200 then bad stream: the upstream stream ended before it finished$/],
      ['a 5 MB error body', faults.hugeErrorBody(5), /^Provider failed: groq: 500 x+…$/],
    ];
    for (const [name, fault, message] of cases) {
      it(name, async () => {
        groq.handle(fault);
        const res = await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), keys);
        const status = name === '429' ? 429 : 502;
        expect(res.status).to.equal(status);
        expect(res.json.error.type).to.equal(name === '429' ? 'rate_limit_error' : 'freeway_provider_error');
        expect(res.json.error.code).to.equal(status);
        expect(res.json.error.message).to.match(message);
        expect(res.json.error.message.length).to.be.below(400);
        expect(cerebras.requests).to.have.length(0);
      });
    }
  });

  describe('faults after the first token', () => {
    it('a non-streaming request fails over even mid-stream: nothing was sent yet', async () => {
      groq.handle(faults.closeMidStream());
      const res = await postChat(freeway.url, hello('free:auto'), keys);
      expect(res.status).to.equal(200);
      expect(res.json.choices[0].message.content).to.equal('from cerebras');
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
    });

    it('a truncated stream is never passed off as complete', async () => {
      groq.handle(faults.truncated());
      const res = await postChat(freeway.url, hello('free:auto'), keys);
      expect(res.status).to.equal(200);
      expect(res.json.choices[0].message.content).to.equal('from cerebras');
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
    });

    it('a stream whose upstream closes mid-way ends with one SSE error event', async () => {
      groq.handle(faults.closeMidStream());
      const res = await postChat(freeway.url, hello('free:auto', { stream: true }), keys);
      expect(res.status).to.equal(200);
      const events = sseEvents(res.text);
      expect(events[0].choices[0].delta.role).to.equal('assistant');
      expect(events[1].choices[0].delta.content).to.equal('partial ');
      const last = events.at(-1);
      expect(last).to.not.equal('[DONE]');
      expect(last.error.type).to.equal('freeway_provider_error');
      expect(last.error.code).to.equal(502);
      expect(last.error.message).to.match(/^The stream from groq failed after it started: /);
      expect(events.filter((e) => e.error)).to.have.length(1);
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
    });

    it('a stream that goes silent ends with an SSE error after STREAM_IDLE_TIMEOUT_MS', async () => {
      groq.handle(faults.hangMidStream());
      const res = await postChat(freeway.url, hello('free:auto', { stream: true }), keys);
      const events = sseEvents(res.text);
      expect(events.at(-1).error.message).to.equal('The stream from groq failed after it started: timeout');
      expect(res.ms).to.be.within(TIMEOUT_MS - 20, TIMEOUT_MS * 4);
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
    });

    it('a slow but steady stream is not cut', async () => {
      groq.handle(faults.trickle(4, TIMEOUT_MS / 2));
      const res = await postChat(freeway.url, hello('free:auto', { stream: true }), keys);
      const events = sseEvents(res.text);
      expect(events.at(-1)).to.equal('[DONE]');
      expect(events.filter((e) => e !== '[DONE]' && e.choices[0]?.delta?.content).map((e) => e.choices[0].delta.content).join('')).to.equal('t0 t1 t2 t3 ');
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    });

    it('a non-streaming answer that goes silent fails over after STREAM_IDLE_TIMEOUT_MS, not REQUEST_TIMEOUT_MS', async () => {
      groq.handle(faults.hangMidStream());
      const res = await postChat(freeway.url, hello('free:auto'), keys);
      expect(res.status).to.equal(200);
      expect(res.json.choices[0].message.content).to.equal('from cerebras');
      expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} timeout \\d+ms, cerebras\\/${C1} 200 \\d+ms$`));
      expect(res.ms).to.be.within(TIMEOUT_MS - 20, TIMEOUT_MS * 4);
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
    });

    it('a slow but steady non-streaming answer, longer than both timeouts together, is served whole', async () => {
      groq.handle(faults.trickle(6, TIMEOUT_MS / 2));
      const res = await postChat(freeway.url, hello('free:auto'), keys);
      expect(res.status).to.equal(200);
      expect(res.json.choices[0].message.content).to.equal('t0 t1 t2 t3 t4 t5 ');
      expect(res.ms).to.be.above(TIMEOUT_MS * 2);
      expect(cerebras.requests).to.have.length(0);
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    });

    it('a slow first token under the limit is waited for', async () => {
      groq.handle(faults.slow(TIMEOUT_MS / 2, 'slow groq'));
      const res = await postChat(freeway.url, hello('free:auto'), keys);
      expect(res.json.choices[0].message.content).to.equal('slow groq');
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    });
  });

  describe('health transitions', () => {
    it('healthy -> down after 3 consecutive failures, skipped for 30 s', async () => {
      groq.handle(faults.serverError(500));
      for (let i = 1; i <= 3; i++) {
        const res = await postChat(freeway.url, hello('free:auto'), keys);
        expect(res.status).to.equal(200);
      }
      expect(await groqHealth()).to.deep.equal({ state: 'down', consecutiveFailures: 3, retryAfter: 30 });
      await postChat(freeway.url, hello('free:auto'), keys);
      expect(groq.requests).to.have.length(3);
    });

    it('down -> half_open after the cooldown; a failed probe doubles it, a good one heals', async () => {
      groq.handle(faults.serverError(500));
      for (let i = 0; i < 3; i++) await postChat(freeway.url, hello('free:auto'), keys);
      clock += 30_001;
      expect(await groqHealth()).to.deep.equal({ state: 'half_open', consecutiveFailures: 3 });
      await postChat(freeway.url, hello('free:auto'), keys);
      expect(groq.requests).to.have.length(4);
      expect(await groqHealth()).to.deep.equal({ state: 'down', consecutiveFailures: 4, retryAfter: 60 });
      clock += 60_001;
      groq.handle(faults.ok('groq is back'));
      const res = await postChat(freeway.url, hello('free:auto'), keys);
      expect(res.json.choices[0].message.content).to.equal('groq is back');
      expect(await groqHealth()).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    });

    it('the cooldown doubles up to 5 minutes', async () => {
      groq.handle(faults.serverError(500));
      for (let i = 0; i < 3; i++) await postChat(freeway.url, hello('free:auto'), keys);
      const seen: unknown[] = [];
      for (const cooldown of [30, 60, 120, 240, 300]) {
        clock += cooldown * 1000 + 1;
        await postChat(freeway.url, hello('free:auto'), keys);
        seen.push((await groqHealth()).retryAfter);
      }
      expect(seen).to.deep.equal([60, 120, 240, 300, 300]);
    });

    it('half-open lets exactly one probe through at a time', async () => {
      groq.handle(faults.serverError(500));
      for (let i = 0; i < 3; i++) await postChat(freeway.url, hello('free:auto'), keys);
      clock += 30_001;
      groq.handle(faults.slow(100, 'probe answer'));
      groq.requests.length = 0;
      const results = await Promise.all([1, 2, 3].map(() => postChat(freeway.url, hello('free:auto'), keys)));
      expect(results.map((r) => r.status)).to.deep.equal([200, 200, 200]);
      expect(groq.requests).to.have.length(1);
      expect(results.filter((r) => r.headers.get('x-freeway-provider') === 'groq')).to.have.length(1);
    });

    it('invalid_key is skipped for 10 minutes, then tried again', async () => {
      groq.handle(faults.unauthorized());
      await postChat(freeway.url, hello('free:auto'), keys);
      clock += 599_000;
      await postChat(freeway.url, hello('free:auto'), keys);
      expect(groq.requests).to.have.length(1);
      clock += 2_000;
      groq.handle(faults.ok('new key works'));
      const res = await postChat(freeway.url, hello('free:auto'), keys);
      expect(res.json.choices[0].message.content).to.equal('new key works');
    });

    it('every resting key is named in the 429 with when it is usable again, and Retry-After is the shortest', async () => {
      groq.handle(faults.rateLimited(40));
      cerebras.handle(faults.rateLimited(20));
      await postChat(freeway.url, hello('free:auto'), keys);
      const res = await postChat(freeway.url, hello('free:auto'), keys);
      expect(res.status).to.equal(429);
      expect(res.json.error.type).to.equal('rate_limit_error');
      expect(res.json.error.message).to.equal(
        "Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: groq: usable again in 40s (429 Rate limit reached for requests); cerebras: usable again in 20s (429 Rate limit reached for requests)",
      );
      expect(res.headers.get('retry-after')).to.equal('20');
    });
  });

  it('REQUEST_TIMEOUT_MS bounds all attempts together', async () => {
    await freeway.close();
    freeway = await startFreeway({
      env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, FIRST_TOKEN_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '450' },
    });
    groq.handle(faults.hangBeforeHeaders());
    cerebras.handle(faults.hangBeforeHeaders());
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(502);
    expect(res.json.error.message).to.equal('All providers failed: groq: timeout; cerebras: timeout');
    expect(res.ms).to.be.within(430, 1000);
  });

  it('with 2 of 3 providers failing (429 and hang), 100 sequential requests all succeed and stop waiting for the hung one', async function () {
    this.timeout(20_000);
    const all = keyHeaders('groq', 'cerebras', 'mistral');
    groq.handle(faults.rateLimited());
    cerebras.handle(faults.hangBeforeHeaders());
    const times: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await postChat(freeway.url, hello('free:auto'), all);
      expect(res.status, `request ${i + 1}`).to.equal(200);
      expect(res.json.choices[0].message.content).to.equal('from mistral');
      times.push(res.ms);
    }
    // Three timeouts mark cerebras down; from then on nobody waits for it.
    expect(cerebras.requests).to.have.length(3);
    expect(groq.requests).to.have.length(1);
    expect(Math.min(...times.slice(0, 3))).to.be.at.least(TIMEOUT_MS - 20);
    expect(Math.max(...times.slice(3))).to.be.below(TIMEOUT_MS - 50);
    const health = (await getHealth(freeway.url, all)).providers;
    expect(health.groq.state).to.equal('rate_limited');
    expect(health.cerebras).to.deep.equal({ state: 'down', consecutiveFailures: 3, retryAfter: 30 });
    expect(health.mistral).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
  });
});
