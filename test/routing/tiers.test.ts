/**
 * Free tiers first: an alias spends money only when nothing free could answer (the README's provider
 * table, written from the same plugins, is checked in test/ops/docs-providers.test.ts). The providers compared
 * here are taken from the plugins' own `tier` and `priority`, never from a list.
 */
import { expect } from 'chai';
import { buildCatalog, tierRank } from '../../catalog/catalog.ts';
import type { ProviderPlugin } from '../../providers/types.ts';
import { startFreeway } from '../support/freeway.ts';
import { hello, postChat } from '../support/http.ts';
import { keyHeaders } from '../support/keys.ts';
import { providerPlugins } from '../support/plugins.ts';
import { openAIText, startUpstream } from '../support/upstream.ts';

const plugins = await providerPlugins();
const catalog = buildCatalog(plugins);

/** A provider with a costlier tier but a better (lower) priority than a free one, when the plugins have such a pair. */
function costlierFirstByPriority(): [ProviderPlugin, ProviderPlugin] | undefined {
  for (const costly of plugins) {
    if (tierRank(costly) === 0) continue;
    const free = plugins.find((plugin) => tierRank(plugin) === 0 && plugin.priority > costly.priority && plugin.models.some((model) => !model.deprecated));
    if (free && costly.models.some((model) => !model.deprecated)) return [costly, free];
  }
  return undefined;
}

describe('free tiers first', function () {
  it('in every alias, no model of a costlier tier comes before a model of a free one', function () {
    for (const alias of catalog.aliases) {
      const ranks = alias.models.map((model) => tierRank(model.provider));
      expect(ranks, alias.id).to.deep.equal([...ranks].sort((a, b) => a - b));
    }
  });

  it('free:auto tries the free provider before a paid-only or trial one, whatever their priorities, with latency routing', async function () {
    const pair = costlierFirstByPriority();
    if (!pair) this.skip();
    const [costly, free] = pair as [ProviderPlugin, ProviderPlugin];
    const upstream = await startUpstream((req, res) => openAIText(res, 'Hello', req));
    const freeway = await startFreeway({
      env: { [`${costly.id.toUpperCase()}_BASE_URL`]: upstream.url, [`${free.id.toUpperCase()}_BASE_URL`]: upstream.url, ROUTING: 'latency', ROUTING_EXPLORE_SHARE: '1' },
    });
    try {
      for (let i = 0; i < 5; i++) {
        const res = await postChat(freeway.url, hello('free:auto'), keyHeaders(costly.id, free.id));
        expect(res.status, res.text).to.equal(200);
        // Exploration (every request here) picks among the free tier only.
        expect(res.headers.get('x-freeway-provider'), `${costly.id} is ${costly.tier.tier}, ${free.id} is ${free.tier.tier}`).to.equal(free.id);
      }
    } finally {
      await freeway.close();
      await upstream.close();
    }
  });
});
