import { expect } from 'chai';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { sseEvents } from '../support/sse.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { json, startUpstream, type FakeUpstream } from '../support/upstream.ts';

function logLine(freeway: RunningFreeway, msg: RegExp): Record<string, unknown> {
  const line = freeway.logs.filter((text) => msg.test(text)).at(-1);
  if (line === undefined) throw new Error(`no log line matches ${msg}`);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('routing and failover', () => {
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let mistral: FakeUpstream;
  let freeway: RunningFreeway;
  let clock: number;

  before(async () => {
    [groq, cerebras, mistral] = await Promise.all([startUpstream(), startUpstream(), startUpstream()]);
  });
  beforeEach(async () => {
    clock = Date.now();
    for (const upstream of [groq, cerebras, mistral]) {
      upstream.requests.length = 0;
      upstream.handle(faults.ok(`from ${upstream === groq ? 'groq' : upstream === cerebras ? 'cerebras' : 'mistral'}`));
    }
    freeway = await startFreeway({
      env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, MISTRAL_BASE_URL: mistral.url },
      now: () => clock,
    });
  });
  afterEach(() => freeway.close());
  after(() => Promise.all([groq.close(), cerebras.close(), mistral.close()]));

  const keys = keyHeaders('groq', 'cerebras', 'mistral');

  /** The models an alias may pick of a provider, in the plugin's order (its curated list changes with each review). */
  const current = (providerId: string): string[] =>
    (freeway.catalog.providers.find((provider) => provider.id === providerId)?.models ?? []).filter((model) => !model.deprecated).map((model) => model.id);
  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

  it('tries providers in priority order and answers from the first healthy one', async () => {
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(200);
    expect(res.json.choices[0].message.content).to.equal('from groq');
    expect(res.headers.get('x-freeway-provider')).to.equal('groq');
    const first = `groq/${current('groq')[0]}`;
    expect(res.headers.get('x-freeway-model')).to.equal(first);
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^${escaped(first)} 200 \\d+ms$`));
    expect(cerebras.requests).to.have.length(0);
  });

  it('fails over on 429 and reports every attempt', async () => {
    groq.handle(faults.rateLimited(30));
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(200);
    expect(res.json.choices[0].message.content).to.equal('from cerebras');
    expect(res.headers.get('x-freeway-provider')).to.equal('cerebras');
    const [groqFirst, cerebrasFirst] = [current('groq')[0] as string, current('cerebras')[0] as string];
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${escaped(groqFirst)} 429 \\d+ms, cerebras\\/${escaped(cerebrasFirst)} 200 \\d+ms$`));
    const health = await getHealth(freeway.url, keys);
    expect(health.providers.groq).to.deep.equal({ state: 'rate_limited', consecutiveFailures: 1, retryAfter: 30 });
    expect(health.providers.cerebras).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    const line = freeway.logs.find((entry) => entry.includes('POST /v1/chat/completions 200'));
    expect(JSON.parse(line as string).attempts).to.deep.include({ provider: 'groq', model: groqFirst, status: 429, ms: JSON.parse(line as string).attempts[0].ms });
  });

  it('skips a rate-limited key until its Retry-After has passed', async () => {
    groq.handle(faults.rateLimited(30));
    await postChat(freeway.url, hello('free:auto'), keys);
    groq.handle(faults.ok('from groq'));
    const during = await postChat(freeway.url, hello('free:auto'), keys);
    expect(during.headers.get('x-freeway-provider')).to.equal('cerebras');
    expect(groq.requests).to.have.length(1);
    clock += 31_000;
    const after = await postChat(freeway.url, hello('free:auto'), keys);
    expect(after.headers.get('x-freeway-provider')).to.equal('groq');
    expect((await getHealth(freeway.url, keys)).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
  });

  it('streams from the provider it failed over to, invisibly', async () => {
    groq.handle(faults.serverError(503));
    const res = await postChat(freeway.url, hello('free:auto', { stream: true }), keys);
    expect(res.status).to.equal(200);
    const events = sseEvents(res.text);
    expect(events[0].choices[0].delta.role).to.equal('assistant');
    expect(events.filter((e) => e !== '[DONE]' && e.choices[0]?.delta?.content).map((e) => e.choices[0].delta.content).join('')).to.equal('from cerebras');
    expect(events.at(-1)).to.equal('[DONE]');
  });

  it('returns 502 freeway_all_providers_failed naming every provider and reason', async () => {
    groq.handle(faults.rateLimited(7));
    cerebras.handle(faults.serverError(500));
    mistral.handle(faults.unauthorized());
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(502);
    expect(res.json.error.type).to.equal('freeway_all_providers_failed');
    expect(res.json.error.code).to.equal(502);
    expect(res.json.error.message).to.equal(
      'All providers failed: groq: 429 Rate limit reached for requests; cerebras: 500 Internal error, please retry; mistral: the provider refused the key (401 Invalid API key provided): fix X-Mistral-Key',
    );
    expect(res.headers.get('retry-after')).to.equal('7');
    expect(res.headers.get('x-freeway-attempts')).to.match(/groq\/\S+ 429 \d+ms, cerebras\/\S+ 500 \d+ms, mistral\/\S+ 401 \d+ms/);
  });

  it('a pinned model makes exactly one attempt and fails with freeway_provider_error', async () => {
    cerebras.handle(faults.serverError(500));
    const pinned = current('cerebras')[0] as string;
    const res = await postChat(freeway.url, hello(`cerebras/${pinned}`), keys);
    expect(res.status).to.equal(502);
    expect(res.json.error).to.deep.equal({
      message: 'Provider failed: cerebras: 500 Internal error, please retry',
      type: 'freeway_provider_error',
      code: 502,
    });
    expect(cerebras.requests).to.have.length(1);
    expect(cerebras.requests[0]?.body?.model).to.equal(pinned);
    expect(groq.requests).to.have.length(0);
    expect(mistral.requests).to.have.length(0);
  });

  it('a pinned model goes straight to its provider even when others have keys', async () => {
    const res = await postChat(freeway.url, hello('mistral/mistral-small-latest'), keys);
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('x-freeway-model')).to.equal('mistral/mistral-small-latest');
    expect(groq.requests).to.have.length(0);
  });

  it('only providers with a key are candidates', async () => {
    const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('mistral'));
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-freeway-provider')).to.equal('mistral');
    expect(groq.requests).to.have.length(0);
    expect(cerebras.requests).to.have.length(0);
  });

  it('never sends one key to another provider', async () => {
    groq.handle(faults.serverError(500));
    await postChat(freeway.url, hello('free:auto'), keys);
    expect(groq.requests[0]?.headers.authorization).to.equal(`Bearer ${testKeys.groq}`);
    expect(cerebras.requests[0]?.headers.authorization).to.equal(`Bearer ${testKeys.cerebras}`);
  });

  it('a 400 caused by the request itself is returned, not retried on every provider', async () => {
    groq.handle(faults.badRequest("'messages.0.content' : invalid tool schema"));
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(400);
    expect(res.json.error).to.deep.equal({
      message: "groq rejected the request: 400 'messages.0.content' : invalid tool schema",
      type: 'invalid_request_error',
      code: 400,
    });
    expect(cerebras.requests).to.have.length(0);
  });

  it('a context-length 400 moves on to a model with a larger context window', async () => {
    groq.handle(faults.badRequest('Please reduce the length of the messages: maximum context length is 131072 tokens'));
    const res = await postChat(freeway.url, hello('free:fast'), keys);
    expect(res.status).to.equal(200);
    // No other groq or cerebras model has a larger window; mistral's first fast model with a larger window answers.
    const mistral = freeway.catalog.providers.find((provider) => provider.id === 'mistral');
    const larger = mistral?.models.find((model) => !model.deprecated && model.capabilities.includes('fast') && model.contextWindow > 131072);
    expect(larger, 'a fast mistral model with more than 131072 tokens').to.not.equal(undefined);
    expect(res.headers.get('x-freeway-model')).to.equal(`mistral/${larger?.id}`);
    const answered = `mistral/${larger?.id}`.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${escaped(current('groq')[0] as string)} 400 \\d+ms, ${answered} 200 \\d+ms$`));
    expect(cerebras.requests).to.have.length(0);
  });

  it('a context-length 400 with no larger model left is the caller\'s 400', async () => {
    groq.handle(faults.badRequest('maximum context length is 131072 tokens'));
    const res = await postChat(freeway.url, hello('free:fast'), keyHeaders('groq'));
    expect(res.status).to.equal(400);
    expect(res.json.error).to.deep.equal({
      message: 'The request does not fit the context window of any model behind free:fast: groq: 400 maximum context length is 131072 tokens',
      type: 'invalid_request_error',
      code: 400,
    });
    expect(groq.requests).to.have.length(1);
  });

  it('a model the provider no longer serves is skipped, other models of the same key are still tried', async () => {
    const [gone, next] = current('groq') as [string, string];
    groq.handle((req, res) => (req.body?.model === gone ? faults.notFound()(req, res) : faults.ok('from groq 8b')(req, res)));
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-freeway-model')).to.equal(`groq/${next}`);
    expect((await getHealth(freeway.url, keys)).providers.groq.state).to.equal('healthy');
  });

  it('a success resets the failures that concurrent requests recorded after its plan was made', async () => {
    // "slow" requests succeed at groq after 200 ms; "fail" requests get a 500 from groq at once.
    groq.handle((req, res) => {
      const text = JSON.stringify(req.body?.messages);
      return text.includes('fail') ? faults.serverError(500)(req, res) : faults.slow(200, 'slow groq')(req, res);
    });
    const slow = postChat(freeway.url, { model: 'free:auto', messages: [{ role: 'user', content: 'slow' }] }, keys);
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < 2; i++) await postChat(freeway.url, { model: 'free:auto', messages: [{ role: 'user', content: 'fail' }] }, keys);
    expect((await getHealth(freeway.url, keys)).providers.groq.consecutiveFailures).to.equal(2);
    expect((await slow).json.choices[0].message.content).to.equal('slow groq');
    expect((await getHealth(freeway.url, keys)).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    // So one more failure is the first of a new run, not the third that would take groq down.
    await postChat(freeway.url, { model: 'free:auto', messages: [{ role: 'user', content: 'fail' }] }, keys);
    expect((await getHealth(freeway.url, keys)).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 1 });
  });

  it('stops after MAX_ATTEMPTS candidates', async () => {
    await freeway.close();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, MISTRAL_BASE_URL: mistral.url, MAX_ATTEMPTS: '2' } });
    groq.handle(faults.serverError(500));
    cerebras.handle(faults.serverError(500));
    const res = await postChat(freeway.url, hello('free:auto'), keys);
    expect(res.status).to.equal(502);
    expect(mistral.requests).to.have.length(0);
    expect(res.json.error.message).to.equal('All providers failed: groq: 500 Internal error, please retry; cerebras: 500 Internal error, please retry');
  });

  /**
   * Errors that say what to do: a 502 whose every attempt met a refused key says
   * so, names the header to fix and invites no wait (no Retry-After); a passing
   * cause among them keeps its Retry-After. 4xx answers are logged with their
   * reason, an upstream's 4xx only by status and error type.
   */
  describe('502s for refused keys, and 4xx log reasons', () => {
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
      const unknown = await fetch(`${freeway.url}/v2/chat`);
      expect(unknown.status).to.equal(404);
      expect(logLine(freeway, /GET \/v2\/chat 404/).reason).to.match(/^Unknown route: GET \/v2\/chat\. Freeway serves GET \/v1\/models/);
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
});

describe('health scoping', () => {
  let groq: FakeUpstream;
  let freeway: RunningFreeway;
  before(async () => {
    groq = await startUpstream();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url } });
  });
  after(async () => {
    await freeway.close();
    await groq.close();
  });

  it('lists no providers when no key header is sent', async () => {
    expect(await getHealth(freeway.url)).to.deep.equal({ status: 'ok', providers: {} });
  });

  it('lists exactly the providers whose keys were sent, healthy at first', async () => {
    expect(await getHealth(freeway.url, keyHeaders('groq', 'google'))).to.deep.equal({
      status: 'ok',
      providers: {
        groq: { state: 'healthy', consecutiveFailures: 0 },
        google: { state: 'healthy', consecutiveFailures: 0 },
      },
    });
  });

  it("keeps one caller's failures away from another caller's key", async () => {
    const alice = { 'X-Groq-Key': 'gsk_AliceKey000000000000000000' };
    const bob = { 'X-Groq-Key': 'gsk_BobKey11111111111111111111' };
    groq.handle(faults.rateLimited(60));
    await postChat(freeway.url, hello('groq/llama-3.3-70b-versatile'), alice);
    expect((await getHealth(freeway.url, alice)).providers.groq.state).to.equal('rate_limited');
    expect((await getHealth(freeway.url, bob)).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    groq.handle(faults.ok('for bob'));
    const res = await postChat(freeway.url, hello('free:auto'), bob);
    expect(res.status).to.equal(200);
    expect(res.json.choices[0].message.content).to.equal('for bob');
  });
});
