import { providerFixtures, providerPlugins } from './plugins.ts';

const plugins = await providerPlugins();
const fixtures = await providerFixtures();

/**
 * One realistic-looking key per discovered provider, in the provider's own
 * format, from its `providers/<id>/fixtures.ts`, so that redaction and log
 * tests search for real shapes. Like real keys they are random: no word of a
 * message (a provider's name) is a run of 8 characters of one, which redaction
 * would take out.
 */
export const testKeys: Readonly<Record<string, string>> = Object.fromEntries(
  plugins.flatMap((plugin) => {
    const sampleKey = fixtures.get(plugin.id)?.sampleKey;
    return sampleKey === undefined ? [] : [[plugin.id, sampleKey]];
  }),
);

export const headerFor = (provider: string): string => `X-${provider.charAt(0).toUpperCase()}${provider.slice(1)}-Key`;

/** Headers that send the keys of the given providers. */
export function keyHeaders(...providers: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const provider of providers) {
    const key = testKeys[provider];
    if (!key) throw new Error(`no sample key for ${provider}: providers/${provider}/fixtures.ts must export one`);
    headers[headerFor(provider)] = key;
  }
  return headers;
}

/**
 * The end of a 401 sent to a caller allowed keyless calls who sent no key header, naming the keyless
 * providers (by plugin name, in catalog order) among those that would serve the model; '' for none.
 */
export function keylessOffer(names: readonly string[]): string {
  if (names.length === 0) return '';
  const listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return ` Or send \`X-Freeway-Keyless: on\` to call ${listed} without a key.`;
}
