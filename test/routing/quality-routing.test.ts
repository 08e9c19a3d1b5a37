import { expect } from 'chai';
import { tierRank, type Alias, type CatalogModel } from '../../catalog/catalog.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { hello, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { json, openAIText, startUpstream, type FakeUpstream } from '../support/upstream.ts';

/**
 * ROUTING=quality (the default): an alias tries the strongest usable model of the free tier first,
 * by its benchmark score, with no speed measured yet. The expectations are read from the catalog
 * (the plugins' scores), never written out, so that a new score moves them along.
 */
describe('ordering by benchmark score (ROUTING=quality)', () => {
  let groq: FakeUpstream;
  let nvidia: FakeUpstream;
  let freeway: RunningFreeway | undefined;
  const providers = ['groq', 'nvidia'];
  const keys = keyHeaders(...providers);

  before(async () => {
    [groq, nvidia] = await Promise.all([startUpstream(), startUpstream()]);
  });
  beforeEach(() => {
    groq.requests.length = 0;
    nvidia.requests.length = 0;
    for (const upstream of [groq, nvidia]) upstream.handle((req, res) => openAIText(res, `answered by ${String(req.body?.model)}`, req));
  });
  afterEach(() => freeway?.close());
  after(() => Promise.all([groq.close(), nvidia.close()]));

  async function start(env: Record<string, string> = {}): Promise<RunningFreeway> {
    freeway = await startFreeway({ env: { GROQ_BASE_URL: groq.url, NVIDIA_BASE_URL: nvidia.url, ROUTING: 'quality', ROUTING_EXPLORE_SHARE: '0', ...env } });
    return freeway;
  }

  const alias = (server: RunningFreeway, id: string): Alias => server.catalog.aliases.find((candidate) => candidate.id === id) as Alias;
  /** The alias's candidates for these keys, in catalog order (provider priority, then plugin order). */
  const candidates = (server: RunningFreeway, id: string): CatalogModel[] => alias(server, id).models.filter((model) => providers.includes(model.provider.id));
  /** The highest-scored free-tier candidate; the first in catalog order among equals. */
  function strongest(server: RunningFreeway, id: string): CatalogModel {
    const free = candidates(server, id).filter((model) => tierRank(model.provider) === 0 && model.spec.quality !== undefined);
    return free.reduce((best, model) => ((model.spec.quality?.score ?? 0) > (best.spec.quality?.score ?? 0) ? model : best));
  }
  const upstreamModels = (): string[] => [...groq.requests, ...nvidia.requests].map((req) => String(req.body?.model));

  for (const id of ['free:auto', 'free:reasoning', 'free:tool-use', 'free:long-context']) {
    it(`${id} on a fresh instance tries the highest-scored usable model first, not the first in catalog order`, async () => {
      const server = await start();
      const best = strongest(server, id);
      expect(best.id, 'the test needs a catalog whose first candidate is not the strongest').to.not.equal(candidates(server, id)[0]?.id);
      const res = await postChat(server.url, hello(id), keys);
      expect(res.status, res.text).to.equal(200);
      expect(res.headers.get('x-freeway-model')).to.equal(best.id);
      expect(upstreamModels()).to.deep.equal([best.spec.id]);
    });
  }

  it('ROUTING=priority tries catalog order', async () => {
    const server = await start({ ROUTING: 'priority' });
    const res = await postChat(server.url, hello('free:auto'), keys);
    expect(res.headers.get('x-freeway-model')).to.equal(candidates(server, 'free:auto')[0]?.id);
  });

  it('X-Freeway-Routing chooses per request, over ROUTING', async () => {
    const server = await start({ ROUTING: 'priority' });
    const byQuality = await postChat(server.url, hello('free:auto'), { ...keys, 'X-Freeway-Routing': 'quality' });
    expect(byQuality.headers.get('x-freeway-model')).to.equal(strongest(server, 'free:auto').id);
    const byPriority = await postChat(server.url, hello('free:auto'), { ...keys, 'X-Freeway-Routing': 'Priority' });
    expect(byPriority.status, 'any case').to.equal(200);
    expect(byPriority.headers.get('x-freeway-model')).to.equal(candidates(server, 'free:auto')[0]?.id);
  });

  for (const value of ['fastest', '', 'quality,latency']) {
    it(`X-Freeway-Routing: ${JSON.stringify(value)} is a 400 naming the values it takes, and calls no one`, async () => {
      const server = await start();
      const res = await postChat(server.url, hello('free:auto'), { ...keys, 'X-Freeway-Routing': value });
      expect(res.status).to.equal(400);
      expect(res.json.error.type).to.equal('invalid_request_error');
      expect(res.json.error.message).to.equal('Validation failed: X-Freeway-Routing: must be one of quality, latency, priority');
      expect(upstreamModels()).to.deep.equal([]);
    });
  }

  it('the score leads only while it is usable: with the strongest model failing, the next by score answers', async () => {
    const server = await start();
    const order = candidates(server, 'free:auto')
      .filter((model) => tierRank(model.provider) === 0 && model.spec.quality !== undefined)
      .sort((a, b) => (b.spec.quality?.score ?? 0) - (a.spec.quality?.score ?? 0));
    const [first, second] = order as [CatalogModel, CatalogModel];
    // A 404 is about the model alone: the next candidate may be of the same provider.
    for (const upstream of [groq, nvidia]) {
      upstream.handle((req, res) =>
        req.body?.model === first.spec.id ? json(res, 404, { error: { message: 'model not found' } }) : openAIText(res, 'second best', req),
      );
    }
    const res = await postChat(server.url, hello('free:auto'), keys);
    expect(res.status, res.text).to.equal(200);
    expect(upstreamModels()).to.deep.equal([first.spec.id, second.spec.id]);
  });

  it('free:fast under quality goes by measured speed: the faster provider leads once measured', async () => {
    const server = await start({ ROUTING_EXPLORE_SHARE: '0' });
    const fast = candidates(server, 'free:fast');
    const first = fast[0] as CatalogModel;
    const other = fast.find((model) => model.provider.id !== first.provider.id) as CatalogModel;
    const slow = first.provider.id === 'groq' ? groq : nvidia;
    slow.handle(async (req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      openAIText(res, 'slow', req);
    });
    // Nothing measured: catalog order. The first answer is slow; the other provider is measured when the first fails over to it.
    expect((await postChat(server.url, hello('free:fast'), keys)).headers.get('x-freeway-model')).to.equal(first.id);
    slow.handle((_req, res) => json(res, 503, { error: { message: 'Service unavailable' } }));
    expect((await postChat(server.url, hello('free:fast'), keys)).headers.get('x-freeway-model')).to.equal(other.id);
    slow.handle((req, res) => openAIText(res, 'healthy again', req));
    // Both measured: the other provider was faster, so it goes first, whatever the scores say.
    const res = await postChat(server.url, hello('free:fast'), keys);
    expect(res.headers.get('x-freeway-model')).to.equal(other.id);
  });
});
