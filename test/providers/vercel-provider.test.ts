/**
 * What is special about the Vercel AI Gateway, seen through Freeway's HTTP API with a fake gateway on
 * 127.0.0.1: its $5 monthly credit is used after every free tier; a 403 that says the free credit does
 * not reach a model is about that model, not the key; a 403 for a team without a card on file is a key
 * without credit; keys are checked at the credit balance (the model list answers without a key); a
 * zero-priced model of the live list may join an alias, a priced one never; and embeddings.
 */
import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import type { ErrorFixture, ProviderPlugin } from '../../providers/types.ts';
import { expectError } from '../support/errors.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth, hello, postChat } from '../support/http.ts';
import { keyHeaders, testKeys } from '../support/keys.ts';
import { providerFixtures, providerPlugins } from '../support/plugins.ts';
import { json, openAIError, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

const plugins = await providerPlugins();
const fixtures = await providerFixtures();
const vercel = plugins.find((plugin) => plugin.id === 'vercel') as ProviderPlugin;
const key = testKeys.vercel as string;
const curated = vercel.models.filter((model) => !model.deprecated).map((model) => model.id);
const [first, second] = curated as [string, string];

function row(name: RegExp): ErrorFixture {
  const found = fixtures.get('vercel')?.errors.find((candidate) => name.test(candidate.name));
  if (!found) throw new Error(`providers/vercel/fixtures.ts has no row matching ${name}`);
  return found;
}

function answer(res: ServerResponse, fixture: ErrorFixture): void {
  json(res, fixture.status, fixture.body, { ...fixture.headers });
}

const isListing = (req: SeenRequest): boolean => req.method === 'GET' && req.path === '/models';
const chatCalls = (upstream: FakeUpstream): string[] => upstream.requests.filter((req) => req.method === 'POST').map((req) => String(req.body?.model));

describe('vercel: the AI Gateway through Freeway', () => {
  let upstream: FakeUpstream;
  const running: RunningFreeway[] = [];

  async function start(env: Record<string, string> = {}): Promise<RunningFreeway> {
    const freeway = await startFreeway({ env: { VERCEL_BASE_URL: upstream.url, ...env } });
    running.push(freeway);
    return freeway;
  }

  beforeEach(async () => {
    upstream = await startUpstream();
  });
  afterEach(async () => {
    for (const freeway of running.splice(0)) await freeway.close();
    await upstream.close();
  });

  it('the monthly credit comes after the free tiers: free:auto asks Groq first and uses the credit only when Groq is rate limited', async () => {
    const groq = await startUpstream((_req, res) => openAIError(res, 429, 'Rate limit reached for requests per minute (RPM)', { 'retry-after': '7' }));
    try {
      upstream.handle((req, res) => openAIText(res, 'from the credit', req));
      const freeway = await start({ GROQ_BASE_URL: groq.url });
      const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('groq', 'vercel'));
      expect(res.status, res.text).to.equal(200);
      expect(res.json.choices[0].message.content).to.equal('from the credit');
      expect(res.headers.get('x-freeway-provider')).to.equal('vercel');
      expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^groq/\\S+ 429 \\d+ms, vercel/${first} 200 \\d+ms$`));
    } finally {
      await groq.close();
    }
  });

  it('a model the free credit does not reach (403 RestrictedModelsError) is skipped for that key, which stays healthy', async () => {
    const restricted = row(/Free tier users do not have access/);
    upstream.handle((req, res) => (req.body?.model === first ? answer(res, restricted) : openAIText(res, 'from the next model', req)));
    const freeway = await start({ MODEL_QUARANTINE_MS: '21600000' });
    const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('vercel'));
    expect(res.status, res.text).to.equal(200);
    expect(res.json.choices[0].message.content).to.equal('from the next model');
    expect(res.headers.get('x-freeway-attempts')).to.match(new RegExp(`^vercel/${first} 403 \\d+ms, vercel/${second} 200 \\d+ms$`));
    expect((await getHealth(freeway.url, keyHeaders('vercel'))).providers.vercel).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });

    const again = await postChat(freeway.url, hello('free:auto'), keyHeaders('vercel'));
    expect(again.status, again.text).to.equal(200);
    expect(again.headers.get('x-freeway-attempts')).to.match(new RegExp(`^vercel/${second} 200 \\d+ms$`));
    expect(chatCalls(upstream)).to.deep.equal([first, second, second]);
  });

  it('a team without a card on file (403 customer_verification_required) has no usable credit: the caller is told to add credit, not that the key is wrong', async () => {
    upstream.handle((_req, res) => answer(res, row(/customer_verification_required/)));
    const freeway = await start();
    const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('vercel'));
    const { message } = await expectError(new Response(res.text, { status: res.status, headers: res.headers }), 502, 'freeway_all_providers_failed');
    expect(message).to.match(/vercel: the provider refused the key: it has no credit left \(403 .*\): add credit or fix X-Vercel-Key/);
    expect(message).to.not.include(key);
    expect((await getHealth(freeway.url, keyHeaders('vercel'))).providers.vercel).to.include({ state: 'no_credit' });
    // Every curated model shares the key's credit: one call, then the key sits out.
    expect(chatCalls(upstream)).to.have.length(1);
  });

  it('a spent credit (402 insufficient_funds) sits the key out for a day; the next request does not call the gateway', async () => {
    upstream.handle((_req, res) => answer(res, row(/insufficient_funds/)));
    const freeway = await start();
    const res = await postChat(freeway.url, hello(`vercel/${first}`), keyHeaders('vercel'));
    expect(res.status, res.text).to.equal(502);
    expect(res.json.error.type).to.equal('freeway_provider_error');
    expect(res.json.error.message).to.match(/^Provider failed: vercel: the provider refused the key: it has no credit left \(402 /);
    expect((await getHealth(freeway.url, keyHeaders('vercel'))).providers.vercel).to.deep.equal({ state: 'no_credit', consecutiveFailures: 1, retryAfter: 86_400 });
    const next = await postChat(freeway.url, hello('free:auto'), keyHeaders('vercel'));
    expect(next.status, next.text).to.equal(502);
    expect(upstream.requests, 'the gateway is not called again').to.have.length(1);
  });

  it('keys are checked at GET /credits with the key, since the model list answers without one', async () => {
    upstream.handle((req, res) => {
      if (req.path !== '/credits') return openAIError(res, 404, 'not found');
      if (req.headers.authorization === `Bearer ${key}`) return json(res, 200, { balance: '4.21', total_used: '0.79' });
      return answer(res, row(/invalid API key/));
    });
    const freeway = await start();
    const good = (await (await fetch(`${freeway.url}/v1/providers?check=1`, { headers: keyHeaders('vercel') })).json()) as { data: Array<{ id: string; keys?: Array<{ state: string }> }> };
    expect(good.data.find((entry) => entry.id === 'vercel')?.keys?.[0]?.state).to.equal('healthy');
    expect(upstream.requests.map((req) => [req.method, req.path, req.headers.authorization])).to.deep.equal([['GET', '/credits', `Bearer ${key}`]]);

    const wrong = 'vck_Wr0ngKeyT7pQx2Lm9Zc4Rv8Bn3Hs6Jd1Fa5Gk0Ye2Ui7Op4Tw9Sx3Cq8Dv6Mb';
    const bad = (await (await fetch(`${freeway.url}/v1/providers?check=1`, { headers: { 'X-Vercel-Key': wrong } })).json()) as { data: Array<{ id: string; keys?: Array<{ state: string }> }> };
    expect(bad.data.find((entry) => entry.id === 'vercel')?.keys?.[0]?.state).to.equal('invalid_key');
  });

  it('from the live list, a zero-priced model the plugin does not know joins free:auto; a priced one is only pinnable', async () => {
    upstream.handle((req, res) => {
      if (isListing(req)) {
        return json(res, 200, {
          object: 'list',
          data: [
            { id: 'zai/glm-5.3', object: 'model', type: 'language', context_window: 1000000, max_tokens: 131072, tags: ['reasoning', 'tool-use'], pricing: { input: '0.0000014', output: '0.0000044' } },
            { id: 'poolside/laguna-s-2.1-free', object: 'model', type: 'language', context_window: 256000, max_tokens: 32768, tags: ['tool-use'], pricing: { input: '0', output: '0' } },
          ],
        });
      }
      return openAIText(res, `from ${String(req.body?.model)}`, req);
    });
    const freeway = await start({ MODELS_LIVE: 'on' });
    const res = await postChat(freeway.url, hello('free:auto'), keyHeaders('vercel'));
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('x-freeway-model')).to.equal('vercel/poolside/laguna-s-2.1-free');
    const pinned = await postChat(freeway.url, hello('vercel/zai/glm-5.3'), keyHeaders('vercel'));
    expect(pinned.status, pinned.text).to.equal(200);
    expect(pinned.json.choices[0].message.content).to.equal('from zai/glm-5.3');
    expect(chatCalls(upstream)).to.deep.equal(['poolside/laguna-s-2.1-free', 'zai/glm-5.3']);
  });

  it('embeddings: openai/text-embedding-3-small is served at POST /embeddings with the model id as the gateway names it; dimensions are refused', async () => {
    upstream.handle((req, res) => {
      const input = req.body?.input as string[];
      json(res, 200, {
        object: 'list',
        data: input.map((_text, index) => ({ object: 'embedding', index, embedding: [0.25 * (index + 1), -0.5] })),
        model: 'openai/text-embedding-3-small',
        usage: { prompt_tokens: 6, total_tokens: 6 },
        providerMetadata: { gateway: { cost: '0.00000012' } },
      });
    });
    const freeway = await start();
    const res = await fetch(`${freeway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('vercel') },
      body: JSON.stringify({ model: 'vercel/openai/text-embedding-3-small', input: ['Sunny day at the beach', 'Cloudy city skyline'] }),
    });
    const text = await res.text();
    expect(res.status, text).to.equal(200);
    const body = JSON.parse(text) as { model: string; data: Array<{ index: number; embedding: number[] }>; usage: unknown };
    expect(body.model).to.equal('vercel/openai/text-embedding-3-small');
    expect(body.data.map((entry) => entry.embedding)).to.deep.equal([
      [0.25, -0.5],
      [0.5, -0.5],
    ]);
    expect(body.usage).to.deep.equal({ prompt_tokens: 6, total_tokens: 6 });
    const [sent] = upstream.requests as [SeenRequest];
    expect([sent.method, sent.path, sent.headers.authorization]).to.deep.equal(['POST', '/embeddings', `Bearer ${key}`]);
    expect(sent.body).to.deep.equal({ model: 'openai/text-embedding-3-small', input: ['Sunny day at the beach', 'Cloudy city skyline'], encoding_format: 'float' });

    const sized = await fetch(`${freeway.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeaders('vercel') },
      body: JSON.stringify({ model: 'vercel/openai/text-embedding-3-small', input: 'x', dimensions: 512 }),
    });
    const { message } = await expectError(sized, 400, 'invalid_request_error');
    expect(message).to.match(/dimensions/);
    expect(upstream.requests, 'a refused request never reaches the gateway').to.have.length(1);
  });
});
