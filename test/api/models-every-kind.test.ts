/**
 * What a key can use, every kind: with key headers, GET /v1/models lists the curated embedding and
 * transcription models of the keys' providers and the free:embed and free:transcribe aliases those
 * keys serve, as the keyless list does; GET /v1/providers counts every curated model of a provider,
 * as many as the keyless list shows for it, and names every alias its keys serve. Derived from the
 * discovered plugins.
 */
import { expect } from 'chai';
import type { ModelObject } from '../../catalog/catalog.ts';
import { startFreeway, type RunningFreeway } from '../support/freeway.ts';
import { keyHeaders } from '../support/keys.ts';
import { providerPlugins } from '../support/plugins.ts';
import { startUpstream, type FakeUpstream } from '../support/upstream.ts';

const plugins = await providerPlugins();
const withOtherKinds = plugins.filter((plugin) => (plugin.embeddingModels?.length ?? 0) + (plugin.transcriptionModels?.length ?? 0) > 0 && !plugin.anonymous);

async function list(url: string, headers: Record<string, string> = {}): Promise<ModelObject[]> {
  return ((await (await fetch(`${url}/v1/models`, { headers })).json()) as { data: ModelObject[] }).data;
}

describe('what a key can use, every kind', function () {
  let upstream: FakeUpstream;
  let freeway: RunningFreeway;
  before(async () => {
    upstream = await startUpstream((_req, res) => {
      res.writeHead(404).end();
    });
    freeway = await startFreeway({ env: Object.fromEntries(plugins.map((plugin) => [`${plugin.id.toUpperCase()}_BASE_URL`, `${upstream.url}/${plugin.id}`])) });
  });
  after(async () => {
    await freeway.close();
    await upstream.close();
  });

  it('there are providers with embedding or transcription models to check', () => {
    expect(withOtherKinds.length).to.be.greaterThan(1);
  });

  for (const plugin of withOtherKinds) {
    it(`${plugin.id}: its key sees its embedding and transcription models and the aliases of their kind it serves`, async () => {
      const keyless = await list(freeway.url);
      const own = keyless.filter((object) => object.owned_by === plugin.id);
      const otherKinds = own.filter((object) => object.kind === 'embedding' || object.kind === 'transcription');
      const kindAliases = keyless.filter((object) => object.owned_by === 'freeway' && (object.capabilities.includes('embedding') || object.capabilities.includes('transcription')));
      const served = kindAliases.filter((alias) => own.some((object) => object.family !== undefined && object.family === alias.family && object.deprecated !== true && object.capabilities.includes(alias.capabilities[0] as 'embedding')));
      const keyed = await list(freeway.url, keyHeaders(plugin.id));
      const ids = keyed.map((object) => object.id);
      for (const object of otherKinds) expect(ids, object.id).to.include(object.id);
      for (const alias of served) expect(ids, alias.id).to.include(alias.id);
      for (const alias of kindAliases.filter((candidate) => !served.includes(candidate))) expect(ids, alias.id).to.not.include(alias.id);
      for (const object of keyed.filter((candidate) => otherKinds.some((other) => other.id === candidate.id))) {
        expect(object, object.id).to.deep.include({ source: 'curated', available: true, kind: otherKinds.find((other) => other.id === object.id)?.kind });
      }

      const providers = (await (await fetch(`${freeway.url}/v1/providers`, { headers: keyHeaders(plugin.id) })).json()) as { data: Array<{ id: string; models: number; aliases: string[]; keys?: Array<{ usableModels: number; usableAliases: string[] }> }> };
      const entry = providers.data.find((candidate) => candidate.id === plugin.id);
      expect(entry?.models, 'as many as the keyless list shows for the provider').to.equal(own.length);
      for (const alias of served) {
        expect(entry?.aliases, alias.id).to.include(alias.id);
        expect(entry?.keys?.[0]?.usableAliases, alias.id).to.include(alias.id);
      }
      const usable = own.filter((object) => object.deprecated !== true).length;
      expect(entry?.keys?.[0]?.usableModels, 'every model of every kind the key can use now').to.equal(usable);
    });
  }
});
