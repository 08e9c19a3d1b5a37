/**
 * Waiting for a window, as a caller sees it: a request whose only key is resting for a short,
 * known time is held and answered once the window opens (X-Freeway-Waited), on every chat API,
 * streamed and whole; a budget that cannot cover the reset is a 429 in the API's own shape with
 * Retry-After; a Z.AI key's one concurrency slot is never asked twice at once; a caller that
 * leaves while held costs no call; shutdown and WAIT_QUEUE_MAX answer held requests at once.
 */
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import groq from '../../providers/groq/index.ts';
import groqFixtures from '../../providers/groq/fixtures.ts';
import zai from '../../providers/zai/index.ts';
import zaiFixtures from '../../providers/zai/fixtures.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { expectGoogleError, postJson, userText } from '../support/gemini.ts';
import { json, openAIText, startUpstream, type FakeUpstream, type SeenRequest, type UpstreamHandler } from '../support/upstream.ts';

/** Groq's per-minute 429, as its fixture records it, with the retry-after the test wants. */
function groqRateLimited(res: ServerResponse, seconds: number): void {
  const row = groqFixtures.errors.find((candidate) => candidate.name === 'per-minute request limit (RPM)');
  if (!row) throw new Error('providers/groq/fixtures.ts has no RPM row');
  json(res, row.status, row.body, { 'retry-after': String(seconds) });
}

/** Z.AI's 1302, as its fixture records it. */
function zaiBusy(res: ServerResponse): void {
  const row = zaiFixtures.errors.find((candidate) => candidate.name === 'concurrency limit (1302): a short wait');
  if (!row) throw new Error('providers/zai/fixtures.ts has no 1302 row');
  json(res, row.status, row.body);
}

let keyCount = 0;
/** A Groq key of its own for each request group: each has its own health. */
const groqKey = (): Record<string, string> => ({ 'X-Groq-Key': `gsk_waitingTest${String(++keyCount).padStart(6, '0')}abcdefghij` });

const authOf = (req: SeenRequest): string => String(req.headers.authorization ?? '');

/** The first call of each key meets a 429 with `retry-after: seconds`; later ones are answered. */
function restsOnce(seconds: number): UpstreamHandler {
  const seen = new Set<string>();
  return (req, res) => {
    const key = authOf(req);
    if (!seen.has(key)) {
      seen.add(key);
      groqRateLimited(res, seconds);
      return;
    }
    openAIText(res, 'Hello', req);
  };
}

const PINNED = 'groq/openai/gpt-oss-120b';

/** One chat API: its path and body for a model, streamed or whole, and how its 429 must look. */
interface ApiCase {
  readonly name: string;
  call(freeway: RunningFreeway, stream: boolean, headers: Record<string, string>): Promise<Response>;
  expect429(response: Response): Promise<string>;
}

async function openAI429(response: Response): Promise<string> {
  const body = (await response.json()) as { error: { type: string; message: string } };
  expect(response.status).to.equal(429);
  expect(body.error.type).to.equal('rate_limit_error');
  return body.error.message;
}

const apis: readonly ApiCase[] = [
  {
    name: 'chat completions',
    call: (freeway, stream, headers) => postJson(freeway, '/v1/chat/completions', { model: PINNED, stream, messages: [{ role: 'user', content: 'hi' }] }, headers),
    expect429: openAI429,
  },
  {
    name: 'Responses',
    call: (freeway, stream, headers) => postJson(freeway, '/v1/responses', { model: PINNED, stream, input: 'hi' }, headers),
    expect429: openAI429,
  },
  {
    name: 'Messages',
    call: (freeway, stream, headers) => postJson(freeway, '/v1/messages', { model: PINNED, stream, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, headers),
    async expect429(response) {
      const body = (await response.json()) as { type: string; error: { type: string; message: string } };
      expect(response.status).to.equal(429);
      expect(body.type).to.equal('error');
      expect(body.error.type).to.equal('rate_limit_error');
      return body.error.message;
    },
  },
  {
    name: 'Gemini',
    call: (freeway, stream, headers) =>
      postJson(freeway, `/v1beta/models/${PINNED}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, { contents: [userText('hi')] }, headers),
    // Google's RetryInfo says what Retry-After says.
    expect429: (response) =>
      expectGoogleError(response, 429, 'RESOURCE_EXHAUSTED', undefined, [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${response.headers.get('retry-after')}s` }]),
  },
];

const RESTING = /^Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: groq: usable again in \d+s \(429 Rate limit reached for model .*\)$/;

describe('waiting for a rate-limit window', function () {
  this.timeout(30_000);
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;

  before(async () => {
    upstream = await startUpstream();
  });
  after(() => upstream.close());
  afterEach(() => freeway?.close());

  const start = (env: Record<string, string> = {}, plugins = [groq]) =>
    startFreeway({ plugins, env: { GROQ_BASE_URL: upstream.url, ZAI_BASE_URL: upstream.url, MAX_WAIT_MS: '20000', ...env } }).then((started) => (freeway = started));

  it('a request whose only key rests for 2 s is answered after about 2 s, on every chat API, streamed and whole, and says it waited', async () => {
    upstream.handle(restsOnce(2));
    await start();
    const runs = apis.flatMap((api) =>
      [false, true].map(async (stream) => {
        const began = performance.now();
        const response = await api.call(freeway, stream, groqKey());
        const text = await response.text();
        const took = performance.now() - began;
        const label = `${api.name}${stream ? ' streamed' : ''}`;
        expect(response.status, `${label}: ${text}`).to.equal(200);
        expect(text, label).to.contain('Hello');
        const waited = Number(response.headers.get('x-freeway-waited'));
        expect(waited, label).to.be.within(1.5, 3.5);
        expect(took, label).to.be.at.least(1_500);
        expect(response.headers.get('x-freeway-attempts'), label).to.match(/^groq\/openai\/gpt-oss-120b 429 \d+ms, waited \d+\.\ds for groq, groq\/openai\/gpt-oss-120b 200 \d+ms$/);
      }),
    );
    await Promise.all(runs);
    const line = await freeway.logged(/^POST \/v1\/chat\/completions 200/);
    expect((JSON.parse(line) as { waitedMs?: number }).waitedMs).to.be.within(1_500, 3_500);
    const metrics = await (await fetch(`${freeway.url}/metrics`)).text();
    expect(metrics).to.match(/^freeway_wait_seconds_count\{provider="groq"\} 8$/m);
    expect(metrics).to.match(/^freeway_requests_held 0$/m);
  });

  it('X-Freeway-Max-Wait: 0, or a reset beyond the budget, is a 429 in the API\'s shape with Retry-After, on every chat API', async () => {
    await start({ MAX_WAIT_MS: '5000' });
    for (const api of apis) {
      for (const stream of [false, true]) {
        const label = `${api.name}${stream ? ' streamed' : ''}`;
        // No waiting asked: the 2 s window is not waited for.
        upstream.handle(restsOnce(2));
        const key = groqKey();
        const refused = await api.call(freeway, stream, { ...key, 'X-Freeway-Max-Wait': '0' });
        expect(refused.headers.get('retry-after'), label).to.match(/^[12]$/);
        expect(await api.expect429(refused), label).to.match(RESTING);
        // Beyond the budget (60 s > MAX_WAIT_MS): answered at once.
        upstream.handle(restsOnce(60));
        const began = performance.now();
        const beyond = await api.call(freeway, stream, groqKey());
        expect(performance.now() - began, label).to.be.below(1_500);
        expect(beyond.headers.get('retry-after'), label).to.match(/^(59|60)$/);
        expect(await api.expect429(beyond), label).to.match(RESTING);
      }
    }
  });

  it('X-Freeway-Max-Wait other than seconds from 0 to MAX_WAIT_MS is a 400 naming the range', async () => {
    upstream.handle(restsOnce(2));
    await start({ MAX_WAIT_MS: '5000' });
    for (const value of ['6', '-1', 'soon', '1e3', '', '2,3']) {
      const response = await apis[0]!.call(freeway, false, { ...groqKey(), 'X-Freeway-Max-Wait': value });
      const body = (await response.json()) as { error: { type: string; message: string } };
      expect(response.status, value).to.equal(400);
      expect(body.error.type).to.equal('invalid_request_error');
      expect(body.error.message).to.equal('Validation failed: X-Freeway-Max-Wait: must be a number of seconds from 0 to 5 (MAX_WAIT_MS)');
    }
    const fine = await apis[0]!.call(freeway, false, { ...groqKey(), 'X-Freeway-Max-Wait': '4.5' });
    expect(fine.status).to.equal(200);
    expect(Number(fine.headers.get('x-freeway-waited'))).to.be.within(1.5, 3.5);
  });

  it('a provider that did fail keeps its 502: nothing to wait for', async () => {
    const key = groqKey();
    upstream.handle((req, res) => json(res, 500, { error: { message: 'Internal error, please retry' } }));
    await start({ MAX_WAIT_MS: '0' });
    const response = await apis[0]!.call(freeway, false, key);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(response.status).to.equal(502);
    expect(body.error.type).to.equal('freeway_provider_error');
    expect(body.error.message).to.match(/^Provider failed: groq: /);
  });

  it('five parallel requests on one Z.AI key are all answered, one at a time: the upstream never sees two at once and never answers 1302', async () => {
    let inFlight = 0;
    let most = 0;
    let refused = 0;
    upstream.handle(async (req, res) => {
      if (inFlight > 0) {
        refused += 1;
        zaiBusy(res);
        return;
      }
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 150));
      inFlight -= 1;
      openAIText(res, 'Hello', req);
    });
    await start({}, [zai]);
    const key = { 'X-Zai-Key': zaiFixtures.sampleKey };
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        postJson(freeway, '/v1/chat/completions', { model: 'zai/glm-4.7-flash', stream: i % 2 === 0, messages: [{ role: 'user', content: `hi ${i}` }] }, key).then(async (response) => ({ status: response.status, text: await response.text(), waited: response.headers.get('x-freeway-waited') })),
      ),
    );
    for (const answer of answers) expect(answer.status, answer.text).to.equal(200);
    expect(most).to.equal(1);
    expect(refused).to.equal(0);
    expect(answers.filter((answer) => answer.waited !== null)).to.have.length(4);
  });

  it('a caller that goes away while held leaves the queue at once, and no upstream call is made for it', async () => {
    upstream.handle(restsOnce(2));
    await start();
    const key = groqKey();
    const first = apis[0]!.call(freeway, false, key);
    // Held: the gauge says so.
    await until(async () => /^freeway_requests_held 1$/m.test(await (await fetch(`${freeway.url}/metrics`)).text()));
    const leaving = new AbortController();
    const second = postJson(freeway, '/v1/chat/completions', { model: PINNED, messages: [{ role: 'user', content: 'gone' }] }, key);
    void second.catch(() => {});
    const gone = fetch(`${freeway.url}/v1/chat/completions`, { method: 'POST', signal: leaving.signal, headers: { 'content-type': 'application/json', ...key }, body: JSON.stringify({ model: PINNED, messages: [{ role: 'user', content: 'leaving' }] }) });
    gone.catch(() => {});
    await until(async () => /^freeway_requests_held 3$/m.test(await (await fetch(`${freeway.url}/metrics`)).text()));
    leaving.abort();
    await until(async () => /^freeway_requests_held 2$/m.test(await (await fetch(`${freeway.url}/metrics`)).text()));
    expect((await first).status).to.equal(200);
    expect((await second).status).to.equal(200);
    const sent = upstream.requests.filter((req) => authOf(req) === `Bearer ${key['X-Groq-Key']}`).map((req) => JSON.stringify(req.body));
    expect(sent.filter((body) => body.includes('leaving'))).to.have.length(0);
  });

  it('shutdown answers held requests at once with its 503', async () => {
    upstream.handle(restsOnce(10));
    await start();
    const held = apis[0]!.call(freeway, false, groqKey());
    await until(async () => /^freeway_requests_held 1$/m.test(await (await fetch(`${freeway.url}/metrics`)).text()));
    freeway.stopWaiting();
    const response = await held;
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(response.status).to.equal(503);
    expect(body.error.message).to.equal('Freeway is shutting down. Send the request again.');
  });

  it('past WAIT_QUEUE_MAX a request is answered at once, as if waiting were off', async () => {
    upstream.handle(restsOnce(3));
    await start({ WAIT_QUEUE_MAX: '1' });
    const key = groqKey();
    const held = apis[0]!.call(freeway, false, key);
    await until(async () => /^freeway_requests_held 1$/m.test(await (await fetch(`${freeway.url}/metrics`)).text()));
    const began = performance.now();
    const refused = await apis[0]!.call(freeway, false, key);
    expect(performance.now() - began).to.be.below(1_500);
    expect(refused.headers.get('retry-after')).to.match(/^[1-3]$/);
    expect(await openAI429(refused)).to.match(/^Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: groq: usable again in [1-3]s \(requests held for the key before this one go first\)$/);
    expect((await held).status).to.equal(200);
  });
});

/** Resolves once `check` holds, polling; fails the test after 10 s. */
async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
