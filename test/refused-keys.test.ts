/**
 * Errors that say what to do: a 502 whose every attempt met a refused key says
 * so, names the header to fix and invites no wait (no Retry-After); a passing
 * cause among them keeps its Retry-After. 4xx answers are logged with their
 * reason, an upstream's 4xx only by status and error type.
 */
import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from './support/freeway.ts';
import { faults } from './support/faults.ts';
import { hello, postChat } from './support/http.ts';
import { keyHeaders } from './support/keys.ts';
import { json, startUpstream, type FakeUpstream } from './support/upstream.ts';

function logLine(freeway: RunningFreeway, msg: RegExp): Record<string, unknown> {
  const line = freeway.logs.filter((text) => msg.test(text)).at(-1);
  if (line === undefined) throw new Error(`no log line matches ${msg}`);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('502s for refused keys, and 4xx log reasons', () => {
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let mistral: FakeUpstream;
  let freeway: RunningFreeway;
  let clock: number;
  const keys = keyHeaders('groq', 'cerebras', 'mistral');

  before(async () => {
    [groq, cerebras, mistral] = await Promise.all([startUpstream(), startUpstream(), startUpstream()]);
  });
  beforeEach(async () => {
    clock = Date.now();
    for (const upstream of [groq, cerebras, mistral]) {
      upstream.requests.length = 0;
      upstream.handle(faults.ok());
    }
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, MISTRAL_BASE_URL: mistral.url }, now: () => clock });
  });
  afterEach(() => freeway.close());
  after(() => Promise.all([groq.close(), cerebras.close(), mistral.close()]));

  it('every key refused: the reasons say to fix each header, and there is no Retry-After, now or when the keys are skipped later', async () => {
    groq.handle(faults.unauthorized(401));
    cerebras.handle(faults.unauthorized(403));
    mistral.handle(faults.unauthorized(401));
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(502);
    expect(res.json.error.type).to.equal('freeway_all_providers_failed');
    expect(res.json.error.code).to.equal(502);
    expect(res.json.error.message).to.equal(
      'All providers failed: groq: the provider refused the key (401 Invalid API key provided): fix X-Groq-Key; ' +
        'cerebras: the provider refused the key (403 Invalid API key provided): fix X-Cerebras-Key; ' +
        'mistral: the provider refused the key (401 Invalid API key provided): fix X-Mistral-Key',
    );
    expect(res.headers.get('retry-after')).to.equal(null);

    // Later requests skip the refused keys without calling them, and still invite no wait.
    clock += 5_000;
    const again = await postChat(freeway.url, hello('free:auto'), keys);
    expect(again.status).to.equal(502);
    expect(again.json.error.message).to.equal(
      'All providers failed: groq: the provider refused the key earlier (401 Invalid API key provided): fix X-Groq-Key; ' +
        'cerebras: the provider refused the key earlier (403 Invalid API key provided): fix X-Cerebras-Key; ' +
        'mistral: the provider refused the key earlier (401 Invalid API key provided): fix X-Mistral-Key',
    );
    expect(again.headers.get('retry-after')).to.equal(null);
    expect(groq.requests.length + cerebras.requests.length + mistral.requests.length).to.equal(3);
  });

  it('a rate limit among refused keys keeps its Retry-After, now and when skipped later', async () => {
    groq.handle(faults.rateLimited(40));
    cerebras.handle(faults.unauthorized(401));
    mistral.handle(faults.unauthorized(401));
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(502);
    expect(res.json.error.message).to.equal(
      'All providers failed: groq: 429 Rate limit reached for requests; ' +
        'cerebras: the provider refused the key (401 Invalid API key provided): fix X-Cerebras-Key; ' +
        'mistral: the provider refused the key (401 Invalid API key provided): fix X-Mistral-Key',
    );
    expect(res.headers.get('retry-after')).to.equal('40');

    clock += 10_000;
    const again = await postChat(freeway.url, hello('free:auto'), keys);
    expect(again.status).to.equal(502);
    expect(again.json.error.message).to.match(/^All providers failed: groq: rate limited, retry after 30s \(429 /);
    expect(again.headers.get('retry-after')).to.equal('30');
  });

  it('a server fault among refused keys is not a refused key: its reason stays as the provider said', async () => {
    groq.handle(faults.serverError(503));
    cerebras.handle(faults.unauthorized(401));
    mistral.handle(faults.unauthorized(401));
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(502);
    expect(res.json.error.message).to.match(/^All providers failed: groq: 503 Internal error, please retry; cerebras: the provider refused the key \(/);
  });

  it("Freeway's own 4xx is logged (info) with its message as the reason", async () => {
    const res = await postChat(freeway.url, { model: 'free:auto' }, keys);
    expect(res.status).to.equal(400);
    const line = logLine(freeway, /POST \/v1\/chat\/completions 400/);
    expect(line.level).to.equal(30);
    expect(line.reason).to.equal(res.json.error.message);
    const unknown = await fetch(`${freeway.url}/`);
    expect(unknown.status).to.equal(404);
    expect(logLine(freeway, /GET \/ 404/).reason).to.match(/^Unknown route: GET \/\. Freeway serves GET \/v1\/models/);
  });

  it("an upstream's 4xx is logged by its status and error type, never its words (which may quote the input)", async () => {
    const secret = 'the caller wrote SECRET-PROMPT-7f3a';
    groq.handle((_req, res) => json(res, 400, { error: { message: `Invalid message: '${secret}'`, type: 'invalid_request_error', code: 'invalid_value' } }));
    const res = await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), keys);
    expect(res.status).to.equal(400);
    expect(res.json.error.message).to.equal(`groq rejected the request: 400 Invalid message: '${secret}'`);
    const line = logLine(freeway, /POST \/v1\/chat\/completions 400/);
    expect(line.reason).to.equal('groq rejected the request: 400 invalid_request_error');
    expect(freeway.logs.join('\n')).to.not.include('SECRET-PROMPT');
  });

  it("an upstream 4xx without a JSON error type is logged by its status alone", async () => {
    groq.handle((_req, res) => {
      res.writeHead(422, { 'content-type': 'text/plain' });
      res.end('unprocessable: SECRET-PROMPT-7f3a');
    });
    const res = await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), keys);
    expect(res.status).to.equal(400);
    expect(logLine(freeway, /POST \/v1\/chat\/completions 400/).reason).to.equal('groq rejected the request: 422');
    expect(freeway.logs.join('\n')).to.not.include('SECRET-PROMPT');
  });

  it("Freeway's own 429 is logged with its message", async () => {
    const limited = await startFreeway({ env: { GROQ_BASE_URL: groq.url, RATE_LIMIT_MAX: '1' } });
    try {
      await (await fetch(`${limited.url}/v1/models`)).arrayBuffer();
      const refused = await fetch(`${limited.url}/v1/models`);
      expect(refused.status).to.equal(429);
      const body = (await refused.json()) as { error: { message: string } };
      expect(logLine(limited, /GET \/v1\/models 429/).reason).to.equal(body.error.message);
    } finally {
      await limited.close();
    }
  });
});
