import { expect } from 'chai';
import type { ProviderPlugin, WireFixture } from '../../providers/types.ts';
import { providerFixtures } from './plugins.ts';

const fixtures = await providerFixtures();

/** A plugin's wire facts from its fixtures.ts, OpenAI's chat/completions format by default. */
export function wireOf(plugin: ProviderPlugin): Required<Pick<WireFixture, 'format' | 'omittedFields' | 'streamUsage'>> & WireFixture {
  const wire = fixtures.get(plugin.id)?.wire ?? {};
  return { format: 'openai', omittedFields: [], streamUsage: 'usage', ...wire };
}

/** The path and query under the base URL that a streaming chat call with `key` reaches. */
export function chatPath(plugin: ProviderPlugin, modelId: string, key: string): string {
  return wireOf(plugin).chatPath?.(modelId, key) ?? '/chat/completions';
}

/** A model an alias could pick (not deprecated), else the first. */
export function liveModelId(plugin: ProviderPlugin): string {
  const spec = plugin.models.find((model) => !model.deprecated) ?? plugin.models[0];
  if (!spec) throw new Error(`providers/${plugin.id} declares no models`);
  return spec.id;
}

/**
 * The upstream got the caller's credential exactly as the plugin's `authHeaders`
 * says, and nowhere else: Freeway's own `x-freeway-*` helpers never leave, no
 * header the plugin does not set carries a key, and the URL holds no secret.
 */
export function expectCredential(plugin: ProviderPlugin, key: string, header: (name: string) => string | null | undefined, url: string): void {
  const auth = plugin.authHeaders(key);
  for (const [name, value] of Object.entries(auth)) {
    if (name.startsWith('x-freeway-')) {
      expect(header(name) ?? null, `${name} stays inside Freeway`).to.equal(null);
      continue;
    }
    expect(header(name), `${plugin.id} upstream header ${name}`).to.equal(value);
    const secret = value.replace(/^Bearer /, '');
    expect(url, 'the credential is not in the URL').to.not.include(secret);
  }
  if (!('authorization' in auth)) expect(header('authorization') ?? null, 'no Authorization header').to.equal(null);
}
