import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import type { CatalogModel } from '../../catalog/catalog.ts';
import groqFixtures from '../../providers/groq/fixtures.ts';
import { CHARS_PER_TOKEN } from '../../server/routing/estimate.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { getHealth, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { json, openAIText, startUpstream, type FakeUpstream, type SeenRequest } from '../support/upstream.ts';

/**
 * Fit before sending: a request estimated larger than a model's context window, or than a key's own
 * per-request token limit for it (its 413, or its rate-limit headers), by more than FIT_MARGIN never
 * reaches that model; it costs no call and no attempt, and X-Freeway-Attempts says why. A figure
 * only the plugin states (a free plan's tokens per minute) orders the model after those the
 * request fits, and never refuses it: a paid plan's key takes more.
 */

/** A user message of about `tokens` tokens by Freeway's estimate (4 characters a token). */
const prompt = (tokens: number, text = 'a') => ({ messages: [{ role: 'user', content: text.padEnd(tokens * CHARS_PER_TOKEN, ' lorem') }] });
/** Groq's 413 for a request over the key's tokens per minute, as recorded in its fixtures. */
const tooLarge = groqFixtures.errors.find((row) => row.kind === 'request_too_large');

describe('fit before sending', () => {
  let groq: FakeUpstream;
  let nvidia: FakeUpstream;
  let freeway: RunningFreeway | undefined;

  before(async () => {
    [groq, nvidia] = await Promise.all([startUpstream(), startUpstream()]);
  });
  beforeEach(() => {
    for (const upstream of [groq, nvidia]) {
      upstream.requests.length = 0;
      upstream.handle((req, res) => openAIText(res, `answered by ${String(req.body?.model)}`, req));
    }
  });
  afterEach(() => freeway?.close());
  after(() => Promise.all([groq.close(), nvidia.close()]));

  async function start(env: Record<string, string> = {}): Promise<RunningFreeway> {
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, NVIDIA_BASE_URL: nvidia.url, ...env } });
    return freeway;
  }

  /** The current models of a provider, in plugin order. */
  const current = (server: RunningFreeway, provider: string): CatalogModel[] => server.catalog.models.filter((model) => model.provider.id === provider && !model.spec.deprecated);
  const limited = (server: RunningFreeway): CatalogModel[] => current(server, 'groq').filter((model) => model.spec.maxRequestTokens !== undefined);
  const attempts = (res: { headers: Headers }): string[] => (res.headers.get('x-freeway-attempts') ?? '').split(', ');

  it("Groq's models declare their free tier's per-request limit, which /v1/models shows", async () => {
    const server = await start();
    expect(limited(server).length, 'groq models with a per-request limit').to.be.greaterThan(0);
    const res = await fetch(`${server.url}/v1/models`);
    const objects = ((await res.json()) as { data: Array<Record<string, unknown>> }).data;
    for (const model of limited(server)) {
      expect(objects.find((object) => object.id === model.id)?.max_request_tokens).to.equal(model.spec.maxRequestTokens);
    }
    expect(objects.find((object) => object.id === 'free:auto')?.max_request_tokens).to.equal(null);
  });

  it("a prompt over a free plan's per-request figure goes to the candidates it fits first: the model over it is not called", async () => {
    const server = await start({ ROUTING: 'priority' });
    const res = await postChat(server.url, { model: 'free:auto', ...prompt(41_000) }, keyHeaders('groq', 'nvidia'));
    expect(res.status, res.text).to.equal(200);
    expect(groq.requests, 'groq calls').to.have.length(0);
    expect(attempts(res)[0]).to.match(/^nvidia\/\S+ 200 \d+ms$/);
    expect(nvidia.requests).to.have.length(1);
  });

  it("a key on a paid plan answers a prompt over the free plan's figure on its first turn and the next", async () => {
    const server = await start();
    const [model] = limited(server) as [CatalogModel];
    // Every answer of a Developer-plan key states its own figure (https://console.groq.com/docs/rate-limits).
    groq.handle((req, res) => openAIText(res, 'a paid key answers', req, { 'x-ratelimit-limit-tokens': '250000', 'x-ratelimit-remaining-tokens': '200000' }));
    const keys = keyHeaders('groq');
    for (const text of ['a', 'b']) {
      const res = await postChat(server.url, { model: 'free:auto', ...prompt(18_000, text) }, keys);
      expect(res.status, res.text).to.equal(200);
      expect(attempts(res)).to.have.length(1);
      expect(attempts(res)[0]).to.match(new RegExp(`^${model.id.replace(/[/.]/g, '\\$&')} 200 \\d+ms$`));
    }
    expect(groq.requests).to.have.length(2);
  });

  it('a prompt within FIT_MARGIN of the limit is sent: the estimate never blocks a request that would have fit', async () => {
    const server = await start({ ROUTING: 'priority' });
    const [model] = limited(server) as [CatalogModel];
    const tokens = Math.floor((model.spec.maxRequestTokens as number) * 1.15);
    const res = await postChat(server.url, { model: model.id, ...prompt(tokens) }, keyHeaders('groq'));
    expect(res.status, res.text).to.equal(200);
    expect(groq.requests).to.have.length(1);
    // With FIT_MARGIN=0 the same prompt is skipped, once the key has stated its figure.
    await server.close();
    const strict = await start({ ROUTING: 'priority', FIT_MARGIN: '0' });
    groq.handle((req, res) => openAIText(res, 'stated', req, { 'x-ratelimit-limit-tokens': String(model.spec.maxRequestTokens) }));
    expect((await postChat(strict.url, { model: model.id, ...prompt(10) }, keyHeaders('groq'))).status).to.equal(200);
    const refused = await postChat(strict.url, { model: model.id, ...prompt(tokens) }, keyHeaders('groq'));
    expect(refused.status).to.equal(400);
    expect(groq.requests).to.have.length(2);
  });

  it("a prompt larger than a model's context window is skipped for the models with a larger one", async () => {
    const server = await start({ ROUTING: 'priority' });
    const models = current(server, 'nvidia');
    const window = Math.min(...models.map((model) => model.spec.contextWindow));
    const larger = models.filter((model) => model.spec.contextWindow > window * 1.5);
    expect(larger.length, 'the test needs nvidia models of two window sizes').to.be.greaterThan(0);
    const tokens = Math.ceil(window * 1.3);
    const res = await postChat(server.url, { model: 'free:long-context', ...prompt(tokens) }, keyHeaders('nvidia'));
    expect(res.status, res.text).to.equal(200);
    for (const seen of nvidia.requests) {
      const model = models.find((candidate) => candidate.spec.id === seen.body?.model) as CatalogModel;
      expect(model.spec.contextWindow, `${model.id} was sent ~${tokens} tokens`).to.be.above(tokens);
    }
    expect(attempts(res).some((attempt) => attempt.endsWith(`too large (~${tokens} > ${window} tokens)`))).to.equal(true);
  });

  it("on a free plan's key a prompt over every candidate's figure costs one call, to the strongest, and its 400 names the limit; later ones cost none", async () => {
    const server = await start();
    groq.handle((_req, res) => json(res, 413, tooLarge?.body));
    const [strongest] = limited(server) as [CatalogModel];
    const keys = keyHeaders('groq');
    const res = await postChat(server.url, { model: 'free:auto', ...prompt(41_000) }, keys);
    expect(res.status, res.text).to.equal(400);
    expect(res.json.error.type).to.equal('invalid_request_error');
    expect(res.json.error.message).to.equal(
      `Request too large: about 41000 tokens of input, more than any model your keys can use takes: ${strongest.id} takes 8,000 tokens a request on this key: Groq's tokens-a-minute limit. What would help: a key of a provider whose allowance takes it (a paid plan's key states a larger figure), or a shorter conversation.`,
    );
    expect(groq.requests.map((req) => req.body?.model)).to.deep.equal([strongest.spec.id]);
    expect((await getHealth(server.url, keys)).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });
    // The key has stated its figure: the same prompt is refused without a call.
    const again = await postChat(server.url, { model: strongest.id, ...prompt(41_000, 'b') }, keys);
    expect(again.status).to.equal(400);
    expect(again.json.error.message).to.match(new RegExp(`^Request too large: about 41000 tokens of input, more than any model your keys can use takes: ${strongest.id.replace(/[/.]/g, '\\$&')} takes 8,000 tokens a request on this key`));
    expect(attempts(again)).to.deep.equal([`${strongest.id} too large (~41000 > 8000 tokens)`]);
    expect(groq.requests).to.have.length(1);
  });

  it("a prompt larger than every context window is refused without a call, and the 400 names the windows", async () => {
    const server = await start();
    const res = await postChat(server.url, { model: 'free:auto', ...prompt(200_000) }, keyHeaders('groq'));
    expect(res.status).to.equal(400);
    expect(res.json.error.message).to.match(/^Request too large: about 200000 tokens of input, more than any model your keys can use takes: groq\/\S+ has a context window of 131,072 tokens/);
    expect(res.json.error.message).to.match(/What would help: a shorter conversation, or keys of providers with larger windows \(the largest your keys offer: 131,072 tokens, groq\/\S+\)\.$/);
    expect(groq.requests).to.have.length(0);
  });

  it('when the candidates the prompt fits failed, the strongest over its figure is tried, and the 502 names both', async () => {
    const server = await start({ ROUTING: 'priority' });
    nvidia.handle((_req, res) => json(res, 503, { error: { message: 'Service unavailable' } }));
    groq.handle((_req, res) => json(res, 413, tooLarge?.body));
    const res = await postChat(server.url, { model: 'free:auto', ...prompt(41_000) }, keyHeaders('groq', 'nvidia'));
    expect(res.status).to.equal(502);
    expect(res.json.error.type).to.equal('freeway_all_providers_failed');
    expect(res.json.error.message).to.include('nvidia: 503');
    expect(res.json.error.message).to.include('groq: 413');
    expect(groq.requests).to.have.length(1);
  });

  it('skipped candidates do not count toward MAX_ATTEMPTS', async () => {
    const server = await start({ ROUTING: 'priority', MAX_ATTEMPTS: '1' });
    const res = await postChat(server.url, { model: 'free:auto', ...prompt(41_000) }, keyHeaders('groq', 'nvidia'));
    expect(res.status, res.text).to.equal(200);
    expect(nvidia.requests).to.have.length(1);
  });

  it('an output budget that does not fit beside the prompt is lowered to what is left', async () => {
    const server = await start();
    const [model] = limited(server) as [CatalogModel];
    const limit = model.spec.maxRequestTokens as number;
    const res = await postChat(server.url, { model: model.id, max_tokens: 4000, ...prompt(limit - 3000) }, keyHeaders('groq'));
    expect(res.status, res.text).to.equal(200);
    const sent = groq.requests[0]?.body;
    expect(sent?.max_completion_tokens ?? sent?.max_tokens).to.equal(3000);
  });

  describe("a limit stated by the provider's 413", () => {
    /** Groq answers `model` with its 413, stating `limit`; any other model answers. */
    function refuse(model: string, limit: number): void {
      const body = JSON.parse(JSON.stringify(tooLarge?.body).replace('Limit 8000', `Limit ${limit}`)) as unknown;
      groq.handle((req: SeenRequest, res: ServerResponse) => (req.body?.model === model ? json(res, 413, body) : openAIText(res, 'fits', req)));
    }

    it('is learnt for the key and model and used on the next request; the key stays healthy', async () => {
      const server = await start({ ROUTING: 'priority' });
      const [first, second] = limited(server) as [CatalogModel, CatalogModel];
      refuse(first.spec.id, 5000);
      const tokens = 7000;
      const keys = keyHeaders('groq');
      const one = await postChat(server.url, { model: 'free:auto', ...prompt(tokens) }, keys);
      expect(one.status, one.text).to.equal(200);
      expect(groq.requests.map((req) => req.body?.model)).to.deep.equal([first.spec.id, second.spec.id]);
      expect(attempts(one)[0]).to.match(new RegExp(`^${first.id.replace(/[/.]/g, '\\$&')} 413 \\d+ms$`));
      expect((await getHealth(server.url, keys)).providers.groq).to.deep.equal({ state: 'healthy', consecutiveFailures: 0 });

      groq.requests.length = 0;
      const two = await postChat(server.url, { model: 'free:auto', ...prompt(tokens, 'b') }, keys);
      expect(two.status, two.text).to.equal(200);
      expect(groq.requests.map((req) => req.body?.model), 'the refusing model is not called again').to.deep.equal([second.spec.id]);
      expect(attempts(two)[0]).to.equal(`${first.id} too large (~${tokens} > 5000 tokens)`);
    });

    it('is kept per key: another key of the pool still tries the model', async () => {
      const server = await start({ ROUTING: 'priority' });
      const [first] = limited(server) as [CatalogModel];
      refuse(first.spec.id, 5000);
      const one = keyHeaders('groq');
      await postChat(server.url, { model: first.id, ...prompt(7000) }, one);
      groq.requests.length = 0;
      groq.handle((req, res) => openAIText(res, 'fits', req));
      const other = { 'X-Groq-Key': 'gsk_Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gFe' };
      const res = await postChat(server.url, { model: first.id, ...prompt(7000) }, other);
      expect(res.status, res.text).to.equal(200);
      expect(groq.requests).to.have.length(1);
    });

    it('expires after LEARNED_LIMIT_MS', async () => {
      let clock = Date.UTC(2026, 10, 27, 12);
      freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, ROUTING: 'priority', LEARNED_LIMIT_MS: '60000' }, now: () => clock });
      const [first] = limited(freeway) as [CatalogModel];
      refuse(first.spec.id, 5000);
      await postChat(freeway.url, { model: first.id, ...prompt(7000) }, keyHeaders('groq'));
      expect(groq.requests).to.have.length(1);
      const skipped = await postChat(freeway.url, { model: first.id, ...prompt(7000) }, keyHeaders('groq'));
      expect(skipped.status).to.equal(400);
      expect(groq.requests).to.have.length(1);
      clock += 61_000;
      groq.handle((req, res) => openAIText(res, 'fits', req));
      const again = await postChat(freeway.url, { model: first.id, ...prompt(7000) }, keyHeaders('groq'));
      expect(again.status, again.text).to.equal(200);
      expect(groq.requests).to.have.length(2);
    });
  });
});
