/**
 * One realistic-looking key per provider, each in the provider's own format
 * where it has one, so that redaction and log tests search for real shapes.
 */
export const testKeys: Readonly<Record<string, string>> = {
  groq: 'gsk_TestKeyGroq0123456789abcdefABCDEF',
  google: 'AIzaSyTestKeyGoogle_0123456789-abcdefg',
  openrouter: 'sk-or-v1-0123456789abcdef0123456789abcdef',
  cloudflare: '0123456789abcdef0123456789abcdef:CFtestTokenCloudflare_0123456789',
  nvidia: 'nvapi-TestKeyNvidia_0123456789-abcdefghij',
  cerebras: 'csk-testkeycerebras0123456789abcdef',
  together: 'tgp_v1_TestKeyTogether0123456789abcdef',
  fireworks: 'fw_TestKeyFireworks0123456789abcd',
  mistral: 'TestKeyMistral0123456789abcdefAB',
  sambanova: 'TestKeySambanova-0123-4567-89ab-cdef',
  deepseek: 'sk-TestKeyDeepseek0123456789abcdef',
  deepinfra: 'TestKeyDeepinfra0123456789abcdefgh',
  cohere: 'TestKeyCohere0123456789abcdefghijklmn',
};

export const headerFor = (provider: string): string => `X-${provider.charAt(0).toUpperCase()}${provider.slice(1)}-Key`;

/** Headers that send the keys of the given providers. */
export function keyHeaders(...providers: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const provider of providers) {
    const key = testKeys[provider];
    if (!key) throw new Error(`no test key for ${provider}`);
    headers[headerFor(provider)] = key;
  }
  return headers;
}
