import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { faults } from '../support/faults.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { C1, G1, G2, GROQ_FIRST, GROQ_NEXT } from '../support/current-models.ts';
import { json, openAIError, startUpstream, type FakeUpstream, type SeenRequest, type UpstreamHandler } from '../support/upstream.ts';

const first = testKeys.groq as string;
const second = 'gsk_SecondKeyGroq0123456789abcdefABCDEF';
const third = 'gsk_ThirdKeyGroq0123456789abcdefABCDEFG';
const pool = (...keys: string[]): Record<string, string> => ({ 'X-Groq-Key': keys.join(',') });

/** Which key (1-based, in `keys`) each upstream call carried. */
const keysSeen = (upstream: FakeUpstream, keys: readonly string[]): number[] =>
  upstream.requests.map((req) => keys.indexOf(String(req.headers.authorization).replace(/^Bearer /, '')) + 1);

/** Answers by the key that came with the call. */
function byKey(handlers: Record<string, UpstreamHandler>, otherwise: UpstreamHandler = faults.ok('from groq')): UpstreamHandler {
  return (req, res) => {
    const key = String(req.headers.authorization).replace(/^Bearer /, '');
    return (handlers[key] ?? otherwise)(req, res);
  };
}

/** Groq's 429 when the daily token budget is spent, as its API words it, with its retry-after header. */
const dailyTokensSpent = (retryAfterSeconds: number): UpstreamHandler => (_req: SeenRequest, res: ServerResponse) =>
  json(
    res,
    429,
    {
      error: {
        message:
          'Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01hxyz` service tier `on_demand` on tokens per day (TPD): Limit 100000, Used 99654, Requested 1299. Please try again in 13m18.864s. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing',
        type: 'tokens',
        code: 'rate_limit_exceeded',
      },
    },
    { 'retry-after': String(retryAfterSeconds) },
  );

describe('key pools: several keys in one header', () => {
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let freeway: RunningFreeway;
  let clock: number;

  before(async () => {
    [groq, cerebras] = await Promise.all([startUpstream(), startUpstream()]);
  });
  beforeEach(async () => {
    clock = Date.now();
    groq.requests.length = 0;
    cerebras.requests.length = 0;
    groq.handle(faults.ok('from groq'));
    cerebras.handle(faults.ok('from cerebras'));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url }, now: () => clock });
  });
  afterEach(() => freeway.close());
  after(() => Promise.all([groq.close(), cerebras.close()]));

  describe('the header', () => {
    async function refused(headers: Record<string, string>, message: string, path = '/v1/chat/completions'): Promise<void> {
      const res =
        path === '/health'
          ? await fetch(`${freeway.url}/health`, { headers })
          : await fetch(`${freeway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(hello('free:auto')) });
      const text = await res.text();
      expect(res.status, text).to.equal(400);
      expect(JSON.parse(text)).to.deep.equal({ error: { message, type: 'invalid_request_error', code: 400 } });
      for (const value of Object.values(headers).flatMap((header) => header.split(','))) {
        for (const part of value.trim().split(':')) if (part.length >= 4) expect(text).not.to.include(part);
      }
      expect(groq.requests).to.have.length(0);
    }

    const many = (count: number): string[] => Array.from({ length: count }, (_, i) => `gsk_PoolKey${String(i).padStart(2, '0')}abcdefghijklmnop`);

    it('17 keys is a 400 naming the header and the position; 16 are fine', async () => {
      await refused(pool(...many(17)), 'X-Groq-Key: key 17 is one too many; at most 16 keys are allowed.');
      await refused(pool(...many(17)), 'X-Groq-Key: key 17 is one too many; at most 16 keys are allowed.', '/health');
      const res = await postChat(freeway.url, hello('free:auto'), pool(...many(16)));
      expect(res.status).to.equal(200);
    });

    it('an empty entry is a 400 naming its position', async () => {
      await refused(pool(first, ' ', second), 'X-Groq-Key: key 2 is empty.');
      await refused({ 'X-Groq-Key': `${first},` }, 'X-Groq-Key: key 2 is empty.');
      await refused({ 'X-Groq-Key': `,${first}` }, 'X-Groq-Key: key 1 is empty.', '/health');
    });

    it('a duplicate is a 400 naming both positions', async () => {
      await refused(pool(first, second, ` ${first} `), 'X-Groq-Key: key 3 repeats key 1.');
      await refused(pool(first, second, second), 'X-Groq-Key: key 3 repeats key 2.', '/health');
    });

    it("checks each key's form, naming the position (Cloudflare's account_id:api_token)", async () => {
      const good = testKeys.cloudflare as string;
      await refused({ 'X-Cloudflare-Key': `${good},NoColonCloudflareSecretValue123` }, 'Key 2 of X-Cloudflare-Key must have the form account_id:api_token.');
    });

    it('ignores whitespace around commas, and a repeated header is a pool too', async () => {
      const res = await postChat(freeway.url, hello(`groq/${GROQ_FIRST}`), { 'X-Groq-Key': ` ${first} ,\t${second} ` });
      expect(res.status).to.equal(200);
      expect(groq.requests[0]?.headers.authorization).to.equal(`Bearer ${first}`);
      const headers = new Headers();
      headers.append('X-Groq-Key', first);
      headers.append('X-Groq-Key', second);
      const health = (await (await fetch(`${freeway.url}/health`, { headers })).json()) as { providers: Record<string, unknown[]> };
      expect(health.providers.groq).to.have.length(2);
    });
  });

  it('a 429 on the first key: the same model answers with the second key, in the same request', async () => {
    groq.handle(byKey({ [first]: faults.rateLimited(30) }));
    const res = await postChat(freeway.url, hello('free:auto'), { ...pool(first, second), ...keyHeaders('cerebras') });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.choices[0].message.content).to.equal('from groq');
    expect(res.headers.get('x-freeway-model')).to.equal(`groq/${GROQ_FIRST}`);
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} key 1 429 \\d+ms, groq\\/${G1} key 2 200 \\d+ms$`));
    expect(groq.requests.map((req) => [req.body?.model, req.headers.authorization])).to.deep.equal([
      [GROQ_FIRST, `Bearer ${first}`],
      [GROQ_FIRST, `Bearer ${second}`],
    ]);
    expect(cerebras.requests).to.have.length(0);
    const line = JSON.parse(freeway.logs.find((entry) => entry.includes('POST /v1/chat/completions 200')) as string);
    expect(line.attempts.map((a: { key: number; status: number }) => [a.key, a.status])).to.deep.equal([[1, 429], [2, 200]]);
    expect(JSON.stringify(line)).not.to.include(second.slice(4));

    // The rate-limited key sits out; the other one serves meanwhile.
    const next = await postChat(freeway.url, hello('free:auto'), pool(first, second));
    expect(next.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} key 2 200 \\d+ms$`));
  });

  it('an invalid key moves on to the next key as well; a server error moves on to another provider', async () => {
    groq.handle(byKey({ [first]: faults.unauthorized(), [second]: faults.serverError(503) }));
    const res = await postChat(freeway.url, hello('free:auto'), { ...pool(first, second, third), ...keyHeaders('cerebras') });
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-freeway-attempts')).to.match(
      new RegExp(`^groq\\/${G1} key 1 401 \\d+ms, groq\\/${G1} key 2 503 \\d+ms, cerebras\\/${C1} 200 \\d+ms$`),
    );
    expect(keysSeen(groq, [first, second, third])).to.deep.equal([1, 2]);
  });

  it('a model the provider does not serve moves on to the next model, keeping the key', async () => {
    groq.handle((req, res) => (req.body?.model === GROQ_FIRST ? faults.notFound()(req, res) : faults.ok('from 8b')(req, res)));
    const res = await postChat(freeway.url, hello('free:auto'), pool(first, second));
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-freeway-model')).to.equal(`groq/${GROQ_NEXT}`);
    // Each model has its own turn: both start with key 1.
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G1} key 1 404 \\d+ms, groq\\/${G2} key 1 200 \\d+ms$`));
  });

  it('ten requests with two healthy keys: each key serves five, taking turns', async () => {
    for (let i = 0; i < 10; i++) expect((await postChat(freeway.url, hello('free:auto'), pool(first, second))).status).to.equal(200);
    expect(keysSeen(groq, [first, second])).to.deep.equal([1, 2, 1, 2, 1, 2, 1, 2, 1, 2]);
  });

  it('a key that is being skipped is left out of the turns', async () => {
    groq.handle(byKey({ [second]: faults.rateLimited(300) }));
    await postChat(freeway.url, hello('free:auto'), pool(first, second, third));
    await postChat(freeway.url, hello('free:auto'), pool(first, second, third));
    groq.requests.length = 0;
    for (let i = 0; i < 6; i++) await postChat(freeway.url, hello('free:auto'), pool(first, second, third));
    const seen = keysSeen(groq, [first, second, third]);
    expect(seen).not.to.include(2);
    expect(seen.filter((key) => key === 1)).to.have.length(3);
  });

  it('MAX_ATTEMPTS counts every attempt, also those on the same model', async () => {
    await freeway.close();
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url, MAX_ATTEMPTS: '2' }, now: () => clock });
    groq.handle(faults.rateLimited(30));
    const res = await postChat(freeway.url, hello('free:auto'), { ...pool(first, second, third), ...keyHeaders('cerebras') });
    expect(res.status).to.equal(502);
    expect(res.json.error.message).to.equal(
      'All providers failed: groq key 1: 429 Rate limit reached for requests; groq key 2: 429 Rate limit reached for requests',
    );
    expect(groq.requests).to.have.length(2);
    expect(cerebras.requests).to.have.length(0);
  });

  it('every key resting: a 429 naming each key by position and when it is usable again, with the earliest Retry-After', async () => {
    groq.handle(byKey({ [first]: faults.rateLimited(40), [second]: faults.rateLimited(20) }));
    const failed = await postChat(freeway.url, hello('free:auto'), pool(first, second));
    expect(failed.status).to.equal(429);
    expect(failed.headers.get('retry-after')).to.equal('20');
    const skipped = await postChat(freeway.url, hello('free:auto'), pool(first, second));
    expect(skipped.status).to.equal(429);
    expect(skipped.json.error.message).to.equal(
      "Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: groq key 1: usable again in 40s (429 Rate limit reached for requests); groq key 2: usable again in 20s (429 Rate limit reached for requests)",
    );
    expect(skipped.headers.get('retry-after')).to.equal('20');
    expect(groq.requests).to.have.length(2);
  });

  it('a pinned model tries the next key after a 429, and skips keys that are sitting out', async () => {
    groq.handle(byKey({ [first]: faults.rateLimited(30) }));
    const res = await postChat(freeway.url, hello(`groq/${GROQ_NEXT}`), pool(first, second));
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq\\/${G2} key 1 429 \\d+ms, groq\\/${G2} key 2 200 \\d+ms$`));
    groq.handle(faults.rateLimited(30));
    const spent = await postChat(freeway.url, hello(`groq/${GROQ_NEXT}`), pool(first, second));
    expect(spent.status).to.equal(429);
    expect(spent.json.error.type).to.equal('rate_limit_error');
    expect(spent.json.error.message).to.equal(
      "Every key that could answer is resting for its rate-limit window, beyond this request's wait budget: groq key 1: usable again in 30s (429 Rate limit reached for requests); groq key 2: usable again in 30s (429 Rate limit reached for requests)",
    );
    const none = await postChat(freeway.url, hello(`groq/${GROQ_NEXT}`), pool(first, second));
    expect(none.status).to.equal(429);
    expect(none.headers.get('retry-after')).to.equal('30');
    expect(groq.requests).to.have.length(3);
  });

  it('every key of a pool is redacted from messages, also keys of a format no pattern knows', async () => {
    // Mistral keys have no recognisable prefix: only the request's own keys tell them apart.
    const mistral = await startUpstream((req, res) => openAIError(res, 401, `Invalid API key ${String(req.headers.authorization)}`));
    const fw = await startFreeway({ env: { MISTRAL_BASE_URL: mistral.url } });
    try {
      const keys = ['PoolKeyMistralOne0123456789abcdef', 'PoolKeyMistralTwo0123456789abcdef'];
      const res = await postChat(fw.url, hello('mistral/mistral-small-latest'), { 'X-Mistral-Key': keys.join(', ') });
      expect(res.status).to.equal(502);
      expect(res.json.error.message).to.equal(
        'Provider failed: mistral key 1: the provider refused the key (401 Invalid API key Bearer [REDACTED]): fix key 1 of X-Mistral-Key; mistral key 2: the provider refused the key (401 Invalid API key Bearer [REDACTED]): fix key 2 of X-Mistral-Key',
      );
      expect(mistral.requests).to.have.length(2);
      for (const key of keys) expect(res.text + fw.logs.join('\n')).not.to.include(key);
    } finally {
      await fw.close();
      await mistral.close();
    }
  });

  it('/health lists each key of a pool by position; a single key keeps its one entry', async () => {
    groq.handle(byKey({ [second]: faults.rateLimited(25) }));
    await postChat(freeway.url, hello(`groq/${GROQ_FIRST}`), pool(second, first));
    const health = await getHealth(freeway.url, { ...pool(first, second, third), ...keyHeaders('cerebras') });
    expect(health.providers).to.deep.equal({
      groq: [
        { key: 1, state: 'healthy', consecutiveFailures: 0 },
        { key: 2, state: 'rate_limited', consecutiveFailures: 1, retryAfter: 25 },
        { key: 3, state: 'healthy', consecutiveFailures: 0 },
      ],
      cerebras: { state: 'healthy', consecutiveFailures: 0 },
    });
    expect(JSON.stringify(health)).not.to.match(/gsk_|Bearer/);
    expect((await getHealth(freeway.url, pool(second))).providers.groq).to.deep.equal({ state: 'rate_limited', consecutiveFailures: 1, retryAfter: 25 });
  });

  it("a daily quota's 429 keeps the key out for its whole wait, well past 60 s", async () => {
    groq.handle(byKey({ [first]: dailyTokensSpent(799) }));
    const res = await postChat(freeway.url, hello(`groq/${GROQ_FIRST}`), pool(first, second));
    expect(res.status).to.equal(200);
    expect(keysSeen(groq, [first, second])).to.deep.equal([1, 2]);
    const start = clock;
    for (const at of [61_000, 600_000, 798_000]) {
      clock = start + at;
      const health = await getHealth(freeway.url, pool(first, second));
      expect(health.providers.groq[0].state, `at +${at / 1000}s`).to.equal('rate_limited');
      const during = await postChat(freeway.url, hello('free:auto'), pool(first, second));
      expect(during.headers.get('x-freeway-attempts'), `at +${at / 1000}s`).to.match(/key 2 200/);
    }
    expect(keysSeen(groq, [first, second])).to.deep.equal([1, 2, 2, 2, 2]);
    clock = start + 800_000;
    const health = await getHealth(freeway.url, pool(first, second));
    expect(health.providers.groq[0]).to.include({ state: 'healthy' });
    groq.handle(faults.ok('from groq'));
    for (let i = 0; i < 2; i++) await postChat(freeway.url, hello('free:auto'), pool(first, second));
    expect(keysSeen(groq, [first, second]).slice(5)).to.have.members([1, 2]);
  });
});

/** Groq's documented rate-limit headers on a successful answer (`-requests` per day, `-tokens` per minute). */
const groqQuota = (remainingRequests: number, remainingTokens: number): Record<string, string> => ({
  'x-ratelimit-limit-requests': '14400',
  'x-ratelimit-limit-tokens': '18000',
  'x-ratelimit-remaining-requests': String(remainingRequests),
  'x-ratelimit-remaining-tokens': String(remainingTokens),
  'x-ratelimit-reset-requests': '2m59.56s',
  'x-ratelimit-reset-tokens': '7.66s',
});

/** A successful answer carrying `headers`. */
const okWith = (headers: Record<string, string>, text = 'from groq'): UpstreamHandler => (req, res) => {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  return faults.ok(text)(req, res);
};

describe('quotas known before the 429', () => {
  let groq: FakeUpstream;
  let cerebras: FakeUpstream;
  let freeway: RunningFreeway;
  let clock: number;

  before(async () => {
    [groq, cerebras] = await Promise.all([startUpstream(), startUpstream()]);
  });
  beforeEach(async () => {
    clock = Date.now();
    groq.requests.length = 0;
    cerebras.requests.length = 0;
    cerebras.handle(faults.ok('from cerebras'));
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, CEREBRAS_BASE_URL: cerebras.url }, now: () => clock });
  });
  afterEach(() => freeway.close());
  after(() => Promise.all([groq.close(), cerebras.close()]));

  const iso = (ms: number): string => new Date(ms).toISOString();

  it('a key whose answer says no requests are left is not called again until its reset', async () => {
    const start = clock;
    groq.handle(okWith(groqQuota(0, 5911)));
    const keys = keyHeaders('groq', 'cerebras');
    const first = await postChat(freeway.url, hello('free:auto'), keys);
    expect(first.json.choices[0].message.content).to.equal('from groq');
    expect((await getHealth(freeway.url, keys)).providers.groq).to.deep.equal({
      state: 'rate_limited',
      consecutiveFailures: 0,
      retryAfter: 180,
      quota: { remainingRequests: 0, requestsResetAt: iso(start + 179_560), remainingTokens: 5911, tokensResetAt: iso(start + 7_660) },
    });
    for (const at of [1_000, 60_000, 179_000]) {
      clock = start + at;
      const during = await postChat(freeway.url, hello('free:auto'), keys);
      expect(during.headers.get('x-freeway-attempts'), `at +${at / 1000}s`).to.match(new RegExp(`^cerebras\\/${C1} 200 \\d+ms$`));
    }
    expect(groq.requests, 'no request spent on a 429').to.have.length(1);
    clock = start + 179_560;
    groq.handle(okWith(groqQuota(14_399, 17_990)));
    const after = await postChat(freeway.url, hello('free:auto'), keys);
    expect(after.headers.get('x-freeway-provider')).to.equal('groq');
    expect((await getHealth(freeway.url, keys)).providers.groq).to.deep.equal({
      state: 'healthy',
      consecutiveFailures: 0,
      quota: { remainingRequests: 14_399, requestsResetAt: iso(clock + 179_560), remainingTokens: 17_990, tokensResetAt: iso(clock + 7_660) },
    });
  });

  it('no tokens left sits the key out until the token budget resets', async () => {
    const start = clock;
    groq.handle(okWith(groqQuota(14_000, 0)));
    const keys = keyHeaders('groq', 'cerebras');
    await postChat(freeway.url, hello('free:auto'), keys);
    clock = start + 7_000;
    expect((await postChat(freeway.url, hello('free:auto'), keys)).headers.get('x-freeway-provider')).to.equal('cerebras');
    clock = start + 7_660;
    expect((await postChat(freeway.url, hello('free:auto'), keys)).headers.get('x-freeway-provider')).to.equal('groq');
    expect(groq.requests).to.have.length(2);
  });

  it('in a pool, the spent key sits out and the others take its turns; /health shows each key\'s figures', async () => {
    const start = clock;
    groq.handle(byKey({ [first]: okWith(groqQuota(0, 5911), 'last one'), [second]: okWith(groqQuota(14_370, 17_997)) }));
    for (let i = 0; i < 5; i++) expect((await postChat(freeway.url, hello('free:auto'), pool(first, second))).status).to.equal(200);
    expect(keysSeen(groq, [first, second])).to.deep.equal([1, 2, 2, 2, 2]);
    expect(cerebras.requests).to.have.length(0);
    const health = await getHealth(freeway.url, pool(first, second));
    expect(health.providers.groq).to.deep.equal([
      {
        key: 1,
        state: 'rate_limited',
        consecutiveFailures: 0,
        retryAfter: 180,
        quota: { remainingRequests: 0, requestsResetAt: iso(start + 179_560), remainingTokens: 5911, tokensResetAt: iso(start + 7_660) },
      },
      {
        key: 2,
        state: 'healthy',
        consecutiveFailures: 0,
        quota: { remainingRequests: 14_370, requestsResetAt: iso(start + 179_560), remainingTokens: 17_997, tokensResetAt: iso(start + 7_660) },
      },
    ]);
    // Figures whose reset has passed are no longer shown.
    clock = start + 10_000;
    expect((await getHealth(freeway.url, pool(first, second))).providers.groq[1].quota).to.deep.equal({
      remainingRequests: 14_370,
      requestsResetAt: iso(start + 179_560),
    });
  });
});
